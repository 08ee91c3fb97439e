"""SIGINT and SIGTERM during grade, check and batch leave nothing behind.

Each run gets a temporary folder of its own (``TMPDIR``), so every private
copy it makes is seen, and is signalled only once it is grading: its
private copy holds the submission and a sandboxed child runs (found by
polling for that state, never by sleeping a guessed time).  Afterwards the
folder must be empty, no process the run started may live, no cgroup of
the run may be left, and the run must have said so in one line and exited
with 128 + the signal's number.
"""
import os
import signal
import subprocess
import sys
import time

import psutil
import pytest

from grader.sandbox import layers, leftovers, registry
from gradertest import ROOT, quick_course

SLEEPS = '''
import time

def Minimax(board, maximizing, player):
    time.sleep(1000)
'''

ISOLATION = layers.detect()


def private_tmp(tmp_path):
    """A ``TMPDIR`` for the processes under test, so that every private copy they make
    is seen (world-traversable, for the dropped uid)."""
    folder = tmp_path / 'tmp'
    folder.mkdir()
    os.chmod(tmp_path, 0o755)
    os.chmod(folder, 0o755)
    return folder


@pytest.fixture
def scratch(tmp_path):
    return private_tmp(tmp_path)


def sleeping_submission(tmp_path):
    folder = tmp_path / 'submission'
    folder.mkdir()
    (folder / 'tictactoe.py').write_text(SLEEPS)
    return folder


def grader(*args, tmp):
    env = {**os.environ, 'TMPDIR': str(tmp)}
    env.pop('GRADER_CONFIG', None)
    return subprocess.Popen([sys.executable, '-m', 'grader', '--config',
                             str(ROOT / 'grading.yaml'), *map(str, args)],
                            cwd=ROOT, env=env, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def wait_until(condition, proc, seconds=120):
    deadline = time.monotonic() + seconds
    while not condition():
        assert proc.poll() is None, proc.communicate()[1].decode()
        assert time.monotonic() < deadline, 'the state waited for never came'
        time.sleep(0.02)


def copies_hold(tmp, name):
    """Whether a private copy in ``tmp`` holds ``name`` (the submission is in place)."""
    def holds():
        try:
            return any((entry / 'submission' / name).exists() for entry in tmp.iterdir())
        except OSError:
            return False
    return holds


def being_graded(tmp, text):
    """Whether a private copy in ``tmp`` holds the submission ``text`` (a child grades it)."""
    def holds():
        try:
            return any((entry / 'submission' / 'tictactoe.py').read_text() == text
                       for entry in tmp.iterdir())
        except OSError:
            return False
    return holds


def sandboxed(proc):
    """Whether a child of ``proc`` runs in a session of its own (a sandboxed child)."""
    def running():
        try:
            return any(child.pid == os.getsid(child.pid)
                       for child in psutil.Process(proc.pid).children())
        except (psutil.Error, OSError):
            return False
    return running


def family(proc):
    try:
        return psutil.Process(proc.pid).children(recursive=True)
    except psutil.Error:
        return []


def marked_groups(pids):
    """cgroup folders whose owner's mark names one of ``pids``."""
    found = []
    for root in leftovers._hierarchies():
        for folder, dirs, _ in os.walk(root):
            for name in list(dirs):
                mark = leftovers.owner_of(name)
                if mark:
                    dirs.remove(name)
                    if mark[0] in pids:
                        found.append(os.path.join(folder, name))
    return found


def alive(processes):
    left = []
    for process in processes:
        try:
            if process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
                left.append(process)
        except psutil.NoSuchProcess:
            pass
    return left


def outlived(processes, seconds):
    """Those of ``processes`` still running (zombies aside) after at most ``seconds``: it
    stops looking once none is.  (``psutil.wait_procs`` waits until each is reaped too,
    which the machine's init does a second or two after their parent is gone.)"""
    deadline = time.monotonic() + seconds
    while alive(processes) and time.monotonic() < deadline:
        time.sleep(0.02)
    return alive(processes)


def assert_nothing_left(tmp, processes, pids):
    assert sorted(os.listdir(tmp)) == []
    still = outlived(processes, 2)
    assert not still, f'processes outlived the run: {still}'
    assert not marked_groups(pids)


@pytest.mark.parametrize('command,sig,twice', [
    ('grade', signal.SIGINT, False), ('grade', signal.SIGTERM, False),
    ('check', signal.SIGINT, True), ('check', signal.SIGTERM, True)])
def test_an_interrupted_run_removes_every_copy_and_child(tmp_path, scratch, command, sig, twice):
    proc = grader(command, sleeping_submission(tmp_path), tmp=scratch)
    wait_until(copies_hold(scratch, 'tictactoe.py'), proc)
    wait_until(sandboxed(proc), proc)
    processes = family(proc)
    started = time.monotonic()
    os.kill(proc.pid, sig)
    if twice:       # a second Ctrl-C, at once: the clean-up goes on all the same
        os.kill(proc.pid, sig)
    _, err = proc.communicate(timeout=60)
    seconds = time.monotonic() - started
    assert proc.returncode == 128 + sig, err
    lines = err.decode().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith('grader: interrupted by'), lines
    assert_nothing_left(scratch, processes, {proc.pid} | {p.pid for p in processes})
    print(f'{command} interrupted by {signal.Signals(sig).name}: exited after {seconds:.2f} s')


@pytest.fixture
def hanging_class(tmp_path, policy):
    """Eight quick hand-ins and two whose every call sleeps; beside them, ``course/``: the
    course they are graded under (:func:`gradertest.quick_course`, fewer cases: how a
    batch stops does not depend on how many there are)."""
    from test_batch_run import quick_folder_class
    source = quick_folder_class(tmp_path / 'class', 10)
    for name in ('s02', 's07'):
        (source / name / 'tictactoe.py').write_text(SLEEPS)
    quick_course(policy, tmp_path / 'course')
    return source


def batch(source, out, tmp, *extra):
    env = {**os.environ, 'TMPDIR': str(tmp)}
    return subprocess.Popen(
        [sys.executable, '-m', 'grader.batch.cli',
         '--config', str(source.parent / 'course' / 'grading.yaml'),
         'batch', str(source), '--out', str(out), '--workers', '2', '--no-progress', *extra],
        cwd=ROOT, env=env, start_new_session=True, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE)


@pytest.mark.parametrize('to_group,sig', [(False, signal.SIGTERM), (False, signal.SIGINT),
                                          (True, signal.SIGINT)],
                         ids=['SIGTERM-to-main', 'SIGINT-to-main', 'Ctrl-C-to-group'])
def test_an_interrupted_batch_stops_its_workers_and_leaves_nothing(hanging_class, tmp_path,
                                                                   scratch, to_group, sig):
    from grader.batch.gradebook import Gradebook
    from test_batch_run import graded_rows
    out = tmp_path / 'out'
    proc = batch(hanging_class, out, scratch)
    wait_until(lambda: len(graded_rows(out)) >= 2, proc)
    wait_until(being_graded(scratch, SLEEPS), proc)      # a hand-in that sleeps is graded
    processes = family(proc)
    started = time.monotonic()
    (os.killpg if to_group else os.kill)(proc.pid, sig)
    _, err = proc.communicate(timeout=60)
    seconds = time.monotonic() - started
    assert proc.returncode == 128 + sig, err
    lines = err.decode().strip().splitlines()
    assert len(lines) == 1 and 'every result finished so far is saved' in lines[0], lines
    assert_nothing_left(scratch, processes, {proc.pid} | {p.pid for p in processes})
    assert len(graded_rows(out)) >= 2
    with Gradebook(out) as book:
        assert [r['status'] for r in book.runs()] == ['interrupted']
    assert seconds < 10, seconds     # a bound, not a measurement: the workers' grace is 1.5 s
    print(f'batch interrupted ({"group" if to_group else "main process"}, '
          f'{signal.Signals(sig).name}): exited after {seconds:.2f} s')


def test_after_a_stop_no_session_spawns_a_child(tmp_path):
    from grader.sandbox.session import Session
    folder = sleeping_submission(tmp_path)
    registry.stop()
    try:
        box = Session(folder, 'tictactoe.py', 'grader.child.selftest', isolation=ISOLATION)
        with pytest.raises(registry.Interrupted):
            box.start()
        box.close()
        assert box.workdir is None and box.proc is None
    finally:
        registry.reset()
    with Session(folder, 'tictactoe.py', 'grader.child.selftest', isolation=ISOLATION) as box:
        assert box.start().ok


STUCK_EXIT = '''
import os, signal, sys, threading
sys.path.insert(0, {root!r})
from grader.sandbox import interrupts

def main():
    with interrupts.handling(program=True):
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            threading.Event().wait(5)
        except KeyboardInterrupt as stop:
            code = interrupts.finish(stop)
    # a thread the interpreter's exit waits for, and that never ends (as a process pool's
    # manager thread waiting for the rest of a result a killed worker half sent)
    threading.Thread(target=threading.Event().wait).start()
    return interrupts.leave(code, program=True)

sys.exit(main())
'''


def test_an_interrupted_program_whose_exit_would_hang_exits_with_its_status(tmp_path):
    """The exit after an interrupt is cut short when a thread would keep it waiting."""
    script = tmp_path / 'stuck.py'
    script.write_text(STUCK_EXIT.format(root=str(ROOT)))
    started = time.monotonic()
    done = subprocess.run([sys.executable, str(script)], capture_output=True, timeout=60)
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert time.monotonic() - started < 30
