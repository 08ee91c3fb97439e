"""Shared fixtures: the repository policy, one calibrated run, submission folders."""
import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

# pytest keeps the test modules it rewrote for their asserts in tests/__pycache__, unless
# bytecode is not written: where the environment sets PYTHONDONTWRITEBYTECODE, each worker
# rewrote the suite's modules again at every start (3.2-3.5 s of collection, 1.0 s with
# them kept).  Set for this process's collection only (pytest_collection_finish puts the
# environment's setting back): the grader processes tests start keep it, and the sandboxes
# never write bytecode (python -B).
_WRITES_BYTECODE = sys.dont_write_bytecode
sys.dont_write_bytecode = False

collect_ignore_glob = ['submissions/*', 'bugs/*', 'copies/*', 'adversarial/submissions/*',
                       'adversarial/forging/*', 'plugin_course/*']
"""Example submissions and course files, never test modules, whatever their names (three
examples end in ``_test.py``)."""


def pytest_collection_finish(session):
    sys.dont_write_bytecode = _WRITES_BYTECODE

from gradertest import MODULES_WITH, ROOT, SHARED_BY_MODULE, SHARED_WITH, SUBMISSIONS  # noqa: E402,F401  (re-exported for old imports)

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# The document cache (grader/doccache.py) of this test session lives in a
# temporary folder, never in ~/.cache/grader; set here, before any test or
# fixture loads a file, and inherited by the grader processes tests start.
# GRADER_CACHE_DIR= (empty) runs the tests with the cache off.
if os.environ.get('GRADER_CACHE_DIR') != '':
    os.environ['GRADER_CACHE_DIR'] = tempfile.mkdtemp(prefix='grader-test-cache-')
    atexit.register(shutil.rmtree, os.environ['GRADER_CACHE_DIR'], ignore_errors=True)


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
