"""One plain sentence for each plain mistake, the same on every route.

The sentences come from grader/submission.py; here they are read where students
and instructors meet them: ``grader check`` and ``grade``, a batch job, the pytest
plug-in (PrairieLearn's and Gradescope's are in their own test modules).  None of
these hand-ins reaches a sandbox, except the file Python cannot decode, which fails
its import there as Python fails it.
"""
import os
import shutil
import subprocess
import sys

import pytest

from grader import submission
from grader.batch import archives, worker
from grader.errors import UserError
from gradertest import ROOT, SUBMISSIONS

ALPHABETA = (SUBMISSIONS / 'tictactoe' / 'alphabeta_nested.py').read_bytes()
CONFIG = ROOT / 'grading.yaml'


def hand_in(folder, files):
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    return folder


def grader(*args, cwd=None):
    env = {k: v for k, v in os.environ.items() if k != 'GRADER_CONFIG'}
    command = [sys.executable, '-m', 'grader', '--config', str(CONFIG), *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=cwd, env=env)


MISTAKES = {
    'one folder down': ({'README.txt': b'my notes', 'exercise1/tictactoe.py': ALPHABETA},
                        'exercise1/tictactoe.py is one folder down: move it to the top of your '
                        'submission'),
    'misnamed': ({'TicTacToe.py': ALPHABETA},
                 'your submission has TicTacToe.py, but the file must be named tictactoe.py '
                 'exactly (lower case): rename it'),
    'empty': ({}, 'your submission is empty: hand in tictactoe.py, connect4.py or '
                  'eightpuzzle.py at its top (or under src/)'),
    'other files': ({'notes.txt': b'x', 'game.py': b'x = 1\n'},
                    'no tictactoe.py, connect4.py or eightpuzzle.py found at the top of your '
                    'submission or under src/ (it holds game.py, notes.txt): hand in the '
                    'file under that name'),
}


@pytest.mark.parametrize('mistake', MISTAKES)
def test_grade_and_a_batch_job_say_the_same_one_line(policy, run, tmp_path, mistake):
    files, sentence = MISTAKES[mistake]
    folder = hand_in(tmp_path / 'hand-in', files)
    done = grader('grade', folder, '--assignment', 'oulu-exercise-1')
    assert done.returncode == 2, done.stdout
    assert done.stderr == f'grader: error: {folder}: {sentence}\n'
    job = {'archive': archives.pack(files), 'assignment': 'oulu-exercise-1'}
    outcome = worker.grade(policy, run, job)
    assert (outcome['status'], outcome['reason']) == ('ungradable', sentence)


def test_a_missing_path_and_a_file_for_a_folder(tmp_path):
    missing = tmp_path / 'nope'
    done = grader('check', missing)
    assert (done.returncode, done.stderr) == (
        2, f'grader: error: {missing}: does not exist: give the folder that holds the '
           'submission\n')
    notes = hand_in(tmp_path / 'work', {'notes.txt': b'x'}) / 'notes.txt'
    done = grader('check', notes)
    assert done.returncode == 2
    assert done.stderr.startswith(f'grader: error: {notes}: is a file, not a folder: give the '
                                  'folder that holds the submission')


def test_an_exercise_file_given_is_taken_as_its_folder(policy, tmp_path):
    folder = hand_in(tmp_path / 'work', {'tictactoe.py': ALPHABETA, 'src/citymap.py': b''})
    assert submission.folder(folder / 'tictactoe.py', policy) == folder
    assert submission.folder(folder / 'src' / 'citymap.py', policy) == folder
    assert submission.folder(folder, policy) == folder
    with pytest.raises(UserError, match='is a file, not a folder'):
        submission.folder(hand_in(tmp_path / 'other', {'a.txt': b''}) / 'a.txt', policy)


def test_a_route_planner_one_folder_down_moves_its_src_folder(policy, tmp_path):
    folder = hand_in(tmp_path / 'repo', {'travel/src/citymap.py': b''})
    assert submission.absent(policy, folder, ['travel']) == (
        'travel/src/citymap.py is one folder down: move its folder travel/src/ to the top of '
        'your submission')


def test_an_unreadable_folder_is_named_in_one_line(tmp_path):
    folder = hand_in(tmp_path / 'work', {'tictactoe.py': ALPHABETA, 'data/x.txt': b''})
    submission.readable(folder)                    # all readable: nothing said
    if os.geteuid() == 0:
        pytest.skip('root reads every folder (the end-to-end test drops that power)')
    (folder / 'data').chmod(0)
    try:
        with pytest.raises(UserError, match=r'^.*: data cannot be read \(permission denied\)'):
            submission.readable(folder)
    finally:
        (folder / 'data').chmod(0o755)


def test_a_file_python_cannot_decode_fails_as_python_fails_it(tmp_path):
    source = b'# caf\xe9: a comment saved as Latin-1\n' + ALPHABETA
    folder = hand_in(tmp_path / 'latin', {'tictactoe.py': source})
    python = subprocess.run([sys.executable, str(folder / 'tictactoe.py')],
                            capture_output=True, text=True)
    assert python.returncode != 0 and 'SyntaxError' in python.stderr    # Python refuses it
    done = grader('check', folder, '--assignment', 'oulu-exercise-1')
    assert done.returncode == 0, done.stderr
    assert "error: tictactoe.py: syntax error at line 1: Non-UTF-8 code starting with '\\xe9'" \
        in done.stdout
    assert 'Score: 0.00 / 5.00' in done.stdout
    declared = hand_in(tmp_path / 'declared',
                       {'tictactoe.py': b'# -*- coding: latin-1 -*-\n' + source})
    done = grader('check', declared, '--assignment', 'oulu-exercise-1')
    assert 'Score: 2.50 / 5.00' in done.stdout, done.stdout


def test_pytest_without_a_course_says_how_to_point_at_one(tmp_path):
    """A student's pytest, the grader installed from its folder (no grading.yaml beside
    the package) and GRADER_CONFIG unset: a usage error that names GRADER_CONFIG."""
    site = tmp_path / 'site'
    shutil.copytree(ROOT / 'grader', site / 'grader',
                    ignore=shutil.ignore_patterns('__pycache__'))
    folder = hand_in(tmp_path / 'work', {'tictactoe.py': ALPHABETA})
    env = {k: v for k, v in os.environ.items() if k != 'GRADER_CONFIG'}
    env.update(PYTHONPATH=str(site), PYTEST_DISABLE_PLUGIN_AUTOLOAD='1')
    done = subprocess.run([sys.executable, '-m', 'pytest', '-p', 'grader.pytest_plugin',
                           '-p', 'no:cacheprovider', '-k', 'tictactoe and moves'],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 4, done.stdout + done.stderr
    assert 'this folder holds tictactoe.py, but no course grading.yaml was found' in done.stderr
    assert 'GRADER_CONFIG=path/to/grader/grading.yaml' in done.stderr
    env['GRADER_CONFIG'] = str(CONFIG)      # pointed at the course: graded
    done = subprocess.run([sys.executable, '-m', 'pytest', '-p', 'grader.pytest_plugin',
                           '-p', 'no:cacheprovider', '-k', 'tictactoe and moves', '-q'],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and '1 passed' in done.stdout, done.stdout + done.stderr


def test_a_batch_names_an_unreadable_file_and_a_misplaced_one_per_participant(tmp_path):
    from test_prairielearn import without_reading_others_files
    wrap = without_reading_others_files()
    hand_in(tmp_path / 'class' / 'alice', {'tictactoe.py': ALPHABETA})
    (tmp_path / 'class' / 'alice' / 'tictactoe.py').chmod(0)
    hand_in(tmp_path / 'class' / 'bob', MISTAKES['one folder down'][0])
    env = {k: v for k, v in os.environ.items() if k != 'GRADER_CONFIG'}
    done = subprocess.run([*wrap, sys.executable, '-m', 'grader', '--config', str(CONFIG),
                           'batch', 'class', '--out', 'grades'],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert 'Traceback' not in done.stderr, done.stderr
    problems = (tmp_path / 'grades' / 'problems.csv').read_text().splitlines()
    assert problems[1].startswith('alice,alice,,ungradable,tictactoe.py cannot be read '
                                  '(permission denied): hand it in again as an ordinary file')
    assert problems[2].startswith(f"bob,bob,,ungradable,{MISTAKES['one folder down'][1]},")


def test_pytest_says_the_same_one_line(tmp_path):
    files, sentence = MISTAKES['one folder down']
    folder = hand_in(tmp_path / 'hand-in', files)
    env = {k: v for k, v in os.environ.items() if k != 'GRADER_CONFIG'}
    env.update(PYTEST_DISABLE_PLUGIN_AUTOLOAD='1')
    for given, said in ((folder, f'{folder}: {sentence}'),
                        (tmp_path / 'nope', f"{tmp_path / 'nope'}: does not exist")):
        done = subprocess.run([sys.executable, '-m', 'pytest', '-p', 'grader.pytest_plugin',
                               '-p', 'no:cacheprovider', f'--grader-submission={given}',
                               f'--grader-config={CONFIG}'], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 4, done.stdout + done.stderr
        assert f'grader: {said}' in done.stderr


def test_pytest_names_an_unreadable_file_once(tmp_path):
    from test_prairielearn import without_reading_others_files
    wrap = without_reading_others_files()
    folder = hand_in(tmp_path / 'hand-in', {'tictactoe.py': ALPHABETA})
    (folder / 'tictactoe.py').chmod(0)
    env = {k: v for k, v in os.environ.items() if k != 'GRADER_CONFIG'}
    env.update(PYTEST_DISABLE_PLUGIN_AUTOLOAD='1')
    done = subprocess.run([*wrap, sys.executable, '-m', 'pytest', '-p', 'grader.pytest_plugin',
                           '-p', 'no:cacheprovider', f'--grader-submission={folder}',
                           f'--grader-config={CONFIG}'], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 4, done.stdout + done.stderr
    said = f'grader: {folder}: tictactoe.py cannot be read (permission denied)'
    assert (done.stdout + done.stderr).count(said) == 1
