"""Counting search calls of student code (child side, stdlib only).

A search's nodes are the calls of its *recursive* functions: the functions of
the student's files that take part in a cycle of the call graph (``Minimax``
calling itself, ``max_value`` and ``min_value`` calling each other, a
comprehension inside the search that calls it again).  Small helpers that a
search calls at every node (``GameOver(board)``, ``EmptyCells(board)``, a
list comprehension) are not part of any cycle and are not counted, so the
count does not depend on how a student splits the work into functions.

:class:`SearchCounter` records caller -> callee edges with ``cProfile``
(generator resumptions are not counted as calls) and, after the call, finds
the strongly connected components of that graph.
"""
import cProfile
import sys
import types

from grader.sandbox.instrument import nested_codes

_getprofile = sys.getprofile
_RESUMABLE = 0x20 | 0x80 | 0x200
"""``inspect.CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR`` (code flags fixed by
CPython), spelt out: importing :mod:`inspect` costs every child about 7 ms."""


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
    """Counts calls of the student's recursive functions during one search.

    The call graph comes from ``cProfile`` (a profile hook written in C, with
    built-in functions left out), which costs about a third of a Python-level
    trace hook; nodes and edges are code objects, so wrappers between two
    student functions appear as nodes of their own and cycles through them
    are cycles of the student's functions.
    """

    def __init__(self, files, excluded_codes=()):
        self.files = frozenset(files)
        self.excluded = frozenset(nested_codes(excluded_codes))
        self.profiler = cProfile.Profile(builtins=False)
        self.installed_ok = True

    def __enter__(self):
        self.profiler.enable()
        return self

    def __exit__(self, *exc):
        self.installed_ok = _getprofile() is self.profiler
        self.profiler.disable()
        return False

    def _student(self, code):
        return (isinstance(code, types.CodeType) and code.co_filename in self.files
                and code not in self.excluded and not code.co_flags & _RESUMABLE)

    def report(self):
        """``{'search_calls', 'all_calls', 'recursive'}`` for the finished search."""
        stats = self.profiler.getstats()
        calls, edges = {}, []
        for entry in stats:
            if self._student(entry.code):
                calls[entry.code] = entry.callcount
            for sub in entry.calls or ():
                if isinstance(entry.code, types.CodeType) and isinstance(sub.code, types.CodeType):
                    edges.append((entry.code, sub.code))
        recursive = {code for code in cyclic(edges) if code in calls}
        return {
            'search_calls': sum(n for code, n in calls.items() if code in recursive),
            'all_calls': sum(calls.values()),
            'recursive': sorted(code.co_name for code in recursive),
        }
