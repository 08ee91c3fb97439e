"""Counting search calls of student code (child side, stdlib only).

A search's nodes are the calls of its *recursive* functions: the functions of
the student's files that take part in a cycle of the call graph (``Minimax``
calling itself, ``max_value`` and ``min_value`` calling each other, a
comprehension inside the search that calls it again).  Small helpers that a
search calls at every node (``GameOver(board)``, ``EmptyCells(board)``, a
list comprehension) are not part of any cycle and are not counted, so the
count does not depend on how a student splits the work into functions.

:class:`SearchCounter` records caller -> callee edges with a global trace
hook (``sys.settrace``; generator resumptions are not calls) and, after the
call, finds the strongly connected components of that graph.
"""
import inspect
import sys

from grader.sandbox.instrument import nested_codes

_settrace = sys.settrace
_gettrace = sys.gettrace
_RESUMABLE = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


def cyclic(edges):
    """Nodes that lie on a cycle of the directed graph ``edges`` (Tarjan)."""
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
    """Counts calls of the student's recursive functions during one search."""

    def __init__(self, files, excluded_codes=()):
        files = frozenset(files)
        excluded = frozenset(nested_codes(excluded_codes))
        edges = {}

        def hook(frame, event, arg):
            if event == 'call':
                code = frame.f_code
                if code.co_filename in files and code not in excluded \
                        and not code.co_flags & _RESUMABLE:
                    # The caller is the nearest student frame: wrappers (ours or
                    # the student's own decorators from other files) are skipped.
                    caller = frame.f_back
                    while caller is not None and caller.f_code.co_filename not in files:
                        caller = caller.f_back
                    key = (caller.f_code if caller is not None else None, code)
                    edges[key] = edges.get(key, 0) + 1
            return None

        def snapshot():
            return dict(edges)

        self._hook, self._snapshot = hook, snapshot
        self.installed_ok = True

    def __enter__(self):
        _settrace(self._hook)
        return self

    def __exit__(self, *exc):
        self.installed_ok = _gettrace() is self._hook
        _settrace(None)
        return False

    def report(self):
        """``{'search_calls', 'all_calls', 'recursive'}`` for the finished search."""
        edges = self._snapshot()
        calls = {}
        for (_, callee), n in edges.items():
            calls[callee] = calls.get(callee, 0) + n
        recursive = cyclic([pair for pair in edges if pair[0] is not None])
        return {
            'search_calls': sum(n for code, n in calls.items() if code in recursive),
            'all_calls': sum(calls.values()),
            'recursive': sorted(code.co_name for code in recursive),
        }
