"""Calibration: measured in a process of its own, with an in-process fallback.

What is asserted is what can be seen from outside: the measuring process this
test's process starts (and that it is ended and reaped), and the answers.
"""
import itertools
import random
import statistics
import sys

import psutil
import pytest

from grader import calibrate


def looks_calibrated(answer, repeats):
    """A unit of ``repeats`` samples: all of them, or fewer that fix their median within
    the agreement (then the middle of where it must lie)."""
    taken = answer['samples']
    assert answer['unit_seconds'] > 0 and 1 <= len(taken) <= repeats
    if len(taken) == repeats:
        assert answer['unit_seconds'] == pytest.approx(statistics.median(taken), abs=2e-6)
    else:
        low, high = calibrate.median_bounds(taken, repeats)
        assert high <= low * (1 + calibrate.AGREEMENT)
        assert answer['unit_seconds'] == pytest.approx((low + high) / 2, abs=2e-6)
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
            if pid not in before and 'calibrate.samples' in line]


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


@pytest.mark.parametrize('printed', ['not a number', '-0.03 0.03', '0.03 0.05',
                                     '0.03 0.03 0.03 0.03', 'nan nan', ''])
def test_garbage_from_the_process_falls_back(monkeypatch, printed):
    """Words, a negative time, two samples too far apart to stop at, too many, NaN,
    nothing: measured here instead."""
    monkeypatch.setattr(calibrate, '_PROGRAM', f'print({printed!r})')
    here = []
    measure = calibrate.measure
    monkeypatch.setattr(calibrate, 'measure', lambda repeats: here.append(repeats) or
                        measure(repeats))
    looks_calibrated(calibrate.Pending(repeats=3).result(), 3)
    assert here == [3]


def test_the_process_s_samples_are_taken(monkeypatch):
    monkeypatch.setattr(calibrate, '_PROGRAM', "print('0.0330 0.0331')")
    assert calibrate.Pending(repeats=3).result() == {
        'unit_seconds': 0.03305, 'samples': [0.033, 0.0331], 'workload': calibrate.WORKLOAD}


def test_the_bounds_hold_the_median_of_every_completion():
    """Whatever samples are still to come, the median of all lies within the bounds of
    those taken; the bounds are the median itself once all are taken."""
    chance = random.Random(7)
    for repeats in range(1, 7):
        for _ in range(200):
            values = [chance.choice([1.0, 2.0, 3.0, 4.0]) + chance.random() for _ in range(repeats)]
            for taken in range(1, repeats + 1):
                bounds = calibrate.median_bounds(values[:taken], repeats)
                if bounds is None:
                    continue
                for rest in itertools.product([0.5, 2.5, 9.0], repeat=repeats - taken):
                    median = statistics.median(values[:taken] + list(rest))
                    assert bounds[0] - 1e-12 <= median <= bounds[1] + 1e-12
            assert calibrate.median_bounds(values, repeats) == (statistics.median(values),) * 2
    assert calibrate.median_bounds([0.03], 3) is None


def scripted(monkeypatch, durations):
    """The workload as free, and the clock reading ``durations`` one after another."""
    readings = itertools.accumulate([0.0] + [d for pair in zip(durations, [0.0] * len(durations))
                                             for d in pair])
    monkeypatch.setattr(calibrate, 'workload', lambda: None)
    monkeypatch.setattr(calibrate, '_clock', readings.__next__)


def test_two_samples_that_agree_fix_the_median_of_three(monkeypatch):
    scripted(monkeypatch, [0.0330, 0.0332, 0.5])
    answer = calibrate.measure(3)
    assert answer['samples'] == [0.033, 0.0332]
    assert answer['unit_seconds'] == 0.0331


def test_samples_that_disagree_are_all_taken(monkeypatch):
    scripted(monkeypatch, [0.0330, 0.0340, 0.0500])
    answer = calibrate.measure(3)
    assert answer['samples'] == [0.033, 0.034, 0.05]
    assert answer['unit_seconds'] == 0.034
    scripted(monkeypatch, [0.0330, 0.0330, 0.0330, 0.0330])
    assert len(calibrate.measure(1)['samples']) == 1
    assert len(calibrate.measure(2)['samples']) == 2      # one sample fixes nothing of two


def test_the_measuring_process_loads_only_the_workload():
    import subprocess
    program = calibrate._PROGRAM.rsplit('; ', 1)[0] + '; print(sorted(sys.modules))'
    assert 'from grader import calibrate' in program
    done = subprocess.run([sys.executable, '-I', '-S', '-c', program, calibrate._PACKAGE_PARENT,
                           '1'], capture_output=True, text=True, check=True)
    loaded = set(eval(done.stdout))     # noqa: S307 - the names this test's own process printed
    assert {'grader', 'grader.calibrate'} <= loaded
    assert not loaded & {'json', 'subprocess', 're', 'statistics', 'threading'}


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
