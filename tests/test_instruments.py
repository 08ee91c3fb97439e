"""An official grade never runs without the search counter; a self-check says what it
could not check, and never accuses anyone.

The grader without its counter is this checkout's package copied without the compiled
extension, first on PYTHONPATH (as the Gradescope bug had it: a source folder where the
extension was never built) -- so every entry point is tried as a user starts it.  The Dask
route, where a worker on another machine lacks the counter, is the worker's own answer
fed to the batch.
"""
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from grader import instruments
from grader.batch import pipeline, worker
from gradertest import ROOT, SUBMISSIONS, bypassing_pythons

CONFIG = str(ROOT / 'grading.yaml')
ALPHABETA = SUBMISSIONS / 'tictactoe' / 'alphabeta_helpers.py'


@pytest.fixture(scope='module')
def uncounted(tmp_path_factory):
    """A copy of the grader package without its compiled counter."""
    folder = tmp_path_factory.mktemp('uncounted')
    shutil.copytree(ROOT / 'grader', folder / 'grader',
                    ignore=shutil.ignore_patterns('*.so', '__pycache__'))
    return folder


def grader(uncounted, *args, cwd, module='grader'):
    env = {k: v for k, v in os.environ.items() if k != 'GRADER_CONFIG'}
    env['PYTHONPATH'] = str(uncounted)
    return subprocess.run([sys.executable, '-m', module, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture
def handed_in(tmp_path):
    folder = tmp_path / 'alice'
    folder.mkdir()
    shutil.copy(ALPHABETA, folder / 'tictactoe.py')
    return folder


def one_refusal(done):
    """The one line of a refusal for want of the counter."""
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith('grader: error: the search counter (grader/child/_tally.c) is '
                               'not built for this Python')
    assert 'so nothing was graded; fix: ' in lines[0]
    return lines[0]


def test_the_counter_of_this_install_is_in_force_and_described():
    counter = instruments.counter()
    assert counter is not None, instruments.missing_counter_line()
    version = '.'.join(map(str, sys.version_info[:3]))
    assert counter.built_for == version
    # the evaluation hook wherever the interpreter's internal headers are installed (pyenv's
    # are: every Python 3.9-3.13 here), else the profile function
    headers = Path(sysconfig.get_paths()['include'], 'internal', 'pycore_frame.h').is_file()
    hook = headers or sys.version_info < (3, 11)
    expected = 'frame-evaluation hook' if hook else 'profile function'
    assert counter.mode.startswith(expected)
    done = subprocess.run([sys.executable, '-m', 'grader', '--config', CONFIG, 'doctor',
                           '--require-counter'], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0
    assert f'search counter: C, {counter.mode}, built for CPython {version}' in done.stdout


SUBSCRIPTS = """
import dis, importlib.machinery, importlib.util, io, json, sys


def made():
    class Box:
        def __getitem__(self, i):
            return i

    def search(box):
        total = 0
        for i in range(100):
            total += box[i]
        return total
    return Box, search


def specialised(search):
    out = io.StringIO()
    dis.dis(search, adaptive=True, file=out)
    return 'BINARY_SUBSCR_GETITEM' in out.getvalue()


Before, before = made()
before(Before())
seen = {'before the counter': specialised(before)}
loader = importlib.machinery.ExtensionFileLoader('grader.child._tally', sys.argv[1])
spec = importlib.util.spec_from_file_location('grader.child._tally', sys.argv[1], loader=loader)
counter = importlib.util.module_from_spec(spec)
loader.exec_module(counter)
for _ in range(5):
    before(Before())
seen['specialised before, run after'] = specialised(before)
After, after = made()
after(After())
seen['made after'] = specialised(after)
print(json.dumps({'mode': counter.MODE, 'seen': seen}))
"""


def test_the_counter_with_the_hook_leaves_no_subscript_past_it_in_a_python_that_runs_one():
    """CPython 3.11.0-3.11.3 (Debian 12's Python is 3.11.2) run a subscript specialised for
    a class's ``__getitem__`` past a frame-evaluation hook (gh-104405).  The counter built
    with the hook -- here for a later 3.11, whose file name those load too -- spends there,
    as it loads, every function version that specialisation can take: a subscript
    specialised before it was loaded gives the specialisation up, and none takes it after
    (every route counted there: tests/test_platform_routes.py)."""
    counter = instruments.counter()
    if counter is None or not counter.mode.startswith('frame-evaluation hook') or \
            sys.version_info[:2] != (3, 11):
        pytest.skip('needs the counter built with the hook for CPython 3.11')
    others = bypassing_pythons()
    if not others:
        pytest.skip('no Python 3.11.0-3.11.3 on this machine')
    done = subprocess.run([others[0], '-c', SUBSCRIPTS, counter.path], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found['mode'] == ('frame-evaluation hook (PEP 523), function versions below '
                             '0x10000 spent (gh-104405)')
    assert found['seen'] == {'before the counter': True, 'specialised before, run after': False,
                             'made after': False}


def test_grade_refuses_without_the_counter_and_writes_nothing(uncounted, handed_in, tmp_path):
    result = tmp_path / 'result.json'
    done = grader(uncounted, '--config', CONFIG, 'grade', str(handed_in), '--json', str(result),
                  cwd=tmp_path)
    one_refusal(done)
    assert not result.exists() and done.stdout == ''


def test_prairielearn_gets_a_broken_autograder_not_an_ungradable_hand_in(uncounted, handed_in,
                                                                          tmp_path):
    result = tmp_path / 'results.json'
    done = grader(uncounted, '--config', CONFIG, 'grade', str(handed_in), '--prairielearn',
                  str(result), cwd=tmp_path)
    one_refusal(done)
    document = json.loads(result.read_text())
    assert document['gradable'] is False and document['tests'] == []
    assert 'not set up correctly' in document['message']
    assert 'problem of the grader, not of your code' in document['message']


def test_doctor_says_there_is_no_counter_and_fails_when_one_is_required(uncounted, tmp_path):
    done = grader(uncounted, '--config', CONFIG, 'doctor', '--require-counter', cwd=tmp_path)
    assert done.returncode == 2 and 'search counter: none: ' in done.stdout
    # without a policy to read (an image build), the counter is still checked
    done = grader(uncounted, 'doctor', '--require-counter', cwd=tmp_path)
    assert done.returncode == 2 and 'policy: none' in done.stdout
    done = grader(uncounted, '--config', CONFIG, 'doctor', cwd=tmp_path)
    assert done.returncode == 0 and 'search counter: none: ' in done.stdout


def test_batch_refuses_before_its_folder_is_made(uncounted, handed_in, tmp_path):
    out = tmp_path / 'out'
    done = grader(uncounted, '--config', CONFIG, 'batch', str(handed_in.parent), '--out',
                  str(out), cwd=tmp_path)
    one_refusal(done)
    assert not out.exists()


def test_the_pytest_plugin_refuses_an_official_grade(uncounted, handed_in, tmp_path):
    done = grader(uncounted, '-p', 'no:cacheprovider', '--grader-config', CONFIG,
                  '--grader-submission', str(handed_in), '--grader-hidden', cwd=tmp_path,
                  module='pytest')
    assert done.returncode == 2, done.stdout + done.stderr
    assert 'grader: error: the search counter (grader/child/_tally.c) is not built' in \
        done.stdout + done.stderr
    assert 'passed' not in done.stdout and 'failed' not in done.stdout


def test_a_self_check_runs_and_says_what_it_could_not_check(uncounted, handed_in, tmp_path):
    result = tmp_path / 'result.json'
    done = grader(uncounted, '--config', CONFIG, 'check', str(handed_in), '--json', str(result),
                  '--verbose', cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert 'this self-check runs on, with pruning and expansions not checked' in done.stderr
    assert 'tampered' not in done.stdout and 'measurement tampered' not in result.read_text()
    assert 'prunes: not checked on this machine (the counter is not built)' in done.stdout
    data = json.loads(result.read_text())
    ttt = next(e for e in data['exercises'] if e['name'] == 'tictactoe')
    assert ttt['facts']['tampered'] is False and ttt['facts']['prunes'] is False
    pruning = next(c for c in ttt['checks'] if c['name'] == 'pruning')
    assert pruning['cases_passed'] == 0 and len(pruning['failures']) == pruning['cases_total']
    assert all(f['message'].startswith('pruning is not checked on this machine')
               for f in pruning['failures'])
    values = next(c for c in ttt['checks'] if c['name'] == 'values')
    assert values['score'] == values['max_score']    # the answers are still checked


def test_a_worker_without_the_counter_refuses_and_the_batch_records_nothing(
        monkeypatch, tmp_path, policy):
    """A Dask worker on a machine without the counter answers ``refused``; the batch stops
    at that answer, records no row for it and marks its run refused."""
    monkeypatch.setattr(worker, '_courses', {})
    monkeypatch.setattr(instruments, 'counter', lambda: None)
    answer = worker.grade_local(CONFIG, {'key': 'alice', 'archive': b''})
    assert answer['status'] == 'refused' and 'search counter' in answer['reason']
    with pytest.raises(instruments.MissingInstrument, match='refused: the search counter'):
        pipeline.refused(answer)
    with pytest.raises(instruments.MissingInstrument):
        pipeline.batch(policy, str(tmp_path), pipeline.Settings(out=tmp_path / 'out'))
    assert not (tmp_path / 'out').exists()


class RefusingWorkers:
    """An executor whose workers (a Dask cluster's, on machines without the counter) all
    answer ``refused``."""

    name, workers = 'dask', 2

    def grade(self, jobs):
        for job in jobs:
            yield job, {'status': 'refused', 'worker': 'far-away:4242',
                        'reason': instruments.missing_counter_line()}


def test_a_batch_whose_workers_refuse_stops_with_no_row(tmp_path, policy, handed_in):
    from grader.batch.gradebook import Gradebook
    out = tmp_path / 'out'
    settings = pipeline.Settings(out=out, executor=RefusingWorkers(), progress=False)
    with pytest.raises(instruments.MissingInstrument, match=r'a worker \(far-away:4242\)'):
        pipeline.batch(policy, str(handed_in.parent), settings)
    with Gradebook(out) as book:
        assert [r['status'] for r in book.runs()] == ['refused']
        assert all(book.current(r.identity.key) is None for r in book.records())
        assert book.records()
    assert not (out / 'grades.csv').exists()


def test_regrade_refuses_before_it_reads_the_gradebook(monkeypatch, tmp_path, policy):
    """``grader regrade`` is an official grade too: without the counter it refuses before
    anything of the gradebook is opened or written."""
    monkeypatch.setattr(instruments, 'counter', lambda: None)
    out = tmp_path / 'out'
    with pytest.raises(instruments.MissingInstrument, match='search counter'):
        pipeline.regrade(policy, pipeline.Settings(out=out))
    assert not out.exists()


def test_a_counter_that_does_not_load_in_the_sandbox_stops_the_grade(tmp_path, monkeypatch,
                                                                      policy, handed_in):
    """The grader has its counter, but the copy it ships to the sandbox does not load there:
    the runner says so before any student code exists, and the grade stops -- never a zero
    for the student's exercise ("the sandbox could not be set up")."""
    from grader import engine
    from grader.child import tally
    from grader.sandbox import bundle
    broken = tmp_path / '_tally.so'
    broken.write_bytes(b'\x7fELF, but not a library')
    members = bundle.members
    monkeypatch.setattr(bundle, 'members', lambda: {**members(), tally.MEMBER: broken})
    monkeypatch.setattr(bundle, '_cache', {})
    with pytest.raises(instruments.MissingInstrument, match=tally.NOT_LOADED):
        engine.grade(policy, handed_in, only=['tictactoe'])
