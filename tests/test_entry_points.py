"""No student file is imported, executed or read as configuration outside the sandbox,
whatever the entry point.

Every hostile file here only writes a marker into a folder the test owns
(``MARKS``); each test asserts that no marker appears and that the verdict
is the one the submission's code deserves, as ``grader grade`` gives it with
the course's own policy.
"""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from gradertest import ROOT

CONFIG = ROOT / 'grading.yaml'
BIN = os.path.dirname(sys.executable)

WEAK = '''
def Minimax(board, maximizing, player):
    """Always the bottom-right cell, always a win: right only by accident."""
    return 1, 8
'''

THIRD_PARTY = ('yaml', 'jsonschema', 'psutil', 'pytest', '_pytest', 'pluggy',
               'referencing', 'rpds', 'attr', 'attrs', 'tqdm', 'iniconfig', 'packaging',
               'pytest_timeout', 'seccomp', 'pyseccomp', 'grader_evil')
STDLIB = tuple(getattr(sys, 'stdlib_module_names', ())) or (
    'argparse', 'json', 'signal', 'threading', 'subprocess', 'tempfile', 'shutil', 'random',
    'hashlib', 'dataclasses', 'enum', 'typing', 'textwrap', 'importlib', 'statistics',
    'concurrent', 'select', 'selectors', 'socket', 'glob', 'fnmatch', 'copy', 'weakref',
    'contextlib', 'functools', 'secrets', 'sqlite3', 'csv', 'zipfile', 'platform', 'ctypes')


@pytest.fixture
def marks(tmp_path):
    folder = tmp_path / 'marks'
    folder.mkdir()
    return folder


def payload(marks, name):
    return f'open({str(marks / name)!r}, "w").close()\n'


def left(marks):
    return sorted(os.listdir(marks))


def submission(tmp_path, source=WEAK):
    folder = tmp_path / 'submission'
    folder.mkdir(parents=True)
    (folder / 'tictactoe.py').write_text(source)
    return folder


def official_score(folder):
    """What `grader grade` gives with the course's policy, from a neutral folder."""
    out = folder.parent / 'official.json'
    done = subprocess.run([os.path.join(BIN, 'grader'), '--config', str(CONFIG), 'check',
                           str(folder), '--json', str(out), '-q'],
                          cwd='/', capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(out.read_text())['score']


@pytest.fixture(scope='module')
def weak_score(tmp_path_factory):
    """:func:`official_score` of :data:`WEAK` alone in its folder: what the code itself
    deserves, the same for every clean copy of it (``check`` draws no position)."""
    return official_score(submission(tmp_path_factory.mktemp('weak')))


def shadowing_modules(folder, marks):
    """A module named like every standard and third-party module, each leaving a mark."""
    for name in set(STDLIB) | set(THIRD_PARTY):
        if name not in ('__future__', '__main__'):
            (folder / f'{name}.py').write_text(payload(marks, name))
    for name in ('sitecustomize', 'usercustomize'):
        (folder / f'{name}.py').write_text(payload(marks, name))


# -- python -m grader ----------------------------------------------------------------------
def test_python_m_grader_inside_a_submission_imports_none_of_its_files(tmp_path, marks,
                                                                      weak_score):
    folder = submission(tmp_path)
    shadowing_modules(folder, marks)
    env = {k: v for k, v in os.environ.items() if k not in ('PYTHONPATH', 'GRADER_CONFIG')}
    done = subprocess.run([sys.executable, '-m', 'grader', '--config', str(CONFIG), 'check', '.',
                           '--json', str(tmp_path / 'r.json'), '-q'],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    assert left(marks) == [], 'student files ran in the grader: ' + ', '.join(left(marks))
    assert done.returncode in (0, 1), done.stderr
    # the verdict of the code itself, not of the decoys
    assert json.loads((tmp_path / 'r.json').read_text())['score'] == weak_score


# -- the folder's own grading.yaml -------------------------------------------------------
def forged_policy(folder):
    """The course's policy, but with fixtures where (1, 8) is every right answer (and no
    position measures pruning, so no search is asked for behind the answers)."""
    import yaml
    fixtures = yaml.safe_load((ROOT / 'fixtures' / 'tictactoe.yaml').read_text())
    for case in fixtures['cases']:
        case['expected'].update(value=1, best_moves=[8])
        case['tags'] = [tag for tag in case['tags'] if tag != 'pruning']
    (folder / 'forged.yaml').write_text(yaml.safe_dump(fixtures, sort_keys=False))
    text = CONFIG.read_text().replace('fixtures: [fixtures/tictactoe.yaml]',
                                      'fixtures: [forged.yaml]')
    text = text.replace('fixtures/', f'{ROOT}/fixtures/').replace('hidden/', f'{ROOT}/hidden/')
    text = text.replace('reference: reference', f'reference: {ROOT}/reference')
    text = text.replace('generated: {count: 8, killers: 2}', 'generated: {count: 0}', 1)
    (folder / 'grading.yaml').write_text(text)


@pytest.mark.parametrize('command', ['check', 'grade'])
def test_the_graded_folders_own_grading_yaml_is_ignored_and_said_so(tmp_path, command):
    folder = submission(tmp_path)
    forged_policy(folder)
    honest = official_score(folder)
    env = {k: v for k, v in os.environ.items() if k != 'GRADER_CONFIG'}
    forged = subprocess.run([os.path.join(BIN, 'grader'), '--config', 'grading.yaml', command, '.',
                             '--json', str(tmp_path / 'forged.json'), '-q'],
                            cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    assert forged.returncode in (0, 1), forged.stderr
    assert json.loads((tmp_path / 'forged.json').read_text())['score'] > honest   # the attack
    done = subprocess.run([os.path.join(BIN, 'grader'), command, '.', '--json',
                           str(tmp_path / 'r.json')],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 1), done.stderr
    assert json.loads((tmp_path / 'r.json').read_text())['score'] == honest
    notes = [line for line in done.stderr.splitlines() if 'grading.yaml is ignored' in line]
    assert len(notes) == 1, done.stderr


def test_discovery_passes_over_the_graded_folder_and_everything_in_it(tmp_path):
    from grader import config
    course = tmp_path / 'course'
    inner = course / 'class' / 'alice' / 'src'
    inner.mkdir(parents=True)
    (course / 'grading.yaml').write_text('version: 1\n')
    (course / 'class' / 'alice' / 'grading.yaml').write_text('version: 1\n')
    (inner / 'grading.yaml').write_text('version: 1\n')
    alice = course / 'class' / 'alice'
    env = os.environ.pop('GRADER_CONFIG', None)
    try:
        assert config.find(start=inner, graded=alice) == course / 'grading.yaml'
        assert config.find(start=inner) == inner / 'grading.yaml'
        assert config.find(start=course / 'class', graded=alice) == course / 'grading.yaml'
        assert config.find('explicit.yaml', start=inner, graded=alice) == \
            __import__('pathlib').Path('explicit.yaml')
    finally:
        if env is not None:
            os.environ['GRADER_CONFIG'] = env
    assert config.ignored(alice, course / 'grading.yaml') == alice / 'grading.yaml'
    assert config.ignored(alice, alice / 'grading.yaml') is None


# -- the pytest route --------------------------------------------------------------------
def hostile_pytest_files(folder, marks):
    """Every way a folder can hand pytest code or configuration."""
    (folder / 'conftest.py').write_text(payload(marks, 'conftest') + textwrap.dedent('''
        def pytest_runtest_makereport(item, call):
            pass
        '''))
    (folder / 'evil_plugin.py').write_text(payload(marks, 'evil_plugin'))
    (folder / 'test_evil.py').write_text(payload(marks, 'test_evil') + 'def test_x():\n    pass\n')
    (folder / 'tictactoe_test.py').write_text(payload(marks, 'tictactoe_test'))
    (folder / 'pytest.ini').write_text('[pytest]\naddopts = -p evil_plugin\npythonpath = .\n'
                                       'python_files = *.py\n')
    (folder / 'pyproject.toml').write_text('[tool.pytest.ini_options]\n'
                                           'addopts = "-p evil_plugin"\n')
    (folder / 'tox.ini').write_text('[pytest]\naddopts = -p evil_plugin\n')
    (folder / 'setup.cfg').write_text('[tool:pytest]\naddopts = -p evil_plugin\n')
    deeper = folder / 'src' / 'more'
    deeper.mkdir(parents=True)
    (deeper / 'conftest.py').write_text(payload(marks, 'src_conftest'))
    (deeper / 'test_more.py').write_text(payload(marks, 'test_more') + 'def test_y():\n    pass\n')
    shadowing_modules(folder, marks)


def run_pytest(cwd, *args, module=True):
    env = {k: v for k, v in os.environ.items() if k not in ('PYTHONPATH', 'GRADER_CONFIG')}
    env.update(NO_COLOR='1', GRADER_CONFIG=str(CONFIG))
    command = [sys.executable, '-m', 'pytest'] if module else [os.path.join(BIN, 'pytest')]
    return subprocess.run([*command, '-p', 'no:cacheprovider', *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def pytest_score(done):
    lines = [line for line in done.stdout.splitlines() if line.startswith('Score: ')]
    assert lines, done.stdout + done.stderr
    return float(lines[0].split()[1])


def test_pytest_from_another_folder_collects_nothing_of_the_submission(tmp_path, marks,
                                                                      weak_score):
    folder = submission(tmp_path)
    hostile_pytest_files(folder, marks)
    workdir = tmp_path / 'instructor'
    workdir.mkdir()
    done = run_pytest(workdir, f'--grader-submission={folder}', '-rA')
    assert left(marks) == [], 'student files ran in pytest: ' + ', '.join(left(marks))
    assert 'FAILED ../submission/tictactoe.py::values' in done.stdout, done.stdout
    assert 'test_evil' not in done.stdout and 'test_more' not in done.stdout
    assert pytest_score(done) == round(weak_score, 2) < 2.5


def without_ini_files(folder):
    for name in ('pytest.ini', 'pyproject.toml', 'tox.ini', 'setup.cfg'):
        os.remove(folder / name)


def test_the_submission_as_an_argument_too_is_never_collected(tmp_path, marks, weak_score):
    """pytest collects its arguments, but not the submission folder among them."""
    folder = submission(tmp_path)
    hostile_pytest_files(folder, marks)
    without_ini_files(folder)
    workdir = tmp_path / 'instructor'
    (workdir / 'tests').mkdir(parents=True)
    (workdir / 'tests' / 'test_own.py').write_text('def test_own():\n    pass\n')
    done = run_pytest(workdir, f'--grader-submission={folder}', str(folder), 'tests', '-rA')
    assert left(marks) == [], 'student files ran in pytest: ' + ', '.join(left(marks))
    assert 'PASSED tests/test_own.py::test_own' in done.stdout, done.stdout
    assert 'test_evil' not in done.stdout and 'test_more' not in done.stdout
    assert pytest_score(done) == round(weak_score, 2)


def test_grading_is_refused_when_pytest_read_the_submissions_configuration(tmp_path):
    folder = submission(tmp_path)
    (folder / 'pytest.ini').write_text('[pytest]\n')
    workdir = tmp_path / 'instructor'
    workdir.mkdir()
    done = run_pytest(workdir, f'--grader-submission={folder}', str(folder))
    assert done.returncode == 4, done.stdout + done.stderr
    assert "the submission's own configuration" in done.stderr
    assert 'Score' not in done.stdout


@pytest.mark.parametrize('module', [False, True], ids=['pytest', 'python-m-pytest'])
def test_pytest_inside_the_submission_folder_loads_no_conftest_and_no_module_of_it(
        tmp_path, marks, module, weak_score):
    """Neither the folder's conftest.py files, nor its tests, nor modules named like the
    grader's imports run.  Out of any plug-in's reach, and left out here: the ini files
    pytest reads before plug-ins load, and, as ``python -m pytest`` puts the folder first
    on sys.path, the modules pytest imports before this plug-in (its own, the standard
    library's, other plug-ins')."""
    folder = submission(tmp_path)
    hostile_pytest_files(folder, marks)
    without_ini_files(folder)
    if module:
        for name in {'pytest', '_pytest', 'pluggy', 'iniconfig', 'packaging',
                     'pytest_timeout'} | set(STDLIB):
            if (folder / f'{name}.py').exists():
                os.remove(folder / f'{name}.py')
    done = run_pytest(folder, '--grader-submission=.', module=module)
    assert left(marks) == [], 'student files ran in pytest: ' + ', '.join(left(marks))
    assert pytest_score(done) == round(weak_score, 2)


def test_pytest_inside_a_plain_submission_folder_activates_without_loading_its_modules(
        tmp_path, marks):
    folder = submission(tmp_path, (ROOT / 'reference' / 'tictactoe.py').read_text())
    for name in ('yaml', 'jsonschema', 'psutil', 'grader_evil'):
        (folder / f'{name}.py').write_text(payload(marks, name))
    done = run_pytest(folder, '-q')
    assert left(marks) == [], 'student files ran in pytest: ' + ', '.join(left(marks))
    assert '6 passed' in done.stdout, done.stdout + done.stderr
