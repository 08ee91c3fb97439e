"""Calibration: measured in a process of its own, with an in-process fallback."""
import sys

from grader import calibrate


def looks_calibrated(answer, repeats):
    assert answer['unit_seconds'] > 0
    assert len(answer['samples']) == repeats
    assert sorted(answer['samples'])[repeats // 2] == answer['unit_seconds']
    assert '31,973 calls' in answer['workload']


def test_a_pending_calibration_is_measured_by_another_process():
    pending = calibrate.Pending(repeats=3)
    assert pending._proc is not None and pending._proc.pid
    answer = pending.result()
    looks_calibrated(answer, 3)
    assert pending._proc.returncode == 0
    assert pending.result() is answer          # measured once


def test_without_a_usable_process_it_is_measured_here(monkeypatch):
    monkeypatch.setattr(sys, 'executable', '/nonexistent/python')
    pending = calibrate.Pending(repeats=1)
    assert pending._proc is None
    looks_calibrated(pending.result(), 1)


def test_garbage_from_the_process_falls_back(monkeypatch):
    monkeypatch.setattr(calibrate, '_PROGRAM', 'print("not json")')
    looks_calibrated(calibrate.Pending(repeats=1).result(), 1)


def test_start_then_begun_takes_the_measurement_once():
    calibrate.discard()
    calibrate.start(3)
    first = calibrate._started[0]
    assert calibrate.begun(3) is first
    assert calibrate.begun(3) is None              # taken
    looks_calibrated(first.result(), 3)


def test_a_measurement_not_taken_is_ended_and_reaped():
    calibrate.start(3)
    begun = calibrate._started[0]
    assert calibrate.begun(5) is None              # other repeats: not this one
    assert calibrate._started == []
    assert begun._proc.returncode is not None      # killed and reaped, no zombie


def test_a_run_without_a_begun_measurement_measures_when_first_asked(policy):
    from grader import engine
    calibrate.discard()
    run = engine.Run(policy)
    assert run._calibration is None
    looks_calibrated(run.calibration, policy.calibration_repeats)
