"""Cases listed under ``time_limit.own_worker`` run in sandboxed workers of their own.

The split into lanes is configuration, never timing: the same cases run in
the same kind of child, so verdicts are the same with the split or without
it, and with ``--jobs 1`` or ``--jobs 2``.
"""
import dataclasses
import sys

import pytest

from grader import config, engine
from grader.errors import UserError
from gradertest import ROOT, SUBMISSIONS, fewer_cases, spawns, with_exercise


def with_own_worker(policy, exercise, keys):
    return with_exercise(policy, exercise, own_worker=tuple(keys))


def outcomes(result):
    return [(c.name, c.score, c.cases_passed, c.message) for c in result.checks]


def graded(policy, run, folder, jobs):
    lane_run = engine.Run(policy, calibration=run.calibration, isolation=run.isolation, jobs=jobs)
    return engine.grade(policy, folder, run=lane_run, only=['eightpuzzle']).exercise('eightpuzzle')


def test_own_lanes_give_the_same_verdicts_in_children_of_their_own(policy, run, submission,
                                                                   monkeypatch):
    folder = submission('eightpuzzle', ROOT / 'reference' / 'eightpuzzle.py')
    one_child = graded(with_own_worker(policy, 'eightpuzzle', []), run, folder, jobs=2)
    own = with_own_worker(policy, 'eightpuzzle', ['hard', 'unsolvable'])
    split = graded(own, run, folder, jobs=2)
    booted = spawns(monkeypatch)
    serial = graded(own, run, folder, jobs=1)
    # One after the other, the lanes of their own (each holds a public start) share one
    # sandbox: the main lane's ran the hidden and drawn starts after its public ones, so it
    # serves none of them.
    assert len(booted) == 2
    monkeypatch.setattr(engine.Sandboxes, 'keep', lambda self, session, hidden_seen: False)
    booted.clear()
    fresh = graded(own, run, folder, jobs=1)
    hard = policy.exercises['eightpuzzle'].check_param('hard', 'cases').split(',')
    # one sandbox for the main lane, one per hard case, one for the unsolvable case
    assert len(booted) == 1 + len(hard) + 1
    assert one_child.score == split.score == serial.score == fresh.score == one_child.max_score
    assert outcomes(one_child) == outcomes(split) == outcomes(serial) == outcomes(fresh)
    # No sandbox ended during a call: no restart is reported, however many lanes there were.
    assert {r.facts['child_starts'] for r in (one_child, split, serial, fresh)} == {1}
    assert one_child.facts['cases'] == split.facts['cases']


def test_no_sandbox_runs_a_public_case_after_a_hidden_one(policy, run, submission,
                                                          monkeypatch):
    """Whichever lanes share a sandbox (:class:`engine.Sandboxes`), its public cases come
    before its hidden and drawn ones, one lane after the other or two at a time."""
    folder = submission('eightpuzzle', ROOT / 'reference' / 'eightpuzzle.py')
    ran, replies = {}, engine.Lane._case_replies

    def recording(self, lane_run, session, done, case, *args, **kwargs):
        # keyed by the session itself, kept alive here: an id may be reused by the next
        # sandbox once one is freed, which would merge two sandboxes' cases
        ran.setdefault(session, []).append(case.hidden)
        return replies(self, lane_run, session, done, case, *args, **kwargs)
    monkeypatch.setattr(engine.Lane, '_case_replies', recording)
    for jobs in (1, 2):
        ran.clear()
        result = graded(policy, run, folder, jobs=jobs)
        assert result.score == result.max_score
        assert any(any(cases) for cases in ran.values())      # hidden and drawn cases ran
        for cases in ran.values():
            assert cases == sorted(cases), (jobs, cases)    # False (public) before True


def handed_out(monkeypatch):
    """The list of lanes each grade from now on hands out, in the order it hands them out."""
    handed, lanes_done = [], engine._Schedule.lanes_done

    def recording(self, make):
        done = lanes_done(self, make)
        handed.extend(lane for lane, _ in done)
        return done
    monkeypatch.setattr(engine._Schedule, 'lanes_done', recording)
    return handed


def test_lanes_of_their_own_are_handed_out_longest_first(policy, run, submission, monkeypatch):
    """The unsolvable case's lane (the largest limit) goes to a worker before the hard cases'
    lanes, whatever their order in the fixtures: the shorter lanes share the other worker."""
    handed = handed_out(monkeypatch)
    folder = submission('eightpuzzle', ROOT / 'reference' / 'eightpuzzle.py')
    graded(policy, run, folder, jobs=2)
    factors = policy.exercises['eightpuzzle'].factors
    assert factors['unsolvable'] > factors['hard']
    own = [[r.limit_key for _, _, requests in lane.cases for r in requests]
           for lane in handed if not lane.main]
    assert own and 'unsolvable' in own[0], own
    budgets = [lane.budget_units() for lane in handed if not lane.main]
    assert budgets == sorted(budgets, reverse=True)
    assert handed[0].main


def test_a_module_that_fails_to_import_is_reported_once(policy, run, submission):
    folder = submission('eightpuzzle', SUBMISSIONS / 'tictactoe' / 'syntax_error.py')
    result = graded(with_own_worker(policy, 'eightpuzzle', ['hard', 'unsolvable']), run, folder, 2)
    assert result.score == 0
    assert 'syntax error at line' in result.error
    assert all(c.cases_total <= 1 for c in result.checks), \
        [(c.name, c.cases_total) for c in result.checks]


def test_own_worker_keys_must_be_factors(tmp_path):
    text = (ROOT / 'grading.yaml').read_text().replace(
        'own_worker: [hard, unsolvable]', 'own_worker: [hard, unsolveable]')
    assert 'unsolveable' in text
    path = tmp_path / 'grading.yaml'
    path.write_text(text.replace('fixtures/', f'{ROOT}/fixtures/')
                    .replace('hidden/', f'{ROOT}/hidden/'))
    with pytest.raises(UserError) as error:
        config.load(path)
    assert "own_worker: 'unsolveable' is not a key of factors" in str(error.value)
    assert error.value.line == text.splitlines().index(next(
        line for line in text.splitlines() if 'unsolveable' in line)) + 1


def test_a_missing_oracle_stops_the_grade_before_any_child_starts(policy, run, tmp_path,
                                                                  monkeypatch):
    """Lanes start while later exercises are planned; what planning needs is checked first."""
    import shutil

    from grader.sandbox.session import Session
    reference = tmp_path / 'reference'
    shutil.copytree(ROOT / 'reference', reference, ignore=shutil.ignore_patterns('__pycache__'))
    (reference / 'oracles' / 'eightpuzzle.py').unlink()
    course = dataclasses.replace(policy, reference=str(reference))
    folder = tmp_path / 'submission'
    folder.mkdir()
    for name in ('tictactoe.py', 'connect4.py', 'eightpuzzle.py'):
        shutil.copy(ROOT / 'reference' / name, folder / name)
    started = []
    monkeypatch.setattr(Session, 'start', lambda self, *a, **k: started.append(self))
    lane_run = engine.Run(course, calibration=run.calibration, isolation=run.isolation, jobs=2)
    # The oracles are the package ``reference``: the copy's, imported here when this
    # process had not imported the course's yet, must not stay in its place.
    monkeypatch.setattr(sys, 'path', list(sys.path))
    imported = {name: module for name, module in sys.modules.items()
                if name.partition('.')[0] == 'reference'}
    try:
        with pytest.raises(UserError, match='no oracle for eightpuzzle'):
            engine.grade_many(course, folder, ['oulu-exercise-1'], run=lane_run)
    finally:
        for name in [name for name in sys.modules if name.partition('.')[0] == 'reference']:
            del sys.modules[name]
        sys.modules.update(imported)
    assert started == []


class FakeSandbox:
    def __init__(self, alive=True):
        self.running, self.closed = alive, False

    def alive(self):
        return self.running

    def close(self):
        self.closed = True


def test_a_sandbox_is_kept_only_while_a_lane_waits_and_only_while_it_runs():
    pool = engine.Sandboxes([(True, False)] * 3)
    assert pool.needed(2) == 2              # nothing running: as many as may run at once
    pool.begin((True, False))                        # the main lane starts
    assert pool.needed(2) == 1              # its sandbox serves one lane after it
    assert pool.needed(1) == 0
    dead, sound = FakeSandbox(alive=False), FakeSandbox()
    assert not pool.keep(dead, False)       # its runner ended: stopped by its lane
    assert pool.keep(sound, False)
    pool.end()
    assert pool.needed(2) == 1              # one lane takes the kept sandbox, one needs its own
    pool.begin((True, False))
    assert pool.take(True) == (sound, False) and pool.take(True) is None
    pool.begin((True, False))                        # every lane has started
    assert pool.waiting == 0 and pool.needed(2) == 0
    assert not pool.keep(FakeSandbox(), False)  # no lane left to take it
    pool.waiting = 1
    left = FakeSandbox()
    assert pool.keep(left, False)
    pool.close()                            # the grade ends: what no lane took is stopped
    assert left.closed and pool.take(False) is None


def test_a_sandbox_that_ran_a_hidden_case_serves_only_a_lane_of_hidden_cases():
    """Public cases before hidden ones in every sandbox, whichever lanes they came in."""
    main, public, hidden = (True, True), (True, False), (False, True)
    pool = engine.Sandboxes([main, public, hidden])
    pool.begin(main)                        # public cases, then hidden ones
    seen, clean = FakeSandbox(), FakeSandbox()
    assert pool.keep(seen, True)            # the hidden lane may take it
    assert pool.keep(clean, False)
    assert pool.take(True) == (clean, False) and pool.take(True) is None
    assert pool.take(False) == (seen, True)
    pool.begin(public)
    pool.begin(hidden)
    assert not pool.keep(FakeSandbox(), True)   # no lane left
    pool = engine.Sandboxes([main, public, public])
    pool.begin(main)
    assert not pool.keep(FakeSandbox(), True)   # the lanes left hold public cases
    assert pool.needed(2) == 1
    assert pool.keep(FakeSandbox(), False)
    assert pool.needed(2) == 0              # the clean one serves the lane that can start


def test_a_lane_that_fails_stops_the_sandbox_it_took(policy, run, submission, monkeypatch):
    folder = submission('eightpuzzle', ROOT / 'reference' / 'eightpuzzle.py')
    plan = engine.ExercisePlan.make(run, 'eightpuzzle', folder)
    lane = plan.lanes[-1]                   # a lane of its own
    assert not lane.main
    left = FakeSandbox()
    assert plan.sandboxes.keep(left, False)     # as a lane of public cases would at its end

    def interrupted(*args):
        raise KeyboardInterrupt
    monkeypatch.setattr(engine.Lane, '_grade_cases', interrupted)
    with pytest.raises(KeyboardInterrupt):
        lane.run(run, folder)
    assert left.closed and plan.sandboxes.take(False) is None


def test_cases_are_judged_while_the_next_call_runs_with_the_same_verdicts(policy, run, submission,
                                                                         monkeypatch):
    """A lane's answered cases are judged while its next call runs in the child (the unit
    known), not after its last call: the same outcomes as judging every case at the end."""
    folder = submission('eightpuzzle', ROOT / 'reference' / 'eightpuzzle.py')
    during, judge_some = [], engine.Answered.meanwhile

    def recording(self, lane_run):
        before = len(self._outcomes)
        judge_some(self, lane_run)
        during.append(len(self._outcomes) - before)
    monkeypatch.setattr(engine.Answered, 'meanwhile', recording)
    overlapped = graded(policy, run, folder, jobs=2)
    # (the unit is known: every case but each lane's last is judged during a later call)
    assert sum(during) >= overlapped.facts['cases'] // 2, (sum(during), overlapped.facts)
    monkeypatch.setattr(engine.Answered, 'meanwhile', lambda self, lane_run: None)
    at_the_end = graded(policy, run, folder, jobs=2)
    assert overlapped.score == at_the_end.score == overlapped.max_score
    assert outcomes(overlapped) == outcomes(at_the_end)
    # the facts measured in time (the evidence's rates, the searches' CPU) move from run to
    # run; which facts there are, and what the evidence concludes, do not
    assert sorted(overlapped.facts) == sorted(at_the_end.facts)
    assert overlapped.facts['evidence']['status'] == at_the_end.facts['evidence']['status']


def test_cases_dealt_to_two_main_lanes_keep_their_verdicts(policy, run, submission, monkeypatch,
                                                           tmp_path):
    """``time_limit.main_lanes: 2``: the cases are dealt in turn to two main lanes (the
    public ones first in each), each in a sandbox of its own, with the verdicts of one."""
    folder = submission('connect4', ROOT / 'reference' / 'connect4.py')
    policy = fewer_cases(policy, 'connect4', tmp_path / 'course')

    def connect4(main_lanes, jobs):
        course = with_exercise(policy, 'connect4', main_lanes=main_lanes)
        lane_run = engine.Run(course, calibration=run.calibration, isolation=run.isolation,
                              jobs=jobs)
        return engine.grade(course, folder, run=lane_run, only=['connect4']).exercise('connect4')
    one = connect4(1, 2)
    handed = handed_out(monkeypatch)
    two = connect4(2, 2)
    parts = [lane for lane in handed if lane.part is not None]
    assert [lane.part for lane in parts] == [0, 1] and parts[0].main and not parts[1].main
    for lane in parts:
        hidden = [case.hidden for _, case, _ in lane.cases]
        assert hidden == sorted(hidden)         # a lane's public cases come first
    dealt = sorted(index for lane in parts for index, _, _ in lane.cases)
    assert dealt == sorted(parts[0].plan.hangs.position)
    serial = connect4(2, 1)
    assert one.score == two.score == serial.score == one.max_score
    assert outcomes(one) == outcomes(two) == outcomes(serial)
    assert one.facts['cases'] == two.facts['cases']


def test_hidden_cases_last_fill_in_after_the_lanes_of_their_own(policy, run, submission,
                                                                  monkeypatch, tmp_path):
    """``time_limit.hidden_last``: the main lane's hidden and drawn cases run as a main lane
    of their own, handed out after every other lane, with the verdicts of one main lane; each
    sandbox still runs its public cases first, and one after the other, every lane of the
    route planner shares one sandbox."""
    folder = submission('travel', ROOT / 'reference' / 'travel')
    policy = fewer_cases(policy, 'travel', tmp_path / 'course')
    handed = handed_out(monkeypatch)
    ran, replies = {}, engine.Lane._case_replies

    def recording(self, lane_run, session, done, case, *args, **kwargs):
        # keyed by the session itself, kept alive here: an id may be reused by the next
        # sandbox once one is freed, which would merge two sandboxes' cases
        ran.setdefault(session, []).append(case.hidden)
        return replies(self, lane_run, session, done, case, *args, **kwargs)
    monkeypatch.setattr(engine.Lane, '_case_replies', recording)
    booted = spawns(monkeypatch)

    def travel(last, jobs):
        course = with_exercise(policy, 'travel', hidden_last=last)
        lane_run = engine.Run(course, calibration=run.calibration, isolation=run.isolation,
                              jobs=jobs)
        handed.clear(), ran.clear(), booted.clear()
        return engine.grade(course, folder, run=lane_run, only=['travel']).exercise('travel')
    one = travel(False, 2)
    assert not any(lane.last for lane in handed)
    assert len([lane for lane in handed if lane.part is not None]) == 1
    apart = travel(True, 2)
    main, hidden = [lane for lane in handed if lane.part is not None]
    assert main.main and not main.kind[1]               # the public cases, the import
    assert hidden.last and hidden.kind == (False, True)  # the hidden and drawn ones
    assert handed[0] is main and handed[-1] is hidden    # after the lanes of their own
    assert any(lane.part is None for lane in handed[1:-1])
    assert sorted(index for lane in (main, hidden) for index, _, _ in lane.cases) == \
        sorted(main.plan.hangs.position)                 # the same main order
    for cases in ran.values():
        assert cases == sorted(cases), cases             # False (public) before True
    serial = travel(True, 1)
    assert len(booted) == 1 and len(ran) == 1            # public, public, hidden, hidden
    assert list(ran.values())[0] == sorted(list(ran.values())[0])
    assert one.score == apart.score == serial.score == one.max_score
    assert outcomes(one) == outcomes(apart) == outcomes(serial)
    assert one.facts['cases'] == apart.facts['cases'] == serial.facts['cases']
    assert {r.facts['child_starts'] for r in (one, apart, serial)} == {1}


def test_hidden_last_is_read_from_the_policy(policy, tmp_path):
    import yaml
    document = yaml.safe_load((ROOT / 'grading.yaml').read_text())
    assert document['exercises']['travel']['time_limit']['hidden_last'] is True
    assert config.load(ROOT / 'grading.yaml').exercises['travel'].hidden_last
    assert not config.load(ROOT / 'grading.yaml').exercises['eightpuzzle'].hidden_last
    document['exercises']['travel']['time_limit']['hidden_last'] = 'yes'
    bad = tmp_path / 'grading.yaml'
    bad.write_text(yaml.safe_dump(document))
    with pytest.raises(UserError, match='hidden_last'):
        config.load(bad)
