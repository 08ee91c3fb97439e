"""Calls made while the calibration is still measured give the verdicts of calls made after it.

An early call runs under ``min_seconds`` (the smallest limit any call can
have) and gets its true limit before it is judged; when one times out, the
lane is graded again from the start under the true limits.  Each test grades
two public cases of each kind and two drawn positions
(:func:`gradertest.fewer_cases`): what happens to an early call does not
depend on how many there are, and the pruning positions, the slowest, are
among them.
"""

from grader import calibrate, engine
from gradertest import SUBMISSIONS, fewer_cases, with_exercise


class SlowCalibration(calibrate.Pending):
    """A measurement that finishes only when told to (no process)."""

    def __init__(self, answer, finish_after_calls):
        self.repeats, self._proc, self._result = 3, None, None
        self.answer, self.left = answer, finish_after_calls

    def finished(self):
        self.left -= 1
        return self.left < 0

    def result(self):
        self._result = self.answer
        return self.answer


def attempts(monkeypatch):
    """Record each lane attempt: (early, whether it finished)."""
    seen, original = [], engine.Lane._attempt

    def attempt(self, run, submission_dir, early, started=None):
        done = original(self, run, submission_dir, early, started)
        seen.append((early, done is not None))
        return done
    monkeypatch.setattr(engine.Lane, '_attempt', attempt)
    return seen


def checks(result):
    return [(c.name, c.score, c.cases_passed, c.message) for c in result.checks]


def graded(policy, run, folder, calibration):
    lane_run = engine.Run(policy, calibration=calibration, isolation=run.isolation, jobs=1)
    return engine.grade(policy, folder, run=lane_run, only=['tictactoe']).exercise('tictactoe')


def with_min_seconds(policy, seconds):
    return with_exercise(policy, 'tictactoe', min_seconds=seconds)


def test_early_calls_are_judged_under_their_true_limits(policy, run, submission, monkeypatch,
                                                       tmp_path):
    policy = fewer_cases(policy, 'tictactoe', tmp_path / 'course')
    folder = submission('tictactoe', SUBMISSIONS / 'tictactoe' / 'minimax_make_undo.py')
    after = graded(policy, run, folder, dict(run.calibration))
    seen = attempts(monkeypatch)
    early = graded(policy, run, folder, SlowCalibration(dict(run.calibration), 6))
    assert seen == [(True, True)]
    assert checks(early) == checks(after)
    assert early.facts['child_starts'] == after.facts['child_starts'] == 1
    assert early.score == early.max_score


def test_an_early_time_out_grades_the_lane_again_under_the_true_limits(policy, run, submission,
                                                                     monkeypatch, tmp_path):
    # min_seconds of 1 ms: the plain-minimax pruning positions (0.1 s each) time out
    # while early, but pass under their true limits.
    tight = with_min_seconds(fewer_cases(policy, 'tictactoe', tmp_path / 'course'), 0.001)
    folder = submission('tictactoe', SUBMISSIONS / 'tictactoe' / 'minimax_make_undo.py')
    after = graded(tight, run, folder, dict(run.calibration))
    never = SlowCalibration(dict(run.calibration), 10 ** 6)   # early for every call
    seen = attempts(monkeypatch)
    early = graded(tight, run, folder, never)
    assert seen == [(True, False), (False, True)]
    assert checks(early) == checks(after)
    assert early.facts['child_starts'] == after.facts['child_starts'] == 1
    assert early.score == early.max_score
    assert all('timed out' not in c.message for c in early.checks)


def test_a_real_time_out_is_reported_with_its_true_limit(policy, run, submission, tmp_path):
    # Smaller limits than the course's (an endless loop times out under any): the early
    # calls' 0.1 s, the true limits' 10 units.
    policy = with_exercise(fewer_cases(policy, 'tictactoe', tmp_path / 'course'), 'tictactoe',
                           min_seconds=0.1, factors={'default': 10})
    assert 10 * run.unit > 0.1
    folder = submission('tictactoe', SUBMISSIONS / 'tictactoe' / 'loop_in_minimax.py')
    after = graded(policy, run, folder, dict(run.calibration))
    early = graded(policy, run, folder, SlowCalibration(dict(run.calibration), 0))
    assert checks(early) == checks(after)
    timeouts = next(c for c in early.checks if c.name == 'timeouts')
    # (its opening-book answer is no search: that case fails first, the loops after it)
    assert not timeouts.passed
    assert any('timed out after' in f['message'] for f in timeouts.failures), timeouts.failures


def test_answered_cases_are_judged_at_a_poll_once_the_unit_is_known():
    """``Answered.meanwhile`` (called at every poll while a call runs) asks nothing while no
    case waits, and judges what waits as soon as the run knows its unit."""
    import types
    plan = types.SimpleNamespace(progress=None)
    answered = engine.Answered(plan)

    class Unmeasured:
        asked = 0

        def unit_if_measured(self):
            self.asked += 1

    run = Unmeasured()
    answered.meanwhile(run)
    assert run.asked == 0           # nothing waits: not even the question
    judged = []
    answered._judge = judged.append
    answered.add(0, None, [], [])
    answered.meanwhile(run)
    assert run.asked == 1 and judged == []      # the unit is not known yet
    run.unit_if_measured = lambda: 0.05
    answered.meanwhile(run)
    assert judged == [0.05]
