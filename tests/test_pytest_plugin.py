"""The pytest plug-in, run as students run it: pytest in a subprocess.

Each run loads the plug-in explicitly with plug-in autoloading off, so other
installed plug-ins cannot change the outcome; one test checks that the
installed package declares the ``pytest11`` entry point that loads it for
real users.
"""
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import pytest

from gradertest import ROOT, quick_course, without_long_eightpuzzle_waits

CONFIG = ROOT / 'grading.yaml'
CHECKS = ['values', 'moves', 'robustness', 'timeouts', 'pruning', 'terminal']

SPY = '''
import json, sys
def pytest_sessionfinish(session):
    with open('modules.json', 'w') as f:         # what the pytest process imported
        json.dump(sorted(sys.modules), f)
'''


def pytest_run(cwd, *args, env=None):
    """``(completed process, seconds)`` of pytest with the grader plug-in loaded."""
    environment = {k: v for k, v in os.environ.items() if k != 'GRADER_CONFIG'}
    environment.update(PYTEST_DISABLE_PLUGIN_AUTOLOAD='1', NO_COLOR='1', PYTHONPATH=str(cwd),
                       **(env or {}))
    started = time.monotonic()
    done = subprocess.run([sys.executable, '-m', 'pytest', '-p', 'grader.pytest_plugin',
                           '-p', 'spy', '-p', 'no:cacheprovider', *args],
                          cwd=cwd, env=environment, capture_output=True, text=True, timeout=300)
    return done, time.monotonic() - started


@pytest.fixture
def workdir(tmp_path):
    (tmp_path / 'spy.py').write_text(SPY)
    return tmp_path


def submission(workdir, source):
    folder = workdir / 'submission'
    folder.mkdir()
    shutil.copy(source, folder / 'tictactoe.py')
    return folder


def junit_outcomes(path):
    outcomes = {}
    for case in ET.parse(path).getroot().iter('testcase'):
        kinds = [child.tag for child in case if child.tag in ('failure', 'error', 'skipped')]
        outcomes[case.get('name')] = kinds[0] if kinds else 'passed'
    return outcomes


def test_the_entry_point_loads_the_plugin():
    points = [e for e in importlib.metadata.entry_points(group='pytest11') if e.name == 'grader']
    assert points and points[0].value == 'grader.pytest_plugin', \
        'reinstall the package (pip install -e .) to register the pytest11 entry point'


def test_reference_passes_every_check(workdir):
    folder = submission(workdir, ROOT / 'reference' / 'tictactoe.py')
    done, seconds = pytest_run(workdir, f'--grader-submission={folder}',
                               f'--grader-config={CONFIG}', '--junitxml=report.xml', '-v')
    assert done.returncode == 0, done.stdout + done.stderr
    assert junit_outcomes(workdir / 'report.xml') == {c: 'passed' for c in CHECKS}
    assert 'submission/tictactoe.py::values PASSED' in done.stdout
    assert '6 passed' in done.stdout
    from grader import config
    policy = config.load(CONFIG)
    total = policy.assignments['oulu-exercise-1'].max_score
    assert 'grader: oulu-exercise-1' in done.stdout and f'Score: 2.50 / {total:.2f}' in done.stdout
    if policy.exercises['tictactoe'].hidden_fixtures:
        assert 'Public checks only; the official grade also checks hidden cases' in done.stdout
    print(f'pytest plug-in on the reference: {seconds:.2f} s')


def test_buggy_submission_fails_the_checks_it_loses(workdir):
    folder = submission(workdir, ROOT / 'examples' / 'bob' / 'tictactoe.py')
    done, _ = pytest_run(workdir, f'--grader-submission={folder}', f'--grader-config={CONFIG}',
                         '--junitxml=report.xml')
    assert done.returncode == 1, done.stdout + done.stderr
    outcomes = junit_outcomes(workdir / 'report.xml')
    assert outcomes == {'values': 'failure', 'moves': 'failure', 'robustness': 'failure',
                        'timeouts': 'failure', 'pruning': 'skipped', 'terminal': 'passed'}
    assert 'returned:' in done.stdout and 'expected:' in done.stdout   # the failure is drawn
    assert '4 failed, 1 passed, 1 xfailed' in done.stdout
    assert 'Score: 1.' in done.stdout
    values = ET.parse(workdir / 'report.xml').getroot().find(".//testcase[@name='values']")
    points = {p.get('name'): float(p.get('value')) for p in values.iter('property')}
    assert 0 < points['points'] < points['max_points'] == 1.0
    student_code = [m for m in json.loads((workdir / 'modules.json').read_text())
                    if m == 'tictactoe' or m.startswith('tictactoe.')]
    assert not student_code, 'student code was imported into the pytest process'


def test_keyword_selection_runs_only_the_selected_checks(workdir):
    folder = submission(workdir, ROOT / 'examples' / 'bob' / 'tictactoe.py')
    done, _ = pytest_run(workdir, f'--grader-submission={folder}', f'--grader-config={CONFIG}',
                         '-k', 'moves or terminal', '--timeout=120', '-p', 'timeout')
    assert '1 failed, 1 passed, 4 deselected' in done.stdout, done.stdout + done.stderr


def test_inside_a_submission_folder_no_option_is_needed(workdir):
    folder = submission(workdir, ROOT / 'reference' / 'tictactoe.py')
    (folder / 'spy.py').write_text(SPY)
    done, _ = pytest_run(folder, '-q', env={'GRADER_CONFIG': str(CONFIG)})
    assert done.returncode == 0 and '6 passed' in done.stdout, done.stdout + done.stderr


def test_elsewhere_the_plugin_does_nothing_and_imports_nothing(workdir):
    (workdir / 'test_plain.py').write_text('def test_plain():\n    assert True\n')
    done, _ = pytest_run(workdir, '-q', env={'GRADER_CONFIG': str(CONFIG)})
    assert done.returncode == 0 and '1 passed' in done.stdout, done.stdout + done.stderr
    modules = json.loads((workdir / 'modules.json').read_text())
    assert 'grader.pytest_plugin' in modules
    assert not [m for m in modules if m in ('grader.engine', 'grader.config', 'yaml',
                                            'jsonschema')]


def test_a_folder_without_exercise_files_is_a_usage_error(workdir):
    empty = workdir / 'nothing'
    empty.mkdir()
    done, _ = pytest_run(workdir, f'--grader-submission={empty}', f'--grader-config={CONFIG}')
    assert done.returncode == 4, done.stdout + done.stderr
    assert 'your submission is empty' in done.stderr


HANDOUT = {
    'tictactoe.py': ROOT / 'tests' / 'submissions' / 'tictactoe' / 'minimax_make_undo.py',
    'connect4.py': ROOT / 'tests' / 'submissions' / 'connect4' / 'alphabeta_make_unmake.py',
    'eightpuzzle.py': ROOT / 'tests' / 'submissions' / 'eightpuzzle' / 'handout_style.py',
    'src/citymap.py': ROOT / 'tests' / 'submissions' / 'travel' / 'astar_priorityqueue' / 'src'
                      / 'citymap.py',
}


def test_all_four_exercises_and_information_checks_are_never_failures(policy, workdir):
    """Each exercise of both assignments gets its items; a switched-off information check
    (connect four's plays_well) is skipped, a failed one xfailed: neither fails in JUnit."""
    folder = workdir / 'submission'
    for relative, source in HANDOUT.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, folder / relative)
    # Fewer cases (gradertest.quick_course): which items each exercise gets does not
    # depend on how many cases it has.  The handout's eight puzzle fails its information
    # checks (hard, unsolvable) under any limit: a smaller one gives the same outcome sooner.
    course = quick_course(policy, workdir / 'course', without_long_eightpuzzle_waits)
    done, _ = pytest_run(workdir, f'--grader-submission={folder}', f'--grader-config={course}',
                         '--junitxml=report.xml', '-rs')
    assert done.returncode == 0, done.stdout + done.stderr
    cases = {(c.get('classname').split('.')[-1], c.get('name')):
             [child.tag for child in c if child.tag in ('failure', 'error', 'skipped')]
             for c in ET.parse(workdir / 'report.xml').getroot().iter('testcase')}
    assert {exercise for exercise, _ in cases} == {'tictactoe', 'connect4', 'eightpuzzle',
                                                   'citymap'}
    assert not [case for case, kinds in cases.items() if 'failure' in kinds or 'error' in kinds]
    from grader import config
    policy = config.load(course)
    for exercise, name in cases:
        settings = policy.exercises['travel' if exercise == 'citymap' else exercise]
        if cases[(exercise, name)]:          # skipped or xfailed: only information checks
            assert settings.points(name) == 0, (exercise, name)
    assert cases[('connect4', 'plays_well')] == ['skipped']
    assert 'plays_well: not run' in done.stdout
    # failed information checks: xfailed (JUnit's "skipped")
    assert cases[('eightpuzzle', 'hard')] == cases[('eightpuzzle', 'unsolvable')] == ['skipped']
    assert 'grader: oulu-exercise-1' in done.stdout and 'grader: routeplanner' in done.stdout


def test_a_quick_self_check_skips_the_long_information_calls_and_full_runs_them(workdir):
    """As ``grader check``: the eight puzzle's hard and unsolvable starts (information only,
    longer than the self-check's cap under the course's limits) are skipped, saying how to run
    them; ``--grader-full`` runs them, cut short at the cap (xfailed: information only)."""
    folder = workdir / 'submission'
    folder.mkdir()
    shutil.copy(HANDOUT['eightpuzzle.py'], folder / 'eightpuzzle.py')
    reasons = {}
    for options in ((), ('--grader-full',)):
        done, _ = pytest_run(workdir, f'--grader-submission={folder}', f'--grader-config={CONFIG}',
                             '-rsx', '-k', 'hard or unsolvable', *options)
        assert done.returncode == 0, done.stdout + done.stderr
        reasons[options] = done.stdout
    assert 'hard: information only, not run in a quick self-check (--grader-full runs it)' \
        in reasons[()] and 'unsolvable: information only, not run' in reasons[()], reasons[()]
    assert '2 skipped' in reasons[()]
    assert 'not run in a quick' not in reasons[('--grader-full',)]
    assert 'information only (no points): ' in reasons[('--grader-full',)]
    assert '2 xfailed' in reasons[('--grader-full',)], reasons[('--grader-full',)]
