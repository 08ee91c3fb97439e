"""Gradescope end to end: the zip `grader dist --gradescope` writes, unpacked as Gradescope
unpacks it, and its run_autograder run against a simulated /autograder root.

setup.sh cannot run here (it installs Ubuntu packages into Gradescope's
image); its shell syntax and the files it names are checked, and the runs
use this test's Python (GRADER_PYTHON) with the grader and course of the
zip itself (run_autograder puts the unpacked source first on PYTHONPATH).
"""
import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile

import jsonschema
import pytest

from grader import cli, yamlio
from grader.batch import archives, bundle
from gradertest import ROOT, SUBMISSIONS
from test_batch_archives import make_zip
from test_prairielearn import without_reading_others_files


@pytest.fixture(scope='module')
def course(policy, tmp_path_factory):
    """A copy of the course with a hidden fixture file (the handout's cases, renamed)."""
    folder = tmp_path_factory.mktemp('course')
    blob, _ = bundle.make(policy)
    archives.unpack(blob, folder, archives.Limits(max_bytes=500 * 2**20, max_files=10**5))
    shutil.copytree(ROOT / 'reference', folder / 'reference', dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns('__pycache__'))
    (folder / 'hidden').mkdir()
    text = (folder / 'fixtures' / 'tictactoe.yaml').read_text()
    (folder / 'hidden' / 'tictactoe.yaml').write_text(text.replace('name: ', 'name: hidden-'))
    return folder


@pytest.fixture(scope='module')
def autograder_zip(course, tmp_path_factory):
    target = tmp_path_factory.mktemp('zip') / 'autograder.zip'
    assert cli.main(['--config', str(course / 'grading.yaml'), 'dist', '--gradescope',
                     str(target), '--assignment', 'oulu-exercise-1']) == 0
    return target


def test_the_zip_has_the_scripts_at_the_top_and_the_whole_course(autograder_zip, course):
    with zipfile.ZipFile(autograder_zip) as archive:
        infos = {i.filename: i for i in archive.infolist()}
    assert {'setup.sh', 'run_autograder'} <= set(infos)
    assert stat.S_IMODE(infos['run_autograder'].external_attr >> 16) & 0o111
    names = set(infos)
    assert {'grading.yaml', 'pyproject.toml', 'setup.py', 'grader/child/_tally.c',
            'grader/cli.py', 'autograder.json',
            'fixtures/tictactoe.yaml', 'hidden/tictactoe.yaml',
            'reference/oracles/tictactoe.py', 'fixtures/travel/network.json'} <= names
    assert not any('__pycache__' in n or n.endswith('.so') for n in names)
    settings = json.loads(zipfile.ZipFile(autograder_zip).read('autograder.json'))
    assert settings['assignment'] == 'oulu-exercise-1'


def test_the_scripts_parse_and_name_files_the_zip_holds(autograder_zip, tmp_path):
    with zipfile.ZipFile(autograder_zip) as archive:
        archive.extractall(tmp_path)
        names = set(archive.namelist())
    for script in ('setup.sh', 'install_grader.sh', 'run_autograder'):
        done = subprocess.run(['bash', '-n', str(tmp_path / script)], capture_output=True,
                              text=True)
        assert done.returncode == 0, done.stderr
    setup = (tmp_path / 'setup.sh').read_text()
    install = (tmp_path / 'install_grader.sh').read_text()
    assert 'bubblewrap' in setup and 'gcc' in setup and 'python3-dev' in setup
    assert 'bash /autograder/source/install_grader.sh' in setup
    assert '"$SOURCE[sandbox]"' in install and 'doctor --require-counter' in install
    assert 'pyproject.toml' in names and 'install_grader.sh' in names
    assert 'grading.yaml' in install and 'grading.yaml' in names
    run = (tmp_path / 'run_autograder').read_text()
    assert '-I -m grader.platforms.gradescope' in run and 'PYTHONPATH=' not in run
    assert 'grader/platforms/gradescope.py' in names


def autograder_root(autograder_zip, tmp_path, files):
    """/autograder as Gradescope lays it out: source/, run_autograder, submission/."""
    root = tmp_path / 'autograder'
    with zipfile.ZipFile(autograder_zip) as archive:
        archive.extractall(root / 'source')
    shutil.copy(root / 'source' / 'run_autograder', root / 'run_autograder')
    os.chmod(root / 'run_autograder', 0o755)
    (root / 'submission').mkdir()
    for name, data in files.items():
        (root / 'submission' / name).parent.mkdir(parents=True, exist_ok=True)
        (root / 'submission' / name).write_bytes(data)
    return root


def run_autograder(root, python=sys.executable):
    env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
    env.update(GRADER_AUTOGRADER_ROOT=str(root), GRADER_PYTHON=python)
    done = subprocess.run([str(root / 'run_autograder')], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    results = json.loads((root / 'results' / 'results.json').read_text())
    jsonschema.validate(results, yamlio.schema('gradescope.schema.json'))
    return results, done


ALPHABETA = (SUBMISSIONS / 'tictactoe' / 'alphabeta_nested.py').read_bytes()


def test_a_good_submission_is_graded_with_its_hidden_cases(autograder_zip, tmp_path):
    root = autograder_root(autograder_zip, tmp_path, {'tictactoe.py': ALPHABETA})
    (root / 'submission_metadata.json').write_text(
        json.dumps({'created_at': '2026-03-20T10:00:00.000000+02:00'}))
    results, done = run_autograder(root)
    assert results['score'] == 2.5, done.stdout
    names = [t['name'] for t in results['tests']]
    assert any('(hidden cases)' in n for n in names)          # the hidden fixture was used
    assert results['extra_data']['assignment'] == 'oulu-exercise-1'


def test_a_submission_in_a_folder_or_a_zip_is_found(autograder_zip, tmp_path):
    root = autograder_root(autograder_zip, tmp_path,
                           {'upload.zip': make_zip({'my work/tictactoe.py': ALPHABETA})})
    results, _ = run_autograder(root)
    assert results['score'] == 2.5


def test_a_misnamed_file_gets_zero_and_the_name_expected(autograder_zip, tmp_path):
    root = autograder_root(autograder_zip, tmp_path, {'TicTacToe.py': ALPHABETA})
    results, _ = run_autograder(root)
    assert results['score'] == 0
    assert 'tictactoe.py' in results['output'] and 'TicTacToe.py' in results['output']
    assert results['tests'][0]['max_score'] == 5


def test_a_file_one_folder_down_is_named_with_where_to_move_it(autograder_zip, tmp_path):
    root = autograder_root(autograder_zip, tmp_path,
                           {'README.txt': b'notes', 'exercise1/tictactoe.py': ALPHABETA})
    results, _ = run_autograder(root)
    assert results['score'] == 0 and results['tests'][0]['max_score'] == 5
    assert results['output'] == ('Your submission could not be graded: exercise1/tictactoe.py '
                                 'is one folder down: move it to the top of your submission.')


def test_an_unreadable_file_gets_zero_and_one_line(autograder_zip, tmp_path):
    root = autograder_root(autograder_zip, tmp_path, {'tictactoe.py': ALPHABETA})
    (root / 'submission' / 'tictactoe.py').chmod(0)
    wrap = without_reading_others_files()
    env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
    env.update(GRADER_AUTOGRADER_ROOT=str(root), GRADER_PYTHON=sys.executable)
    done = subprocess.run([*wrap, str(root / 'run_autograder')], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    results = json.loads((root / 'results' / 'results.json').read_text())
    assert results['score'] == 0
    assert results['output'] == ('Your submission could not be graded: tictactoe.py cannot be '
                                 'read (permission denied): hand it in again as an ordinary '
                                 'file its owner can read.')


def test_an_unreadable_upload_gets_zero_and_says_why(autograder_zip, tmp_path):
    root = autograder_root(autograder_zip, tmp_path, {'upload.zip': b'PK\x03\x04 cut short'})
    results, _ = run_autograder(root)
    assert results['score'] == 0 and 'upload.zip' in results['output']
    assert 'not a readable zip' in results['output']


def test_a_failure_of_the_grader_still_writes_results(autograder_zip, tmp_path):
    root = autograder_root(autograder_zip, tmp_path, {'tictactoe.py': ALPHABETA})
    (root / 'source' / 'grading.yaml').write_text('version: 1\nexercises: [\n')
    results, done = run_autograder(root)
    assert results['score'] == 0
    assert 'not set up correctly' in results['output'] and 'grading.yaml' in results['output']
    (root / 'source' / 'autograder.json').write_text('{ broken')
    results, done = run_autograder(root)
    assert results['score'] == 0 and 'problem of the grader' in results['output']
    assert 'Traceback' in done.stdout                          # for the staff, in stdout
    # Python itself cannot start: the script writes the result on its own.
    results, _ = run_autograder(root, python='/bin/false')
    assert results['score'] == 0 and 'problem of the grader' in results['output']


def test_dist_says_which_hidden_fixtures_the_zip_holds(course, tmp_path, capsys):
    config = str(course / 'grading.yaml')
    assert cli.main(['--config', config, 'dist', '--gradescope', str(tmp_path / 'a.zip'),
                     '--assignment', 'oulu-exercise-1']) == 0
    said = capsys.readouterr()
    assert '1 hidden fixture file and the reference' in said.out
    assert 'hidden/connect4.yaml does not exist' in said.err
    assert 'travel' not in said.err                 # not an exercise of this assignment
    assert cli.main(['--config', config, 'dist', '--gradescope', str(tmp_path / 'b.zip'),
                     '--assignment', 'routeplanner']) == 0
    said = capsys.readouterr()
    assert 'no hidden fixture file' in said.out and 'hidden fixtures' not in said.out
    assert 'hidden/travel.yaml does not exist' in said.err
    assert 'tictactoe' not in said.err
