"""Counting the calls of a student's search (case process side, stdlib only).

A search's *nodes* are the calls of its recursive functions: the named
functions of the submission (``def``, not lambdas, comprehensions or
generators) that are entered again while a call of theirs is still running
(``Minimax`` calling itself, ``max_value`` and ``min_value`` calling each
other).  Helpers called at every node (``IsWinning(board)``) are never
re-entered and are not counted, so the count does not depend on how a
student splits the work into functions.

The submission's functions are the code objects reachable from its modules'
namespaces (functions, methods, and the functions defined inside them),
whatever file name a code object claims.  Only calls made on the thread that called the entry point are
counted: a search run on another thread is *not countable*, and the judge
says so rather than reading its zero as pruning.

Two instruments give the same counts:

- Python 3.12 and later: ``sys.monitoring`` (PEP 669).  The tool id is
  claimed in the case process before the student module runs
  (:func:`claim`), so a submission cannot take it first; events are local
  to the submission's code objects.
- Python 3.9 to 3.11: ``cProfile``'s call graph (a profile hook written in
  C): the functions on a cycle of the graph are the recursive ones.

Either way the count is a claim made in the submission's own process: the
judge confirms it with the CPU time the parent measures.
"""
import sys
import types

if sys.version_info < (3, 12):
    import cProfile     # here, in the runner: a case process would spend a millisecond on it

try:
    from _thread import get_ident as _get_ident
except ImportError:  # pragma: no cover - every CPython has _thread
    from threading import get_ident as _get_ident

MONITORING = sys.version_info >= (3, 12)
TOOL_NAME = 'grader-counter'
_RESUMABLE = 0x20 | 0x80 | 0x200
"""``CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR``, spelt out (importing
:mod:`inspect` costs a child about 7 ms)."""
_UNNAMED = frozenset({'<lambda>', '<listcomp>', '<dictcomp>', '<setcomp>', '<genexpr>',
                      '<module>'})
_tool = []


def claim():
    """Take the monitoring tool id before any student code runs (3.12+); False if taken."""
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


def cyclic(edges):
    """Nodes that lie on a cycle of the directed graph ``edges`` (Tarjan, iterative)."""
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index, low, stack, on_stack, result = {}, {}, [], set(), set()
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph[child])))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph[node]:
                    result.update(component)
    return result


class SearchCounter:
    """Counts the calls of the submission's recursive functions during one search.

    ``codes`` are the submission's code objects (:func:`submission_codes`);
    only they are counted, on every Python alike.  After the ``with``
    block, :meth:`report` gives the counts and whether the instrument was
    still in place at the end (``intact``).
    """

    def __init__(self, codes):
        self.codes = frozenset(c for c in codes if countable(c))
        self.intact = True
        self._impl = _Monitor(self) if MONITORING else _Profile(self)

    def __enter__(self):
        self._impl.start()
        return self

    def __exit__(self, *exc):
        self.intact = self._impl.stop()
        return False

    def report(self):
        """``{'search_calls', 'all_calls', 'recursive', 'intact'}`` for the finished search."""
        calls, recursive = self._impl.result()
        return {
            'search_calls': sum(n for code, n in calls.items() if code in recursive),
            'all_calls': sum(calls.values()),
            'recursive': sorted({code.co_name for code in recursive})[:20],
            'intact': self.intact,
        }


class _Profile:
    """Python 3.9-3.11: cProfile's call graph; recursive = on a cycle."""

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
        calls, edges = {}, []
        for entry in self.profiler.getstats():
            code = entry.code
            if not isinstance(code, types.CodeType):
                continue
            if code in watched:
                calls[code] = entry.callcount
            for sub in entry.calls or ():
                if isinstance(sub.code, types.CodeType):
                    edges.append((code, sub.code))
        return calls, {code for code in cyclic(edges) if code in calls}


class _Monitor:
    """Python 3.12+: ``sys.monitoring`` events local to the watched code objects.

    A code object is recursive when it starts while a call of its own is
    still running on the counted thread.
    """

    def __init__(self, counter):
        self.counter = counter
        self.calls, self.depth, self.recursive = {}, {}, set()
        self.tool = _tool[0] if _tool else None
        self.callbacks = {}

    def start(self):
        if self.tool is None:
            self.counter.intact = False
            return
        monitoring, events = sys.monitoring, sys.monitoring.events
        calls, depth, recursive, thread = self.calls, self.depth, self.recursive, _get_ident()

        def started(code, offset):
            if _get_ident() != thread:
                return
            level = depth.get(code, 0)
            if level:
                recursive.add(code)
            depth[code] = level + 1
            calls[code] = calls.get(code, 0) + 1

        def ended(code, offset, value):
            if _get_ident() == thread and depth.get(code):
                depth[code] -= 1

        self.callbacks = {events.PY_START: started, events.PY_RETURN: ended,
                          events.PY_UNWIND: ended}
        for event, callback in self.callbacks.items():
            monitoring.register_callback(self.tool, event, callback)
        self.local = events.PY_START | events.PY_RETURN
        self.codes = [c for c in self.counter.codes]
        for code in self.codes:
            monitoring.set_local_events(self.tool, code, self.local)
        monitoring.set_events(self.tool, events.PY_UNWIND)

    def stop(self):
        if self.tool is None:
            return False
        monitoring, events = sys.monitoring, sys.monitoring.events
        intact = monitoring.get_tool(self.tool) == TOOL_NAME
        try:
            for event, callback in self.callbacks.items():
                intact = monitoring.register_callback(self.tool, event, None) is callback and intact
            intact = intact and monitoring.get_events(self.tool) == events.PY_UNWIND
            intact = intact and all(monitoring.get_local_events(self.tool, code) == self.local
                                    for code in self.codes)
            monitoring.set_events(self.tool, 0)
            for code in self.codes:
                monitoring.set_local_events(self.tool, code, 0)
        except ValueError:      # the tool id was freed by the submission
            return False
        return intact

    def result(self):
        return dict(self.calls), set(self.recursive)
