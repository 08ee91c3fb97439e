"""The suite's own layout: what keeps ``make test`` (two workers) from doing work twice."""
import ast
from pathlib import Path

from gradertest import MODULES_WITH, SHARED_BY_MODULE, SHARED_WITH

TESTS = Path(__file__).resolve().parent


def module_scoped(path):
    """Whether the test module at ``path`` defines a fixture with ``scope='module'``."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.keyword) and node.arg == 'scope' and \
                isinstance(node.value, ast.Constant) and node.value.value == 'module':
            return True
    return False


def test_every_module_with_a_module_scoped_fixture_runs_on_one_worker():
    """Under ``--dist loadgroup`` a module's tests are spread over the workers, and its
    module-scoped fixture (a course built, a class graded) is then made on each: the
    modules that have one are grouped (gradertest.SHARED_BY_MODULE)."""
    modules = {path.name for path in TESTS.rglob('test_*.py') if module_scoped(path)}
    assert 'test_canary.py' in modules                  # the search finds them
    assert modules <= set(SHARED_BY_MODULE), sorted(modules - set(SHARED_BY_MODULE))
    assert set(SHARED_BY_MODULE) <= {path.name for path in TESTS.rglob('test_*.py')}
    groups = {*SHARED_WITH.values(), *MODULES_WITH.values()}
    assert {f'{group}.py' for group in groups} <= set(SHARED_BY_MODULE)
    assert set(MODULES_WITH) <= set(SHARED_BY_MODULE)
