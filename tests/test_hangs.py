"""Hangs end early: after ``stop_after_timeouts`` cases in a row time out, the rest are not run.

The score must be the one waiting would give; a submission that times out
now and then is graded in full; the verdicts never depend on timing.  The
limits here are made small (``min_seconds`` 0.05 s where every call loops) so
that the run that waits for every case stays short.
"""
import textwrap
import time

import pytest
import yaml

from grader import engine
from gradertest import ROOT, fewer_cases, spawns, with_exercise

LOOP = '''
def Minimax(board, maximizing, player):
    while True:
        pass
'''


def quick_limits(policy, exercise, stop_after, factor=0.001, floor=0.05):
    """``policy`` with every limit of ``exercise`` ``factor`` units and at least ``floor``
    seconds (by default the floor alone: a call that loops times out under any limit)."""
    factors = policy.exercises[exercise].factors
    return with_exercise(policy, exercise, min_seconds=floor,
                         factors={k: factor for k in factors},
                         stop_after_timeouts=stop_after)


def graded(policy, run, folder, exercise):
    this_run = engine.Run(policy, calibration=run.calibration, isolation=run.isolation, jobs=2)
    started = time.monotonic()
    result = engine.grade(policy, folder, run=this_run, only=[exercise]).exercise(exercise)
    return result, time.monotonic() - started


def verdicts(result):
    return [(c.name, c.score, c.passed, c.cases_passed, c.cases_total) for c in result.checks]


def failed_messages(result):
    return {(f['case'], f['message']) for c in result.checks for f in c.failures}


@pytest.mark.parametrize('main_lanes', [1, 2])
def test_a_submission_that_loops_everywhere_gets_the_score_waiting_gives(policy, run, tmp_path,
                                                                         main_lanes):
    """Whether the cases run in one main lane or are dealt to two, the stop is the third
    case in their order, and every case after it fails as not run."""
    folder = tmp_path / 'loops'
    folder.mkdir()
    (folder / 'tictactoe.py').write_text(LOOP)
    policy = with_exercise(fewer_cases(policy, 'tictactoe', tmp_path), 'tictactoe',
                           main_lanes=main_lanes)
    stopping, stopping_seconds = graded(quick_limits(policy, 'tictactoe', 3), run, folder,
                                        'tictactoe')
    waiting, waiting_seconds = graded(quick_limits(policy, 'tictactoe', 0), run, folder,
                                      'tictactoe')
    assert verdicts(stopping) == verdicts(waiting) and stopping.score == waiting.score == 0
    cases = [c['name'] for path in policy.exercises['tictactoe'].fixtures
             for c in yaml.safe_load(path.read_text())['cases']]
    assert len(cases) > 3
    messages = dict(failed_messages(stopping))
    assert all('timed out' in messages[name] and 'not run' not in messages[name]
               for name in cases[:3])
    assert all(messages[name] == engine.Hangs.NOT_RUN for name in cases[3:])
    assert not any('not run' in m for _, m in failed_messages(waiting))
    print(f'loops everywhere: {stopping_seconds:.1f} s stopping after 3, '
          f'{waiting_seconds:.1f} s waiting for every case')


@pytest.mark.parametrize('main_lanes, hanging', [(1, (0, 1, 3)), (2, (0, 1, 3)), (2, (1, 3, 5))])
def test_time_outs_that_are_not_in_a_row_stop_nothing(policy, run, tmp_path, main_lanes,
                                                      hanging):
    """The reference, except that it loops on three cases not in a row, under limits of 5
    units and at least 0.1 s (the course's are 40 units and at least 1 s): the reference
    answers every case in under 0.03 s, a tenth of them.  Dealt to two main lanes in
    turn, the second, fourth and sixth cases are all one lane's, three time-outs in a row
    of its own: in the cases' order they are not in a row, and nothing stops."""
    policy = with_exercise(policy, 'tictactoe', main_lanes=main_lanes)
    from grader import exercises, fixtures
    plugin, settings = exercises.get('tictactoe'), policy.exercises['tictactoe']
    cases = fixtures.load_cases(plugin, settings)[0]
    assert not any(cases[i].hidden for i in range(6))     # the first of the main order
    boards = [plugin.requests(cases[i], settings)[0].payload['board'] for i in hanging]
    folder = tmp_path / 'sometimes'
    folder.mkdir()
    source = (ROOT / 'reference' / 'tictactoe.py').read_text().replace('Minimax(', '_search(')
    (folder / 'tictactoe.py').write_text(source + textwrap.dedent(f'''
        _hanging = {boards!r}

        def Minimax(board, maximizing, player):
            if list(board) in _hanging:
                while True:
                    pass
            return _search(board, maximizing, player)
        '''))
    result, _ = graded(quick_limits(policy, 'tictactoe', 3, factor=5, floor=0.1), run, folder,
                       'tictactoe')
    messages = failed_messages(result)
    timed_out = {case for case, message in messages}
    assert timed_out == {cases[i].name for i in hanging}, messages
    assert not any('not run' in message for _, message in messages)


def looping_eightpuzzle(tmp_path):
    """A folder holding the reference eight puzzle with an Astar that never returns."""
    folder = tmp_path / 'loops'
    folder.mkdir()
    source = (ROOT / 'reference' / 'eightpuzzle.py').read_text()
    (folder / 'eightpuzzle.py').write_text(source + textwrap.dedent('''
        def _loop(self, state):
            while True:
                pass

        EightPuzzle.Astar = _loop
        '''))
    return folder


@pytest.fixture(scope='module')
def eightpuzzle_course(policy, tmp_path_factory):
    """The eight puzzle with two public cases of each kind (hard and unsolvable among them)
    and two drawn starts (:func:`gradertest.fewer_cases`): what a stopped lane does to the
    lanes of their own does not depend on how many cases they have."""
    return fewer_cases(policy, 'eightpuzzle', tmp_path_factory.mktemp('eightpuzzle'))


@pytest.fixture(scope='module')
def eightpuzzle_waiting(eightpuzzle_course, run, tmp_path_factory):
    """The verdicts of the looping eight puzzle when every case waits for its time-out."""
    folder = looping_eightpuzzle(tmp_path_factory.mktemp('waiting'))
    waiting, _ = graded(quick_limits(eightpuzzle_course, 'eightpuzzle', 0), run, folder,
                        'eightpuzzle')
    assert not any('not run' in m for _, m in failed_messages(waiting))
    return verdicts(waiting)


@pytest.mark.parametrize('main_lanes', [1, 2])
def test_other_lanes_of_a_stopped_exercise_are_not_run_whatever_they_did(
        eightpuzzle_course, eightpuzzle_waiting, run, tmp_path, main_lanes):
    """The eight puzzle's own-worker cases fail as not run once the main lanes stopped."""
    folder = looping_eightpuzzle(tmp_path)
    quick = with_exercise(quick_limits(eightpuzzle_course, 'eightpuzzle', 3), 'eightpuzzle',
                          main_lanes=main_lanes)
    result, _ = graded(quick, run, folder, 'eightpuzzle')
    own = {c.name: c for c in result.checks if c.name in ('hard', 'unsolvable')}
    assert own and all(c.cases_total > 0 for c in own.values())
    for check in own.values():
        assert all(f['message'].startswith(engine.Hangs.NOT_RUN) for f in check.failures)
    assert verdicts(result) == eightpuzzle_waiting


@pytest.mark.parametrize('hidden_last', [False, True])
def test_a_lane_that_starts_after_the_stop_boots_no_sandbox(
        eightpuzzle_course, eightpuzzle_waiting, run, tmp_path, monkeypatch, hidden_last):
    """One lane at a time, the own lanes (and, with ``hidden_last``, the lane of the drawn
    starts) start after the main lane stopped: their cases are judged as not run without a
    sandbox of their own, with the verdicts of waiting."""
    folder = looping_eightpuzzle(tmp_path)
    booted = spawns(monkeypatch)
    quick = with_exercise(quick_limits(eightpuzzle_course, 'eightpuzzle', 3), 'eightpuzzle',
                          hidden_last=hidden_last)
    one_at_a_time = engine.Run(quick, calibration=run.calibration, isolation=run.isolation)
    result = engine.grade(quick, folder, run=one_at_a_time,
                          only=['eightpuzzle']).exercise('eightpuzzle')
    assert len(booted) == 1, booted
    own = [c for c in result.checks if c.name in ('hard', 'unsolvable')]
    assert own and all(f['message'].startswith(engine.Hangs.NOT_RUN)
                       for c in own for f in c.failures)
    assert verdicts(result) == eightpuzzle_waiting


def test_the_limit_is_read_from_the_policy_and_checked(tmp_path):
    from grader import config
    from grader.errors import UserError
    text = (ROOT / 'grading.yaml').read_text()
    assert 'stop_after_timeouts: 3' in text
    path = tmp_path / 'grading.yaml'
    path.write_text(text.replace('fixtures/', f'{ROOT}/fixtures/')
                    .replace('stop_after_timeouts: 3', 'stop_after_timeouts: -1', 1))
    with pytest.raises(UserError) as error:
        config.load(path)
    assert 'stop_after_timeouts' in str(error.value)
    policy = config.load(ROOT / 'grading.yaml')
    assert {s.stop_after_timeouts for s in policy.exercises.values()} == {3}
