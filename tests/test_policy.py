"""The course policy: best N of M, requirements on combinations, partial credit, late penalty.

Synthetic exercise results stand in for graded ones, so every rule is tested
on exact scores; the last tests load the rules from grading.yaml text.
"""
from datetime import datetime, timezone
from types import SimpleNamespace

import pytest
import yaml

from grader import config, scoring
from grader.errors import UserError
from grader.exercises.base import Check, Outcome
from grader.model import ExerciseResult
from gradertest import ROOT

TTT, C4, EP = 'tictactoe', 'connect4', 'eightpuzzle'
PRUNING_RULE = config.Requirement(
    together=(TTT, C4), fact='prunes', at_least=1,
    explain='Tic-tac-toe and connect four count together only if at least one of them '
            'uses alpha-beta pruning')


def oulu(count=2, requirements=(PRUNING_RULE,)):
    """The Oulu exercise 1 rule: best 2 of 3, each 2.5, the pruning requirement."""
    return config.Assignment(name='oulu-exercise-1', title='Oulu exercise 1',
                             exercises=(TTT, C4, EP), count=count, max_score=2.5 * count,
                             requirements=list(requirements))


def done(name, score, prunes=None):
    facts = {} if prunes is None else {'prunes': prunes}
    return ExerciseResult(name=name, title=name, score=score, max_score=2.5, submitted=True,
                          file=f'{name}.py', facts=facts)


def missing(name):
    return ExerciseResult(name=name, title=name, score=0.0, max_score=2.5, submitted=False,
                          error=f'{name}.py not found')


def choose(*results, assignment=None):
    counted, total, explanation = scoring.choose(assignment or oulu(), list(results))
    return counted, total, '\n'.join(explanation)


# -- best 2 of 3 --------------------------------------------------------------
def test_best_two_of_three_drop_the_lowest():
    counted, total, text = choose(done(TTT, 2.5, prunes=True), done(C4, 2.0, prunes=False),
                                  done(EP, 1.0))
    assert counted == [TTT, C4] and total == 4.5
    assert 'best 2 of the 3' in text
    assert 'Counted: tictactoe (2.5) + connect4 (2) = 4.5 of 5.' in text
    assert 'eightpuzzle (1, not among the best 2)' in text
    assert 'pruning' not in text                     # the rule did not decide anything


def test_all_three_full_marks_count_five():
    counted, total, _ = choose(done(TTT, 2.5, True), done(C4, 2.5, True), done(EP, 2.5))
    assert total == 5 and len(counted) == 2


def test_equal_totals_follow_the_assignment_order():
    counted, total, _ = choose(done(EP, 2.0), done(C4, 2.0, True), done(TTT, 2.0, True))
    assert counted == [TTT, C4] and total == 4


# -- the alpha-beta requirement -----------------------------------------------
def test_no_pruning_in_either_game_the_eight_puzzle_replaces_the_weaker():
    counted, total, text = choose(done(TTT, 2.5, prunes=False), done(C4, 2.0, prunes=False),
                                  done(EP, 1.0))
    assert counted == [TTT, EP] and total == 3.5
    assert 'uses alpha-beta pruning ("prunes" holds for neither)' in text
    assert 'so tictactoe (2.5) counts and connect4 does not' in text
    assert 'connect4 (2, by the rule above)' in text


def test_the_better_game_is_kept_whichever_it_is():
    counted, total, _ = choose(done(TTT, 1.0, prunes=False), done(C4, 2.5, prunes=False),
                               done(EP, 2.0))
    assert counted == [C4, EP] and total == 4.5


def test_pruning_in_one_game_lets_the_pair_count():
    for ttt_prunes, c4_prunes in ((True, False), (False, True)):
        counted, total, text = choose(done(TTT, 2.5, ttt_prunes), done(C4, 2.0, c4_prunes),
                                      done(EP, 1.9))
        assert counted == [TTT, C4] and total == 4.5
        assert 'rule' not in text


def test_pruning_pair_against_a_better_eight_puzzle():
    # The rule only forbids; the best allowed choice still wins.
    counted, total, _ = choose(done(TTT, 1.0, True), done(C4, 0.5, False), done(EP, 2.5))
    assert counted == [TTT, EP] and total == 3.5


def test_no_replacement_left_the_place_counts_zero():
    counted, total, text = choose(done(TTT, 2.5, prunes=False), done(C4, 2.0, prunes=False),
                                  missing(EP))
    assert counted == [TTT] and total == 2.5
    assert 'One place is left empty (0 points): no other submitted exercise may count' in text
    assert 'Not submitted: eightpuzzle.' in text


def test_a_zero_score_game_dropped_by_the_rule_is_still_explained():
    counted, total, text = choose(done(TTT, 2.5, prunes=False), done(C4, 0.0, prunes=False))
    assert counted == [TTT] and total == 2.5
    assert '"prunes" holds for neither' in text and 'connect4 (0, by the rule above)' in text


def test_requirement_variants_need_no_code():
    both = config.Requirement((TTT, C4), 'prunes', at_least=2)
    counted, total, text = choose(done(TTT, 2.5, True), done(C4, 2.0, False), done(EP, 1.0),
                                  assignment=oulu(requirements=[both]))
    assert counted == [TTT, EP] and total == 3.5
    assert 'count together only if at least 2 of them has the fact "prunes"' in text
    assert '"prunes" holds only for tictactoe' in text
    counted, total, _ = choose(done(TTT, 2.5, False), done(C4, 2.0, False), done(EP, 1.0),
                               assignment=oulu(count=3))
    assert counted == [TTT, EP] and total == 3.5      # best 3 of 3, the pair still excluded


# -- what was submitted ---------------------------------------------------------
def test_only_one_exercise_submitted():
    counted, total, text = choose(missing(TTT), missing(C4), done(EP, 2.0))
    assert counted == [EP] and total == 2.0
    assert 'One place is left empty (0 points): no other exercise was submitted.' in text
    assert 'Not submitted: tictactoe, connect4.' in text


def test_only_one_game_submitted_without_pruning_counts():
    counted, total, text = choose(done(TTT, 2.5, prunes=False), missing(C4), missing(EP))
    assert counted == [TTT] and total == 2.5
    assert 'rule' not in text and 'pruning' not in text


def test_nothing_submitted_scores_zero():
    counted, total, text = choose(missing(TTT), missing(C4), missing(EP))
    assert counted == [] and total == 0
    assert 'No exercise of this assignment was found' in text


def test_exercises_left_out_of_a_run_count_as_not_submitted():
    counted, total, _ = choose(done(C4, 2.0, False))
    assert counted == [C4] and total == 2.0


# -- partial credit -----------------------------------------------------------
def settings(partial, points=1.0, hidden_visibility='after_published'):
    check = config.CheckSettings('values', points, partial, 'visible', {},
                                 hidden_visibility=hidden_visibility)
    return SimpleNamespace(checks={'values': check})


def outcomes(passed, failed, prefix='case'):
    return ([Outcome('values', f'{prefix}-{i}', True, 'ok') for i in range(passed)] +
            [Outcome('values', f'{prefix}-f{i}', False, f'wrong {i}', feedback='expected: +1')
             for i in range(failed)])


def test_proportional_credit_splits_points_by_cases_passed():
    check = scoring.check_result('values', settings('proportional'), outcomes(3, 1))
    assert check.score == 0.75 and not check.passed
    assert check.message == '3/4 cases passed; case-f0: wrong 0'
    check = scoring.check_result('values', settings('proportional', points=2.5), outcomes(2, 1))
    assert check.score == pytest.approx(1.6667)


def test_all_or_nothing_gives_the_points_only_when_every_case_passes():
    assert scoring.check_result('values', settings('all_or_nothing'), outcomes(3, 1)).score == 0
    full = scoring.check_result('values', settings('all_or_nothing'), outcomes(4, 0))
    assert full.score == 1.0 and full.passed


def test_a_check_without_cases_earns_nothing():
    check = scoring.check_result('values', settings('proportional'), [])
    assert check.score == 0 and not check.passed and check.message == 'no cases for this check'


@pytest.mark.parametrize('partial', ['proportional', 'all_or_nothing'])
def test_hidden_cases_split_the_check_and_are_counted_never_listed(partial):
    public = outcomes(3, 1)
    hidden = outcomes(1, 1, prefix='secret')
    hidden_names = {o.case for o in hidden}
    declared = Check('values', 'the value of the position', 1.0)
    check = scoring.check_result('values', settings(partial, points=2.0), public + hidden,
                                 hidden_names, declared)
    parts = check.split
    assert parts['public']['cases_total'] == 4 and parts['hidden']['cases_total'] == 2
    assert parts['public']['score'] + parts['hidden']['score'] == pytest.approx(check.score)
    assert parts['public']['max_score'] + parts['hidden']['max_score'] == pytest.approx(2.0)
    assert parts['hidden']['visibility'] == 'after_published'
    assert [f['case'] for f in check.failures] == ['case-f0']     # the public failure only
    assert all(f['feedback'] and not f['hidden'] for f in check.failures)
    assert parts['hidden']['message'] == ('values: not shown to hold on 1 of 2 hidden cases '
                                          '(the value of the position)')
    assert 'secret' not in check.message and 'wrong 0' in check.message
    only_hidden = scoring.check_result('values', settings(partial), outcomes(2, 0) + hidden,
                                       hidden_names, declared)
    assert only_hidden.message == '3/4 cases passed; ' + parts['hidden']['message']
    if partial == 'proportional':
        assert parts['public']['score'] == 1.0 and parts['hidden']['score'] == pytest.approx(1 / 3,
                                                                                          abs=1e-4)


def test_no_split_without_hidden_cases():
    assert scoring.check_result('values', settings('proportional'), outcomes(2, 2)).split == {}


# -- the late penalty ---------------------------------------------------------
RULE = {'deadline': '2024-02-01T23:59:00+02:00', 'per_day': 0.1, 'max': 0.5,
        'grace_minutes': 15}


@pytest.mark.parametrize('submitted,days,share', [
    ('2024-02-01T23:59:00+02:00', None, 0.0),        # on time
    ('2024-02-02T00:10:00+02:00', None, 0.0),        # within the grace minutes
    ('2024-02-02T00:20:00+02:00', 1, 0.1),           # a started day late
    ('2024-02-01T22:30:00Z', 1, 0.1),                # the same moment in another zone
    ('2024-02-04T23:59:00+02:00', 3, 0.3),           # exactly three days (+ grace)
    ('2024-02-20T12:00:00+02:00', 19, 0.5),          # capped at max
])
def test_late_penalty_per_started_day(submitted, days, share):
    final, details = scoring.late_penalty(RULE, submitted, 4.0)
    assert final == pytest.approx(4.0 * (1 - share))
    assert details['late'] is (days is not None)
    if days:
        assert details['days_late'] == days and details['penalty_share'] == share
        assert details['score_before_penalty'] == 4.0
        assert scoring.late_sentence(details, final).startswith(f'Submitted {days} day(s) late')


def test_late_penalty_zero_after_a_cutoff():
    rule = dict(RULE, zero_after_days=7)
    assert scoring.late_penalty(rule, '2024-02-08T12:00:00+02:00', 4.0)[0] == pytest.approx(2.0)
    assert scoring.late_penalty(rule, '2024-02-09T12:00:00+02:00', 4.0)[0] == 0


def test_late_penalty_reads_a_time_without_zone_in_the_deadlines_zone():
    _, details = scoring.late_penalty(RULE, '2024-02-02T00:20:00', 4.0)
    assert details['late'] and details['submitted_at'].endswith('+02:00')
    aware = datetime(2024, 2, 1, 21, 0, tzinfo=timezone.utc)   # 23:00 at +02:00
    assert scoring.late_penalty(RULE, aware, 4.0) == (4.0, {
        'late': False, 'submitted_at': aware.isoformat(),
        'deadline': '2024-02-01T23:59:00+02:00'})


def test_late_penalty_needs_a_rule_and_a_time():
    assert scoring.late_penalty(None, '2024-02-09T12:00:00Z', 4.0) == (4.0, {})
    assert scoring.late_penalty(RULE, None, 4.0) == (4.0, {})


def test_a_malformed_submission_time_is_a_user_error():
    with pytest.raises(UserError, match='not an ISO 8601 time'):
        scoring.late_penalty(RULE, 'yesterday', 4.0)


# -- the rules as grading.yaml text ---------------------------------------------
def policy_copy(folder, edit):
    """The repository's grading.yaml, edited by ``edit(data)``, written to ``folder``
    with every file path made absolute; returns the path."""
    data = yaml.safe_load((ROOT / 'grading.yaml').read_text())
    for exercise in data['exercises'].values():
        for key in ('fixtures', 'hidden_fixtures'):
            exercise[key] = [str(ROOT / f) for f in exercise.get(key, [])]
        exercise['options'] = config.resolve_paths(exercise.get('options', {}), ROOT)
    edit(data)
    path = folder / 'grading.yaml'
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


LATE = {'deadline': '2024-02-01T23:59:00+02:00', 'per_day': 0.1, 'max': 0.5,
        'zero_after_days': 7}


def with_late_penalty(data, rule=LATE):
    for assignment in data['assignments'].values():
        assignment['late_penalty'] = dict(rule)


def test_late_penalty_and_hidden_visibility_load_from_grading_yaml(tmp_path):
    def edit(data):
        with_late_penalty(data)
        data.setdefault('scoring', {})['hidden_visibility'] = 'hidden'
    policy = config.load(policy_copy(tmp_path, edit))
    assert all(a.late_penalty['per_day'] == 0.1 for a in policy.assignments.values())
    assert all(c.hidden_visibility == 'hidden'
               for c in policy.exercises['tictactoe'].checks.values())

    path = policy_copy(tmp_path, lambda data: with_late_penalty(
        data, dict(LATE, deadline='next friday')))
    with pytest.raises(UserError) as info:
        config.load(path)
    assert 'late_penalty.deadline' in str(info.value) and 'grading.yaml:' in str(info.value)


def test_repository_policy_states_the_oulu_rule(policy):
    oulu_policy = policy.assignments['oulu-exercise-1']
    assert set(oulu_policy.exercises) == {TTT, C4, EP}
    assert oulu_policy.count == 2 and oulu_policy.max_score == 5
    assert all(policy.exercises[n].max_score == 2.5 for n in oulu_policy.exercises)
    rule, = oulu_policy.requirements
    assert set(rule.together) == {TTT, C4} and rule.fact == 'prunes' and rule.at_least == 1
