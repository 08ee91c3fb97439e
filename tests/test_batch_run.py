"""``grader batch`` / ``grader regrade`` end to end on small classes.

The class is made of example submissions that grade quickly, graded under
:func:`gradertest.quick_course` (fewer cases: what a batch keeps, resumes or
regrades does not depend on how many there are); each test that grades says
what it checks.  The generated class of 200 is in test_batch_class.py.
"""
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import psutil
import pytest
import yaml

from grader.batch import archives, bundle, compare, exports
from grader.batch.cli import main as batch_main
from grader.batch.gradebook import Gradebook
from gradertest import ROOT, SUBMISSIONS, quick_course
from test_batch_archives import make_zip

QUICK = ['alphabeta_nested', 'alphabeta_helpers', 'bug_no_undo', 'syntax_error',
         'missing_minimax', 'robust_raises', 'template']
"""Example submissions that are graded in well under a second each."""


def variant(name):
    path = SUBMISSIONS / 'tictactoe' / f'{name}.py'
    if name == 'template':
        path = ROOT / 'student_template' / 'tictactoe.py'
    return path.read_bytes()


def moodle_class(path, names):
    """A Moodle "Download all submissions" zip: one folder per student, one uploads a
    zip, one uploads a broken zip, and a stray file sits at the top."""
    with zipfile.ZipFile(path, 'w') as out:
        for i, name in enumerate(names):
            folder = f'Student {name}_{200 + i}_assignsubmission_file_'
            if i == 1:
                out.writestr(f'{folder}/work.zip',
                             make_zip({f'{name}/tictactoe.py': variant(name)}))
            else:
                out.writestr(f'{folder}/tictactoe.py', variant(name))
        out.writestr('Broken Zip_299_assignsubmission_file_/upload.zip', b'PK\x03\x04 truncated')
        out.writestr('index.html', b'<html></html>')
    return path


def run_cli(*args, config=None):
    argv = ['--config', str(config or ROOT / 'grading.yaml'), *map(str, args)]
    return batch_main(argv)


def current_results(out):
    with Gradebook(out) as book:
        return {r.identity.key: r for r in book.records()}


def history(out):
    with Gradebook(out) as book:
        return {k: book.history(k) for k in book.keys()}


def with_similarity(document):
    document['similarity'] = {'known': 'known', 'template': 'template'}


@pytest.fixture(scope='module')
def course(policy, tmp_path_factory):
    """The grading.yaml of these tests' course (:func:`gradertest.quick_course`), which
    compares the hand-ins too: with the template left out, and one of the class's hand-ins
    among the known solutions (``alphabeta_nested``)."""
    folder = tmp_path_factory.mktemp('course')
    (folder / 'known' / 'tictactoe').mkdir(parents=True)
    (folder / 'known' / 'tictactoe' / 'found.py').write_bytes(variant('alphabeta_nested'))
    shutil.copytree(ROOT / 'student_template', folder / 'template')
    return quick_course(policy, folder, edit=with_similarity)


@pytest.fixture(scope='module')
def graded_class(course, tmp_path_factory):
    """The quick class graded once by a local pool of 2 workers."""
    folder = tmp_path_factory.mktemp('batch')
    source = moodle_class(folder / 'download.zip', QUICK)
    out = folder / 'out'
    assert run_cli('batch', source, '--out', out, '--workers', 2, '--no-progress',
                   config=course) == 0
    return source, out


def test_every_submission_is_graded_or_listed_with_its_reason(graded_class):
    source, out = graded_class
    records = current_results(out)
    assert len(records) == len(QUICK) + 2
    graded = {k: r for k, r in records.items() if r.status == 'graded'}
    assert len(graded) == len(QUICK)
    assert 'not a readable zip' in records['299'].reason
    assert 'neither a submission folder' in records['index.html'].reason
    problems = (out / 'problems.csv').read_text()
    assert 'upload.zip: not a readable zip' in problems and 'index.html' in problems
    assert records['201'].result['exercises'][0]['submitted']    # the zip upload was found


def test_every_worker_of_the_pool_grades_under_the_batchs_one_calibration(graded_class):
    """The pool measures the calibration once and hands it to its workers: every student of
    the class is graded under limits of the same unit, whichever worker graded them."""
    _, out = graded_class
    graded = [r for r in current_results(out).values() if r.status == 'graded']
    workers = {r.result['calibration']['unit_seconds'] for r in graded}
    assert len(graded) == len(QUICK) and len(workers) == 1, workers
    samples = graded[0].result['calibration']['samples']
    assert all(r.result['calibration']['samples'] == samples for r in graded)


def test_batch_scores_equal_grading_each_submission_alone(graded_class, course, run, tmp_path):
    from grader import config, engine
    _, out = graded_class
    policy = config.load(course)
    run = engine.Run(policy, calibration=run.calibration, isolation=run.isolation)
    with Gradebook(out) as book:
        for record in book.records():
            if record.status != 'graded':
                continue
            folder = archives.unpack(book.archive(record.identity.key),
                                     tmp_path / record.identity.key)
            alone = engine.grade(policy, folder, run=run).to_dict()
            assert compare.verdict(record.result) == compare.verdict(alone), record.identity.key


def test_outputs_for_the_instructor_and_the_students(graded_class):
    _, out = graded_class
    records = current_results(out)
    assert exports.read_grades(out / 'grades.csv') == exports.grade_rows(
        [records[k] for k in sorted(records)])
    with open(out / 'moodle-worksheet.csv', newline='') as stream:
        sheet = {row['Identifier']: row for row in __import__('csv').DictReader(stream)}
    assert sheet['Participant 200']['Grade'] == exports.fmt(records['200'].score)
    assert sheet['Participant 299']['Grade'] == ''
    for key, record in records.items():
        text = (out / 'feedback' / f'{key}.md').read_text()
        assert (record.identity.name or key) in text
    assert 'We could not grade your submission' in (out / 'feedback' / '299.md').read_text()
    assert 'Score' in (out / 'feedback' / '200.md').read_text()
    assert (out / 'overview.png').stat().st_size > 0
    assert '| tictactoe | values |' in (out / 'overview.md').read_text()
    # the full JSON result is stored with the grader version and the fixtures digest
    with Gradebook(out) as book:
        row = book.current('200')
    assert row['fixtures_digest'].startswith('sha256:') and row['grader_version']
    assert json.loads(row['result_json'])['submission']['key'] == '200'


def test_an_existing_gradebook_needs_resume_or_regrade(graded_class, course, capsys):
    source, out = graded_class
    assert run_cli('batch', source, '--out', out, '--no-progress', config=course) == 2
    assert '--resume' in capsys.readouterr().err


def copy_gradebook(out, folder):
    """A copy of a gradebook (tests that write use one: the others read the original)."""
    folder.mkdir()
    src = sqlite3.connect(out / 'gradebook.sqlite')
    dst = sqlite3.connect(folder / 'gradebook.sqlite')
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()
    return folder


def test_resume_keeps_results_and_regrades_only_a_changed_resubmission(graded_class, course,
                                                                       tmp_path):
    source, _ = graded_class
    out = copy_gradebook(graded_class[1], tmp_path / 'out')
    before = history(out)
    assert run_cli('batch', source, '--out', out, '--resume', '--no-progress',
                   config=course) == 0
    assert history(out) == before
    # Student 200 hands in again with a changed file; everyone else is unchanged.
    changed = tmp_path / 'download.zip'
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(changed, 'w') as new:
        for info in old.infolist():
            data = old.read(info)
            if info.filename.startswith('Student alphabeta_nested_200'):
                data = variant('bug_no_undo')
            new.writestr(info, data)
    assert run_cli('batch', changed, '--out', out, '--resume', '--workers', 1,
                   '--no-progress', config=course) == 0
    after = history(out)
    assert len(after['200']) == 2 and after['200'][0]['current'] == 0
    assert {k: v for k, v in after.items() if k != '200'} == \
        {k: v for k, v in before.items() if k != '200'}


def fixed_policy(policy, folder):
    """A copy of the course whose first tic-tac-toe case expects another value
    (as after fixing a fixture), loaded as a policy file."""
    blob, digest = bundle.make(policy)
    archives.unpack(blob, folder, archives.Limits(max_bytes=500 * 2**20, max_files=10**5))
    for name in ('known', 'template'):          # similarity's folders: not in a bundle
        shutil.copytree(policy.root / name, folder / name)
    path = folder / 'fixtures' / 'tictactoe.yaml'
    data = yaml.safe_load(path.read_text())
    case = data['cases'][0]
    case['expected']['value'] = 1 if case['expected']['value'] != 1 else -1
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return folder / 'grading.yaml', case['name']


def test_regrade_diff_shows_whose_score_would_change_before_writing(graded_class, course,
                                                                   tmp_path, capsys):
    from grader import config as configs
    copy = copy_gradebook(graded_class[1], tmp_path / 'out')
    config, case = fixed_policy(configs.load(course), tmp_path / 'fixed')
    correct = ['200', '201']                    # alphabeta_nested, alphabeta_helpers
    before = history(copy)
    capsys.readouterr()
    assert run_cli('regrade', copy, '--diff', '--student', '200', '--student', '201',
                   '--student', '203', '--workers', 1, '--no-progress', config=config) == 0
    said = capsys.readouterr().out
    assert '2 of 3 regraded submission(s) would change' in said
    assert all(f'  {k} ' in said for k in correct) and '  203 ' not in said   # syntax error
    assert 'tictactoe/values' in said
    assert history(copy) == before                      # nothing written
    assert run_cli('regrade', copy, '--student', '200', '--workers', 1, '--no-progress',
                   config=config) == 0
    after = history(copy)
    assert len(after['200']) == 2 and after['200'][-1]['current'] == 1
    assert after['200'][-1]['score'] < after['200'][0]['score']
    assert after['201'] == before['201']


def descendants():
    """Live processes below this one.  Finished ones are reaped first: an earlier
    sandbox test made this process a subreaper, so orphans that exit (such as
    a helper process of a Dask worker) become its zombies."""
    alive = set()
    for process in psutil.Process().children(recursive=True):
        try:
            if process.status() == psutil.STATUS_ZOMBIE:
                if process.ppid() == os.getpid():
                    os.waitpid(process.pid, os.WNOHANG)
                continue
        except (psutil.Error, ChildProcessError):
            continue
        alive.add(process.pid)
    return alive


def test_dask_local_cluster_gives_the_same_verdicts(graded_class, course, tmp_path):
    import distributed  # noqa: F401  (the batch extra, installed with the tests: fail, never skip)
    source, out = graded_class
    earlier = descendants()
    dask_out = tmp_path / 'dask'
    assert run_cli('batch', source, '--out', dask_out, '--dask-local', 2, '--no-progress',
                   config=course) == 0
    local = current_results(out)
    remote = current_results(dask_out)
    assert {k: (r.status, compare.verdict(r.result)) for k, r in remote.items()} == \
        {k: (r.status, compare.verdict(r.result)) for k, r in local.items()}
    # the hand-ins are compared where the batch runs, from what the gradebook stores
    alike = (dask_out / 'similarity.csv').read_text()
    assert alike == (out / 'similarity.csv').read_text()
    assert ',known:tictactoe/found.py,known,1.00,1.00,' in alike
    workers = {r['worker'].split(':')[1] for rs in history(dask_out).values() for r in rs
               if r['worker']}
    assert len(workers) >= 1
    # a cluster started here grades on this machine: one calibration for all its workers
    units = {r.result['calibration']['unit_seconds'] for r in remote.values() if r.result}
    assert len(units) == 1, units
    deadline = time.monotonic() + 20
    while descendants() - earlier and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not descendants() - earlier, 'the LocalCluster left processes behind'


def quick_folder_class(folder, size):
    folder.mkdir()
    for i in range(size):
        student = folder / f's{i:02d}'
        student.mkdir()
        (student / 'tictactoe.py').write_bytes(variant(QUICK[i % len(QUICK)]))
    return folder


def graded_rows(out):
    """``{key: (result id, graded_at)}`` of the current results (read while a batch writes)."""
    path = out / 'gradebook.sqlite'
    if not path.exists():
        return {}
    try:
        db = sqlite3.connect(path, timeout=5)
        try:
            return {k: (i, g) for k, i, g in db.execute(
                'SELECT submission_key, id, graded_at FROM results WHERE current = 1')}
        finally:
            db.close()
    except sqlite3.OperationalError:
        return {}


@pytest.fixture
def scratch():
    """A temporary folder of the test's own for the batch's processes (``TMPDIR``).

    A batch killed with SIGKILL cannot remove the private copies it was
    grading; they are left here and removed with it, not in the machine's /tmp.
    World-traversable, so a child that has dropped its uid reaches its copy.
    """
    import shutil
    import tempfile
    folder = tempfile.mkdtemp(prefix='grader-test-')
    os.chmod(folder, 0o755)
    yield {**os.environ, 'TMPDIR': folder}
    shutil.rmtree(folder, ignore_errors=True)


def start_batch(source, out, config, *extra, env=None):
    return subprocess.Popen(
        [sys.executable, '-m', 'grader.batch.cli', '--config', str(config),
         'batch', str(source), '--out', str(out), '--workers', '2', '--no-progress', *extra],
        cwd=ROOT, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=env)


def stop_group(proc, sig):
    """Send ``sig`` to the batch's process group; wait until all it started are gone."""
    started = psutil.Process(proc.pid).children(recursive=True)
    os.killpg(proc.pid, sig)
    proc.wait(timeout=60)
    from test_interrupts import outlived
    left = outlived(started, 20)
    for leftover in left:
        leftover.kill()
    return left


RESUMED = 10
"""Hand-ins of the class that is stopped and resumed."""
SLEEPER = f's{RESUMED - 1:02d}'
"""The last hand-in of the class (keys are graded in order): every call sleeps, so
it is still being graded, several time-outs long, when the others are done."""


@pytest.mark.parametrize('sig', [signal.SIGKILL, signal.SIGINT])
def test_resume_after_kill_or_interrupt_loses_and_regrades_nothing(tmp_path, sig, scratch,
                                                                  course):
    from test_interrupts import SLEEPS, being_graded, wait_until
    source = quick_folder_class(tmp_path / 'class', RESUMED)
    (source / SLEEPER / 'tictactoe.py').write_text(SLEEPS)
    quick = {f's{i:02d}' for i in range(RESUMED)} - {SLEEPER}
    out = tmp_path / 'out'
    proc = start_batch(source, out, course, env=scratch)
    # Stopped once every quick hand-in has its row and the sleeper is in a sandbox:
    # what is finished then is known, whatever the machine's speed.
    wait_until(lambda: set(graded_rows(out)) == quick, proc)
    wait_until(being_graded(Path(scratch['TMPDIR']), SLEEPS), proc)
    left = stop_group(proc, sig)
    assert not left, f'processes outlived the batch: {left}'
    if sig == signal.SIGINT:
        assert proc.returncode == 130
        assert b'--resume' in proc.stderr.read()
        # Ctrl-C reaches the workers too: they close their sandboxes and remove
        # their private copies before they leave (only SIGKILL leaves copies).
        assert os.listdir(scratch['TMPDIR']) == []
    finished = graded_rows(out)
    assert set(finished) == quick
    # The sleeper hands in a quick file before the class is resumed (its own time-outs
    # are graded in test_interrupts; here only the bookkeeping matters).
    (source / SLEEPER / 'tictactoe.py').write_bytes(variant(QUICK[0]))
    resumed = subprocess.run(
        [sys.executable, '-m', 'grader.batch.cli', '--config', str(course),
         'batch', str(source), '--out', str(out), '--resume', '--workers', '2', '--no-progress'],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env=scratch)
    assert resumed.returncode == 0, resumed.stderr
    assert f'{len(finished)} kept from the gradebook' in resumed.stdout
    after = graded_rows(out)
    assert set(after) == {f's{i:02d}' for i in range(RESUMED)}
    assert all(after[k] == finished[k] for k in finished)       # not regraded, not lost
    assert all(len(rows) == 1 for rows in history(out).values())
    with Gradebook(out) as book:
        assert [(r['kind'], r['status']) for r in book.runs()] == \
            [('batch', 'interrupted'), ('resume', 'finished')]
