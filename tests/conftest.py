"""Shared fixtures: the repository policy, one calibrated run, submission folders."""
import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from gradertest import ROOT, SUBMISSIONS  # noqa: E402,F401  (re-exported for old imports)

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# The document cache (grader/doccache.py) of this test session lives in a
# temporary folder, never in ~/.cache/grader; set here, before any test or
# fixture loads a file, and inherited by the grader processes tests start.
# GRADER_CACHE_DIR= (empty) runs the tests with the cache off.
if os.environ.get('GRADER_CACHE_DIR') != '':
    os.environ['GRADER_CACHE_DIR'] = tempfile.mkdtemp(prefix='grader-test-cache-')
    atexit.register(shutil.rmtree, os.environ['GRADER_CACHE_DIR'], ignore_errors=True)


SHARED_BY_MODULE = (
    'test_attacks.py', 'test_forging.py', 'test_batch_moodle.py', 'test_batch_run.py',
    'test_batch_safety.py', 'test_canary.py', 'test_chaos.py', 'test_eightpuzzle_generated.py',
    'test_entry_points.py', 'test_many_assignments.py', 'test_plugin_course.py',
    'test_eightpuzzle_judge.py', 'test_eightpuzzle_reference.py', 'test_gradescope.py',
    'test_travel_generated.py', 'test_travel_plugin.py', 'test_travel_reference.py',
    'test_writers.py')
"""Test modules with a module-scoped fixture (a class, a course or a baseline graded once)."""

SHARED_WITH = {
    'test_fixtures.py::test_expected_values_match_the_reference[eightpuzzle]':
        'test_eightpuzzle_reference'}
"""Single tests run in another module's group, on the worker of that module's tests.

The eight puzzle's oracle keeps its slow A* runs per process (``functools`` caches in
reference/oracles/eightpuzzle.py), and three tests work out the fixture file's expected
values: ``fixtures.verify`` here, the oracle writing the file and ``grader fixtures
--regenerate`` in test_eightpuzzle_reference.py.  Alone each takes about 9 s; in one
process the three take about 10.6 s (the first 9.2 s, the others 1.1 s and 0.25 s)."""

MODULES_WITH = {
    'test_eightpuzzle_judge.py': 'test_eightpuzzle_reference',
    'test_eightpuzzle_generated.py': 'test_eightpuzzle_reference'}
"""Whole modules run in another module's group: these three use the table of every eight
puzzle state's distance (reference/oracles/puzzle_table.py, a breadth-first search of
181,440 states, about 1.7 s, kept per process)."""


def pytest_itemcollected(item):
    """Under pytest-xdist (``make test``), each module of :data:`SHARED_BY_MODULE` runs on
    one worker (``--dist loadgroup``), so its shared grading is done once, not per worker;
    a test of :data:`SHARED_WITH`, or a module of :data:`MODULES_WITH`, joins the group it
    names.

    Marked as each test is collected: pytest-xdist reads the ``xdist_group`` marks in a
    ``pytest_collection_modifyitems`` hook of its own, which ran before this file's (so
    each such module's fixture was built on both workers)."""
    if not item.config.pluginmanager.hasplugin('xdist'):
        return
    group = SHARED_WITH.get(f'{item.path.name}::{item.name}') or MODULES_WITH.get(item.path.name)
    if group is None and item.path.name in SHARED_BY_MODULE:
        group = item.path.stem
    if group is not None:
        item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(scope='session')
def policy():
    from grader import config
    return config.load(ROOT / 'grading.yaml')


@pytest.fixture(scope='session')
def run(policy):
    """One calibrated run shared by the tests (calibration is per run, as in use)."""
    from grader import engine
    return engine.Run(policy)


def make_submission(tmp_path, exercise, variant_path, file_name=None):
    """A submission folder holding one variant, laid out as students hand it in."""
    folder = tmp_path / f'{exercise}-{variant_path.stem}'
    if variant_path.is_dir():
        shutil.copytree(variant_path, folder)
    else:
        folder.mkdir(parents=True)
        from grader import exercises
        name = file_name or exercises.get(exercise).files[0]
        shutil.copy(variant_path, folder / name)
    return folder


@pytest.fixture
def submission(tmp_path):
    def build(exercise, variant, file_name=None):
        return make_submission(tmp_path, exercise, Path(variant), file_name)
    return build


@pytest.fixture
def grade_one(run, policy):
    """Grade one exercise of a folder: its ExerciseResult."""
    from grader import engine

    def grade(folder, exercise):
        result = engine.grade(policy, folder, run=run, only=[exercise])
        return result.exercise(exercise)
    return grade
