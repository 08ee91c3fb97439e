"""Which part of the code base may import which: every import runs downwards.

Read from the source with :mod:`ast` (nothing is imported), so a new import that runs
upwards fails here before it can make a cycle or tie the toolkit to the plug-ins above it:

- ``grader/contract.py``, the data the plug-ins and the judges' toolkit share, imports
  nothing of the grader;
- ``grader/judging/`` (the judges' toolkit) imports only itself and the contract, never
  the plug-ins (``grader.exercises``) nor anything that drives them;
- ``reference/`` (the answer key) imports nothing of the grader but the fixture writer
  (``grader.fixtures``), so a mistake in the judges' rules is never made twice.
"""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def is_module(name):
    """Whether the dotted ``name`` is a module or package of this repository."""
    path = ROOT.joinpath(*name.split('.'))
    return path.with_suffix('.py').is_file() or (path / '__init__.py').is_file()


def imported_modules(path):
    """The absolute module names ``path`` imports, wherever the import statement stands
    (``from a.b import c`` gives ``a.b``, and ``a.b.c`` too when that is a module)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(name for name in (f'{node.module}.{alias.name}' for alias in node.names)
                         if is_module(name))
    return names


def within(name, package):
    return name == package or name.startswith(package + '.')


def grader_imports(folder):
    """``{file: the grader modules it imports}`` for every Python file under ``folder``."""
    top = ROOT / folder
    paths = [top] if top.is_file() else sorted(top.rglob('*.py'))
    return {path.relative_to(ROOT).as_posix():
            sorted(name for name in imported_modules(path) if within(name, 'grader'))
            for path in paths}


def test_the_reader_sees_imports_in_every_form(tmp_path):
    """The check can fail: each form of import statement is read."""
    module = tmp_path / 'm.py'
    module.write_text('import grader.engine\nfrom grader.exercises import base\n'
                      'from grader.contract import Outcome\n'
                      'def f():\n    from grader import fixtures\n')
    assert imported_modules(module) == {'grader.engine', 'grader.exercises',
                                        'grader.exercises.base', 'grader.contract',
                                        'grader', 'grader.fixtures'}


def test_the_contract_imports_nothing_of_the_grader():
    assert grader_imports('grader/contract.py') == {'grader/contract.py': []}


@pytest.mark.parametrize('path', sorted(grader_imports('grader/judging')))
def test_the_judges_toolkit_imports_only_itself_and_the_contract(path):
    upward = [name for name in grader_imports('grader/judging')[path]
              if not (within(name, 'grader.judging') or name in ('grader', 'grader.contract'))]
    assert upward == [], f'{path} imports {upward}, above the toolkit'


def test_the_plugins_contract_builds_on_the_shared_data():
    """``grader.exercises.base`` takes the shared data from below, not the other way."""
    assert 'grader.contract' in grader_imports('grader/exercises/base.py')[
        'grader/exercises/base.py']
@pytest.mark.parametrize('path', sorted(grader_imports('reference')))
def test_the_answer_key_imports_nothing_of_the_grader_but_the_fixture_writer(path):
    imported = [name for name in grader_imports('reference')[path]
                if name not in ('grader', 'grader.fixtures')]
    assert imported == [], f'{path} imports {imported}: the answer key must stand on its own'


def module_graph():
    """``{module: the grader modules it imports}`` over the whole package (a package's
    import is its ``__init__``'s)."""
    graph = {}
    for path, names in grader_imports('grader').items():
        module = path[:-3].replace('/', '.')
        module = module[:-len('.__init__')] if module.endswith('.__init__') else module
        graph[module] = {name for name in names if is_module(name) and name != module}
    return graph


def cycles(graph):
    """Every strongly connected group of two or more modules (Tarjan's algorithm)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in graph.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({'a': {'b'}, 'b': {'c'}, 'c': {'a'}, 'd': {'a'}}) == [['a', 'b', 'c']]


def test_no_two_modules_of_the_grader_import_each_other():
    """Not even through an import inside a function: the cache and the sweep of leftovers
    once did (the cache's folder now lives in grader/cachefolder.py)."""
    graph = module_graph()
    assert 'grader.sandbox.leftovers' in graph['grader.doccache']
    assert cycles(graph) == []
