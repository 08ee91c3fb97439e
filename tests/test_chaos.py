"""A batch killed again and again gives the grades of an uninterrupted one, and leaves nothing.

A small class with a hand-in that loops in every call is graded once without
interruption.  Then it is graded again, stopped at three points chosen from
progress events (a result committed to the gradebook, never a guessed
pause) and resumed each time, to the end:

- with SIGKILL to the batch's whole process group: nothing can clean up at
  that moment, so the next run (the resume) must remove what was left;
- with SIGTERM to the main process only (what ``kill PID`` or a job
  scheduler sends): every run must leave nothing at once.

Either way the final grades equal the uninterrupted run's, per student and
per check; the gradebook is intact, with one current result per student;
and no private copy, cgroup or process of any of the runs is left.
"""
import os
import signal
import sqlite3
import subprocess
import sys
import time

import psutil
import pytest
import yaml

from grader.batch import compare
from grader.batch.gradebook import Gradebook
from gradertest import ROOT, quick_course
from test_batch_run import graded_rows, quick_folder_class
from test_interrupts import marked_groups, outlived, private_tmp

pytestmark = pytest.mark.timeout(900)

LOOPS = '''
def Minimax(board, maximizing, player):
    while True:
        pass
'''
SIZE = 9
FACTOR = 5
"""Tic-tac-toe's time limits in the chaos course, in units (about 0.05 s each here)."""


@pytest.fixture(scope='module')
def chaos_class(policy, tmp_path_factory):
    """The class's folder; beside it, ``course/``: the course it is graded under, the
    batch tests' (:func:`gradertest.quick_course`, fewer cases) with
    tic-tac-toe's limits :data:`FACTOR` units and at least 0.3 s instead of 40 units and
    at least 1 s (the looping hand-in times out sooner; the honest hand-ins of the class
    answer every case in under 0.03 s): whether a resumed batch gives the uninterrupted
    grades does not depend on how many cases there are or how long a time-out takes."""
    folder = tmp_path_factory.mktemp('chaos')
    path = quick_course(policy, folder / 'course')
    data = yaml.safe_load(path.read_text())
    limits = data['exercises']['tictactoe']['time_limit']
    assert all(FACTOR < factor for factor in limits['factors'].values())
    limits.update(min_seconds=0.3, factors={name: FACTOR for name in limits['factors']})
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    source = quick_folder_class(folder / 'class', SIZE)
    (source / 's04' / 'tictactoe.py').write_text(LOOPS)
    return source


def batch(source, out, tmp, resume=False):
    env = {**os.environ, 'TMPDIR': str(tmp)}
    course = source.parent / 'course' / 'grading.yaml'
    return subprocess.Popen(
        [sys.executable, '-m', 'grader.batch.cli', '--config', str(course),
         'batch', str(source), '--out', str(out), '--workers', '2', '--no-progress',
         *(['--resume'] if resume else [])],
        cwd=ROOT, env=env, start_new_session=True, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE)


def verdicts(out):
    with Gradebook(out) as book:
        return {r.identity.key: (r.status, compare.verdict(r.result)) for r in book.records()}


@pytest.fixture(scope='module')
def uninterrupted(chaos_class, tmp_path_factory):
    folder = tmp_path_factory.mktemp('uninterrupted')
    out = folder / 'out'
    proc = batch(chaos_class, out, private_tmp(folder))
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err.decode()
    found = verdicts(out)
    assert len(found) == SIZE
    looping = found['s04'][1]['exercises']['tictactoe']['checks']['values']
    assert looping[1] is False and looping[2] == 0      # the hanging hand-in fails, once graded
    return found


def committed(out):
    return len(graded_rows(out))


def wait_for(condition, proc, seconds=300):
    deadline = time.monotonic() + seconds
    while not condition():
        if proc.poll() is not None:
            return False
        assert time.monotonic() < deadline, 'the batch made no progress'
        time.sleep(0.05)
    return True


def family(proc):
    try:
        return psutil.Process(proc.pid).children(recursive=True)
    except psutil.Error:
        return []


@pytest.mark.parametrize('sig,to_group', [(signal.SIGKILL, True), (signal.SIGTERM, False)],
                         ids=['SIGKILL-to-group', 'SIGTERM-to-main'])
def test_killed_three_times_and_resumed_the_grades_are_the_same(chaos_class, uninterrupted,
                                                                tmp_path, sig, to_group):
    out, tmp = tmp_path / 'out', private_tmp(tmp_path)
    everyone, tracked, stops, resume = set(), [], 0, False
    while stops < 3:
        before = committed(out)
        proc = batch(chaos_class, out, tmp, resume=resume)
        everyone.add(proc.pid)
        # the kill point: one more result committed, and hand-ins in flight
        if not wait_for(lambda: committed(out) > before and family(proc), proc):
            break                       # it finished before the point came
        members = family(proc)
        everyone |= {p.pid for p in members}
        tracked += members
        (os.killpg if to_group else os.kill)(proc.pid, sig)
        _, err = proc.communicate(timeout=60)
        stops += 1
        resume = True
        if sig == signal.SIGTERM:
            assert proc.returncode == 143, err.decode()
            still = outlived(members, 5)
            assert not still and os.listdir(tmp) == [], (still, os.listdir(tmp))
    assert stops == 3, 'the class was graded before three kill points came'
    proc = batch(chaos_class, out, tmp, resume=True)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err.decode()
    if sig == signal.SIGKILL:
        assert b'earlier grader run' in err          # the resume removed what was left
    assert verdicts(out) == uninterrupted
    db = sqlite3.connect(out / 'gradebook.sqlite')
    try:
        assert db.execute('PRAGMA integrity_check').fetchone() == ('ok',)
        assert db.execute('SELECT submission_key, COUNT(*) FROM results WHERE current = 1 '
                          'GROUP BY submission_key HAVING COUNT(*) != 1').fetchall() == []
    finally:
        db.close()
    again = batch(chaos_class, out, tmp, resume=True)     # a resume of a finished run
    _, err = again.communicate(timeout=300)
    assert again.returncode == 0 and verdicts(out) == uninterrupted, err.decode()
    assert os.listdir(tmp) == []
    assert not marked_groups(everyone)
    still = outlived(tracked, 5)
    assert not still, still
