"""Counting the calls of a student's search (case process side, stdlib only).

A search's *nodes* are the calls of its recursive functions: the named
functions of the submission (``def``, not lambdas, comprehensions or
generators) that can call themselves -- directly or through each other, as
``max_value`` and ``min_value`` -- by the names they use
(:func:`candidates`), and that were called more than once during the
search.  Helpers called at every node (``IsWinning(board)``) cannot call the
search and are not counted (nor instrumented), so the count does not depend
on how a student splits the work into functions.

The submission's functions are the code objects reachable from its modules'
namespaces (functions, methods, and the functions defined inside them),
whatever file name a code object claims.  Only calls made on the thread
that called the entry point are counted: a search run on another thread is
*not countable*, and the judge says so rather than reading its zero as
pruning.

Two instruments give the same counts:

- Python 3.12 and later: ``sys.monitoring`` (PEP 669), ``PY_START`` only.
  The tool id is claimed before the student module runs (:func:`claim`, in
  the runner), so a submission cannot take it first; events are local
  to the candidate code objects.
- Python 3.9 to 3.11: ``cProfile``'s call counts (a profile hook written in
  C, for the calling thread only).

Either way the count is a claim made in the submission's own process: the
judge confirms it with the CPU time the parent measures.
"""
import collections
import sys
import types

if sys.version_info < (3, 12):
    import cProfile  # here, in the runner: a case process would spend a millisecond on it

try:
    from _thread import get_ident as _get_ident
except ImportError:  # pragma: no cover - every CPython has _thread
    from threading import get_ident as _get_ident

MONITORING = sys.version_info >= (3, 12)
TOOL_NAME = 'grader-counter'
HOOKS = ('sys.setprofile', 'sys.settrace')
"""Audit events of a search that touches the hooks counters rest on (on any Python)."""
_touched = []
_RESUMABLE = 0x20 | 0x80 | 0x200
"""``CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR``, spelt out (importing
:mod:`inspect` costs a child about 7 ms)."""
_UNNAMED = frozenset({'<lambda>', '<listcomp>', '<dictcomp>', '<setcomp>', '<genexpr>',
                      '<module>'})
_tool = []


def _record(event, args, _hooks=HOOKS, _touched=_touched):
    if event in _hooks:
        _touched.append(event)


def claim():
    """Prepare the counters before any student code runs: record every call of
    ``sys.setprofile``/``sys.settrace`` (an audit hook, which cannot be removed),
    and take the monitoring tool id (3.12+).  False if the id is taken.

    The runner calls it before its first fork, and each case process again
    (which then finds both done): the hook and the id are inherited."""
    if not _touched and not getattr(claim, 'recording', False):
        sys.addaudithook(_record)
        claim.recording = True
    if not MONITORING or _tool:
        return bool(_tool)
    monitoring = sys.monitoring
    for tool in (monitoring.PROFILER_ID, 3, 4):
        try:
            monitoring.use_tool_id(tool, TOOL_NAME)
        except ValueError:
            continue
        _tool.append(tool)
        return True
    return False


def nested_codes(codes):
    """``codes`` and every code object defined inside them."""
    found, stack = set(), list(codes)
    while stack:
        code = stack.pop()
        if code in found:
            continue
        found.add(code)
        stack.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return found


def _function_codes(obj):
    """Code objects of a function, method or property, read without calling the object's own
    attribute hooks (a submission's object may answer any attribute by raising)."""
    func = obj.__func__ if isinstance(obj, (staticmethod, classmethod, types.MethodType)) \
        else obj
    if isinstance(func, types.FunctionType):
        return [func.__code__]
    if isinstance(obj, property):
        return [f.__code__ for f in (obj.fget, obj.fset, obj.fdel)
                if isinstance(f, types.FunctionType)]
    return []


def submission_codes(namespaces, excluded=()):
    """Code objects of the functions and methods reachable from ``namespaces``.

    ``namespaces`` are the module dictionaries of the submission's files;
    classes are looked into (one level of nesting), and every code object
    defined inside a function is included.  ``excluded`` names functions
    the handout provides (not part of the search).
    """
    codes = set()
    for namespace in namespaces:
        for name, obj in list(dict.items(namespace)):
            if name in excluded:
                continue
            codes.update(_function_codes(obj))
            if isinstance(obj, type):
                for klass in type.__getattribute__(obj, '__mro__')[:-1]:
                    for member in dict(type.__getattribute__(klass, '__dict__')).values():
                        codes.update(_function_codes(member))
                        if isinstance(member, type):
                            for inner in dict(type.__getattribute__(member, '__dict__')).values():
                                codes.update(_function_codes(inner))
    return nested_codes(codes)


def countable(code):
    """A named function that is not a generator or coroutine."""
    return code.co_name not in _UNNAMED and not code.co_flags & _RESUMABLE


def _referenced(code):
    """Names a function may call by: its global, attribute, free and cell names and the
    identifier-like strings of its constants, with those of the lambdas and comprehensions
    inside it (they are part of its body)."""
    names = set(code.co_names) | set(code.co_freevars) | set(code.co_cellvars)
    for const in code.co_consts:
        if isinstance(const, str) and const.isidentifier():
            names.add(const)
        elif isinstance(const, types.CodeType) and const.co_name in _UNNAMED:
            names |= _referenced(const)
    return names


def candidates(codes):
    """The countable codes that could be recursive: on a cycle of the graph in which a
    function points at every function of the submission it names.

    A search that calls itself in any ordinary way (by name, through ``self``, a
    closure, ``getattr`` with a constant name) is on such a cycle; a helper such as
    ``IsWinning(board)`` that names no function of the search is not, and is not
    instrumented at all (it is called at every node).  Counts are taken on these
    codes only, on every Python.
    """
    named = {}
    for code in codes:
        if countable(code):
            named.setdefault(code.co_name, []).append(code)
    edges = []
    for code in codes:
        if not countable(code):
            continue
        for name in _referenced(code):
            edges += [(code, target) for target in named.get(name, ())]
        edges += [(code, inner) for inner in code.co_consts
                  if isinstance(inner, types.CodeType) and countable(inner)]
    return frozenset(cyclic(edges))


def cyclic(edges):
    """Nodes that lie on a cycle of the directed graph ``edges`` (Tarjan, iterative)."""
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    search = _Tarjan(graph)
    for root in graph:
        if root not in search.index:
            search.visit(root)
    return search.result


_NONE = object()


class _Tarjan:
    """Tarjan's strongly connected components of ``graph`` ({node: successors}), without
    recursion; ``result`` holds the nodes of every component that is a cycle."""

    def __init__(self, graph):
        self.graph = graph
        self.index, self.low, self.stack, self.on_stack, self.result = {}, {}, [], set(), set()

    def visit(self, root):
        """Every component reachable from ``root`` (not yet visited)."""
        work = [self._enter(root)]
        while work:
            node, children = work[-1]
            child = self._next_unvisited(node, children)
            if child is not _NONE:
                work.append(self._enter(child))
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                self.low[parent] = min(self.low[parent], self.low[node])
            if self.low[node] == self.index[node]:
                self._close(node)

    def _enter(self, node):
        self.index[node] = self.low[node] = len(self.index)
        self.stack.append(node)
        self.on_stack.add(node)
        return node, iter(self.graph[node])

    def _next_unvisited(self, node, children):
        for child in children:
            if child not in self.index:
                return child
            if child in self.on_stack:
                self.low[node] = min(self.low[node], self.index[child])
        return _NONE

    def _close(self, node):
        """Pop the component whose root is ``node``; keep it when it is a cycle."""
        component = []
        while True:
            member = self.stack.pop()
            self.on_stack.discard(member)
            component.append(member)
            if member == node:
                break
        if len(component) > 1 or node in self.graph[node]:
            self.result.update(component)


class SearchCounter:
    """Counts the calls of the submission's recursive functions during one search.

    ``codes`` are the submission's code objects (:func:`submission_codes`);
    only those that could be recursive (:func:`candidates`, or ``watched`` when
    the caller found them already) are instrumented,
    and of those, the ones called more than once during the search are its
    recursive functions, whose calls are the count -- the same rule on every
    Python.  After the ``with`` block, :meth:`report` gives the counts and
    whether the instrument was still in place at the end (``intact``).
    """

    def __init__(self, codes, watched=None):
        self.codes = candidates(codes) if watched is None else watched
        self.intact = True
        self._impl = _Monitor(self) if MONITORING else _Profile(self)

    def __enter__(self):
        self._impl.start()
        self._touched = len(_touched)     # after the instrument's own start
        return self

    def __exit__(self, *exc):
        # A search that set a profile or trace function meant to blind a counter,
        # whether or not the counter on this Python rests on it.
        touched = len(_touched) != self._touched
        self.intact = self._impl.stop() and not touched
        return False

    def report(self):
        """``{'search_calls', 'all_calls', 'recursive', 'intact'}`` for the finished search."""
        calls = self._impl.result()
        recursive = {code for code, n in calls.items() if n > 1}
        return {
            'search_calls': sum(calls[code] for code in recursive),
            'all_calls': sum(calls.values()),
            'recursive': sorted({code.co_name for code in recursive})[:20],
            'intact': self.intact,
        }


class _Profile:
    """Python 3.9-3.11: cProfile's call counts (a profile hook written in C, for the
    thread that runs the search)."""

    def __init__(self, counter):
        self.counter = counter
        self.profiler = cProfile.Profile(builtins=False)

    def start(self):
        self.profiler.enable()

    def stop(self):
        intact = sys.getprofile() is self.profiler
        self.profiler.disable()
        return intact

    def result(self):
        watched = self.counter.codes
        return {entry.code: entry.callcount for entry in self.profiler.getstats()
                if entry.code in watched}


class _Monitor:
    """Python 3.12+: ``sys.monitoring``'s ``PY_START``, local to the watched code
    objects, counted for the thread that runs the search."""

    def __init__(self, counter):
        self.counter = counter
        self.calls = {}
        self.tool = _tool[0] if _tool else None
        self.callback = None

    def start(self):
        if self.tool is None:
            self.counter.intact = False
            return
        monitoring, events = sys.monitoring, sys.monitoring.events
        calls = self.calls = collections.defaultdict(int)

        def started(code, offset, _ident=_get_ident, _thread=_get_ident(), _calls=calls):
            if _ident() == _thread:
                _calls[code] += 1

        self.callback = started
        monitoring.register_callback(self.tool, events.PY_START, started)
        for code in self.counter.codes:
            monitoring.set_local_events(self.tool, code, events.PY_START)

    def stop(self):
        if self.tool is None:
            return False
        monitoring, events = sys.monitoring, sys.monitoring.events
        try:
            intact = monitoring.get_tool(self.tool) == TOOL_NAME
            intact = monitoring.register_callback(self.tool, events.PY_START, None) \
                is self.callback and intact
            intact = intact and all(monitoring.get_local_events(self.tool, code) ==
                                    events.PY_START for code in self.counter.codes)
            for code in self.counter.codes:
                monitoring.set_local_events(self.tool, code, 0)
        except ValueError:      # the tool id was freed by the submission
            return False
        return intact

    def result(self):
        return dict(self.calls)
