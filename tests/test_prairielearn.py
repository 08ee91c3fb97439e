"""PrairieLearn end to end: /grade laid out as PrairieLearn lays it out (in a temporary
folder standing in for it), and the documented entrypoint, docs/prairielearn/grade.sh, run
as PrairieLearn runs it.

The image itself (docs/prairielearn/Dockerfile) cannot be built here (it needs Docker and
PrairieLearn's image); the entrypoint runs with this test's grader on PATH, as the image
has it on its PATH.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from gradertest import ROOT, quick_course

GRADE_SH = ROOT / 'docs' / 'prairielearn' / 'grade.sh'
ASSIGNMENT = 'oulu-exercise-1'
UNGRADABLE = 'Your submission could not be graded: '


def best_one(document):
    """The assignment counts the best one of its three exercises (so a second one
    submitted does not count), with a late penalty of 10 % a started day."""
    document['assignments'][ASSIGNMENT]['count'] = 1
    document['assignments'][ASSIGNMENT].pop('requirements', None)
    document['assignments'][ASSIGNMENT]['late_penalty'] = {
        'deadline': '2026-03-01T00:00:00+00:00', 'per_day': 0.1, 'max': 0.5}


@pytest.fixture(scope='module')
def course(policy, tmp_path_factory):
    folder = tmp_path_factory.mktemp('course')
    quick_course(policy, folder, edit=best_one)
    shutil.copy(GRADE_SH, folder / 'grade.sh')
    return folder


def grade_root(course, tmp_path, files):
    """/grade as PrairieLearn lays it out: serverFilesCourse/course, student/."""
    root = tmp_path / 'grade'
    shutil.copytree(course, root / 'serverFilesCourse' / 'course', symlinks=True)
    (root / 'student').mkdir(parents=True)
    for name, data in files.items():
        (root / 'student' / name).parent.mkdir(parents=True, exist_ok=True)
        (root / 'student' / name).write_bytes(data)
    return root


def run_grade_sh(root, wrap=(), bin_dir=Path(sys.executable).parent):
    """Run the entrypoint PrairieLearn runs, with the grader of ``bin_dir`` first on PATH (as
    the image has its /venv/bin): ``(results.json document, completed process)``."""
    env = {k: v for k, v in os.environ.items() if k not in ('PYTHONPATH', 'GRADER_CONFIG')}
    env.update(GRADER_PRAIRIELEARN_ROOT=str(root),
               PATH=f'{bin_dir}{os.pathsep}{env.get("PATH", "")}')
    entrypoint = root / 'serverFilesCourse' / 'course' / 'grade.sh'
    done = subprocess.run([*wrap, str(entrypoint)], cwd=root, env=env, capture_output=True,
                          text=True, timeout=300)
    document = json.loads((root / 'results' / 'results.json').read_text())
    schema = json.loads((ROOT / 'grader' / 'schemas' / 'prairielearn.schema.json').read_text())
    jsonschema.validate(document, schema)
    return document, done


TICTACTOE = (ROOT / 'reference' / 'tictactoe.py').read_bytes()
CONNECT4 = (ROOT / 'reference' / 'connect4.py').read_bytes()


def test_the_entrypoint_is_executable_and_the_guide_names_it():
    assert os.access(GRADE_SH, os.X_OK)
    guide = (ROOT / 'docs' / 'prairielearn.md').read_text()
    assert 'prairielearn/grade.sh' in guide and 'prairielearn/Dockerfile' in guide
    assert '"enableNetworking": false' in guide
    dockerfile = (ROOT / 'docs' / 'prairielearn' / 'Dockerfile').read_text()
    assert 'FROM prairielearn/grader-python' in dockerfile and '[sandbox]' in dockerfile


def test_a_graded_submission_has_tests_that_add_up_to_its_score(course, tmp_path):
    root = grade_root(course, tmp_path, {'tictactoe.py': TICTACTOE, 'connect4.py': CONNECT4})
    document, done = run_grade_sh(root)
    assert done.returncode == 0, done.stderr
    assert document['gradable'] is True and document['score'] == 1.0, document['message']
    points = sum(t['points'] for t in document['tests'])
    max_points = sum(t['max_points'] for t in document['tests'])
    assert (points, max_points) == (2.5, 2.5)            # the header PrairieLearn shows
    not_counted = [t for t in document['tests'] if 'not counted' in t['description']]
    assert not_counted and all(t['points'] == t['max_points'] == 0 for t in not_counted)
    assert all(t['message'].startswith('not counted') for t in not_counted)


def test_a_late_penalty_is_a_test_of_its_own_so_the_tests_still_add_up(course, tmp_path):
    root = grade_root(course, tmp_path, {'tictactoe.py': TICTACTOE})
    results = tmp_path / 'results.json'
    done = subprocess.run([sys.executable, '-m', 'grader', '--config',
                           str(course / 'grading.yaml'), 'grade', str(root / 'student'),
                           '--assignment', ASSIGNMENT, '--submitted-at',
                           '2026-03-02T12:00:00+00:00', '--prairielearn', str(results), '-q'],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    document = json.loads(results.read_text())
    assert document['score'] == 0.8                      # two started days late: 20 % off
    score = next(t for t in document['tests'] if t['name'] == 'Score')
    assert score['points'] == -0.5 and score['max_points'] == 0
    assert sum(t['points'] for t in document['tests']) == pytest.approx(2.0)
    assert sum(t['max_points'] for t in document['tests']) == 2.5


@pytest.mark.parametrize('files, said', [
    ({'TicTacToe.py': TICTACTOE}, 'must be named tictactoe.py'),
    ({'exercise1/tictactoe.py': TICTACTOE}, 'exercise1/tictactoe.py is one folder down: '
                                           'move it to the top of your submission'),
    ({}, 'your submission is empty'),
    ({'upload.zip': b'PK\x03\x04 cut short'}, 'it holds upload.zip'),
], ids=['misnamed', 'one-folder-down', 'empty', 'damaged-zip'])
def test_a_hand_in_that_cannot_be_graded_is_not_gradable_and_says_why(course, tmp_path,
                                                                      files, said):
    document, done = run_grade_sh(grade_root(course, tmp_path, files))
    assert done.returncode == 2, done.stderr
    assert document['gradable'] is False and document['tests'] == []
    assert said in document['message'] and '\n' not in document['message']
    assert str(tmp_path) not in document['message']


def without_reading_others_files():
    """A command prefix under which this test's files can be made unreadable: none for an
    ordinary user; as root, root's power to read every file is dropped (setpriv)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which('setpriv')
    if setpriv is None:
        pytest.skip('running as root without setpriv: no file is unreadable to root')
    return [setpriv, '--bounding-set', '-dac_override,-dac_read_search']


def test_an_unreadable_file_is_not_gradable_in_one_line(course, tmp_path):
    wrap = without_reading_others_files()
    root = grade_root(course, tmp_path, {'tictactoe.py': TICTACTOE})
    (root / 'student' / 'tictactoe.py').chmod(0)
    document, done = run_grade_sh(root, wrap)
    assert done.returncode == 2, done.stderr
    assert document['gradable'] is False
    assert document['message'] == (
        f'{UNGRADABLE}tictactoe.py cannot be read (permission denied): hand it in again as an '
        'ordinary file its owner can read')


def test_the_plain_mistakes_read_the_same_on_the_command_line(course, tmp_path):
    """The sentence PrairieLearn shows is the one `grader check` prints."""
    root = grade_root(course, tmp_path, {'exercise1/tictactoe.py': TICTACTOE})
    document, _ = run_grade_sh(root)
    done = subprocess.run([sys.executable, '-m', 'grader', '--config',
                           str(course / 'grading.yaml'), 'check', str(root / 'student')],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    sentence = document['message'].removeprefix(UNGRADABLE)
    assert done.stderr.strip() == f"grader: error: {root / 'student'}: {sentence}"


def test_a_grader_that_cannot_start_still_leaves_a_result(course, tmp_path):
    root = grade_root(course, tmp_path, {'tictactoe.py': TICTACTOE})
    broken = 'version: 1\nexercises: [\n'
    (root / 'serverFilesCourse' / 'course' / 'grading.yaml').write_text(broken)
    document, done = run_grade_sh(root)
    assert done.returncode == 2
    assert document['gradable'] is False and 'grading.yaml' in document['message']
