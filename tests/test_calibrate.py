"""Calibration: measured in a process of its own, with an in-process fallback.

What is asserted is what can be seen from outside: the measuring process this
test's process starts (and that it is ended and reaped), and the answers.
"""
import sys

import psutil

from grader import calibrate


def looks_calibrated(answer, repeats):
    assert answer['unit_seconds'] > 0
    assert len(answer['samples']) == repeats
    assert sorted(answer['samples'])[repeats // 2] == answer['unit_seconds']
    assert '31,973 calls' in answer['workload']


def children():
    """pid -> command line of this process's children that are running (not zombies)."""
    found = {}
    for child in psutil.Process().children():
        try:
            if child.status() != psutil.STATUS_ZOMBIE:
                found[child.pid] = ' '.join(child.cmdline())
        except psutil.NoSuchProcess:
            pass
    return found


def measuring(before):
    """The measuring processes started since ``before`` (pids)."""
    return [pid for pid, line in children().items()
            if pid not in before and 'calibrate.measure' in line]


def test_a_pending_calibration_is_measured_by_another_process():
    before = children()
    pending = calibrate.Pending(repeats=3)
    started = measuring(before)
    assert len(started) == 1
    answer = pending.result()
    looks_calibrated(answer, 3)
    assert not psutil.pid_exists(started[0])   # it ended and was reaped
    assert pending.result() is answer          # measured once


def test_without_a_usable_process_it_is_measured_here(monkeypatch):
    monkeypatch.setattr(sys, 'executable', '/nonexistent/python')
    before = children()
    pending = calibrate.Pending(repeats=1)
    assert set(children()) == set(before)      # nothing could be started
    assert pending.finished()                  # so it answers at once, measured here
    looks_calibrated(pending.result(), 1)


def test_garbage_from_the_process_falls_back(monkeypatch):
    monkeypatch.setattr(calibrate, '_PROGRAM', 'print("not json")')
    looks_calibrated(calibrate.Pending(repeats=1).result(), 1)


def test_start_then_begun_takes_the_measurement_once():
    calibrate.discard()
    before = children()
    calibrate.start(3)
    started = measuring(before)
    assert len(started) == 1
    first = calibrate.begun(3)
    assert first is not None
    assert calibrate.begun(3) is None              # taken
    looks_calibrated(first.result(), 3)
    assert not psutil.pid_exists(started[0])


def test_a_measurement_not_taken_is_ended_and_reaped():
    calibrate.discard()
    before = children()
    calibrate.start(3)
    started = measuring(before)
    assert len(started) == 1
    assert calibrate.begun(5) is None              # other repeats: not this one
    assert not psutil.pid_exists(started[0])       # killed and reaped, no zombie
    assert calibrate.begun(3) is None              # and not kept for later


def test_a_run_without_a_begun_measurement_measures_when_first_asked(policy):
    from grader import engine
    calibrate.discard()
    before = children()
    run = engine.Run(policy)
    assert not measuring(before)                   # no process: measured here, when asked
    looks_calibrated(run.calibration, policy.calibration_repeats)
    assert run.calibration is run.calibration      # once


def test_a_run_takes_the_measurement_begun_for_it(policy):
    from grader import engine
    calibrate.discard()
    before = children()
    calibrate.start(policy.calibration_repeats)
    started = measuring(before)
    run = engine.Run(policy)
    assert calibrate.begun(policy.calibration_repeats) is None   # the run took it
    looks_calibrated(run.calibration, policy.calibration_repeats)
    assert started and not psutil.pid_exists(started[0])
