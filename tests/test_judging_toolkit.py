"""The judges' toolkit (grader/judging): feedback blocks, pairs, baselines, credit withdrawn.

Each piece is written once and used by every judge; these tests hold it to its
contract, and the last ones hold every judge to CPU time (never wall time).
"""
import pytest

from grader import exercises, fixtures
from grader.exercises import base
from grader.judging import answers, feedback, review
from grader.sandbox.session import Reply


def case(hidden=False, name='c1'):
    return base.Case(name=name, input={}, expected={}, source='sheet', hidden=hidden)


def note(hidden=False):
    return feedback.Note(case(hidden), ['call()', 'board'], 'expected: 3', no_expected=('work',))


def test_a_failed_verdict_draws_the_block_in_order():
    outcome = note().outcome('values', False, 'value 2', returned='(2, 4)', cause='Look here.',
                             lines=['drawing', ''])
    assert outcome.feedback.split('\n') == ['call()', 'board', 'returned: (2, 4)', 'drawing',
                                            'expected: 3', 'Look here.']
    assert not outcome.passed and outcome.message == 'value 2'


def test_a_passed_verdict_carries_no_feedback():
    outcome = note().outcome('values', True, 'value 3', returned='(3, 4)', cause='Look here.')
    assert outcome.passed and outcome.feedback == ''


@pytest.mark.parametrize('hidden,check,shown', [(False, 'values', True), (True, 'values', False),
                                                (False, 'work', False)])
def test_the_expected_answer_is_shown_on_public_cases_of_answer_checks_only(hidden, check, shown):
    outcome = note(hidden).outcome(check, False, 'wrong')
    assert ('expected: 3' in outcome.feedback) == shown
    assert 'expected: 3' not in note().outcome(check, False, 'wrong', expected=False).feedback


def test_failing_every_check_gives_each_its_own_measurements():
    failed = note().fail(['values', 'moves'], 'crashed', measured={'entry': 'x'})
    assert [o.check for o in failed] == ['values', 'moves'] and not any(o.passed for o in failed)
    failed[0].measured['swapped'] = True
    assert failed[1].measured == {'entry': 'x'}


def test_a_reply_without_an_answer_fails_with_its_reason_and_the_timeout_cause():
    timeout = Reply(status='timeout', limit=2.0, cpu=2.0, error='')
    failed = note().fail_reply(['values'], timeout, timeout_cause='An endless loop?')
    assert failed[0].message == 'timed out after 2.00 s of CPU time'
    assert failed[0].feedback.endswith('An endless loop?')
    error = Reply(status='error', error='ValueError: x')
    failed = note().fail_reply(['values'], error, timeout_cause='An endless loop?')
    assert failed[0].message == 'ValueError: x' and 'endless' not in failed[0].feedback


def test_the_time_check_reports_cpu_time_and_needs_the_right_answer():
    reply = Reply(status='ok', cpu=0.25, wall=7.5, limit=1.0)
    right = note().timed('timeouts', reply, True, 'the value is wrong')
    assert right.passed and right.message == '0.25 s of 1.00 s of CPU time'
    wrong = note().timed('timeouts', reply, False, 'the value is wrong', detail='minimax')
    assert not wrong.passed
    assert wrong.message == '0.25 s of 1.00 s of CPU time (minimax), but the value is wrong'


def test_a_tampered_count_is_not_measured_and_marked():
    measured = {'nodes': 3}
    outcome = note().tampered('work', 'the counter was re-bound', measured, where='trip 2: ')
    assert outcome.kind == 'not measured' and not outcome.passed
    assert outcome.message == 'trip 2: measurement tampered: the counter was re-bound'
    assert review.tampered([outcome], 'work') and not review.tampered([outcome], 'values')


def item(kind, **fields):
    return dict(fields, kind=kind)


def single(one):
    return {'shape': 'single', 'item': one}


def sequence(*items, length=None):
    return {'shape': 'sequence', 'length': len(items) if length is None else length,
            'items': list(items)}


@pytest.mark.parametrize('result,problem,detail', [
    (single(item('none')), 'none', None),
    (single(item('int', value=3)), 'number', 3),
    (single(item('other', type='dict')), 'other', 'dict'),
    (sequence(item('int', value=1), item('int', value=2), item('int', value=3)), 'length', 3),
    (sequence(item('str', repr="'a'"), item('int', value=2)), 'value', 'str'),
])
def test_a_pair_that_is_not_two_whole_numbers_says_what_it_is(result, problem, detail):
    pair = answers.read_pair(result)
    assert (pair.problem, pair.detail) == (problem, detail)
    assert pair.sentence({problem: 'got {detail}'}) == f'got {detail}'


def test_a_pair_reads_its_value_and_move_and_a_bare_number_keeps_its_value():
    pair = answers.read_pair(sequence(item('int', value=-1), item('int', value=4)))
    assert (pair.value, pair.move, pair.problem) == (-1, 4, None)
    assert answers.read_pair(sequence(item('int', value=1), item('none'))).move is None
    assert answers.read_pair(single(item('int', value=7))).value == 7


def test_returned_values_in_words():
    assert answers.returned_text(sequence(item('int', value=1), item('float', repr='0.5'))) == \
        '(1, 0.5)'
    assert answers.returned_text(sequence(item('int', value=1), length=5)) == '(1, ...)'
    assert answers.returned_text(single(item('none'))) == 'None'
    assert answers.describe_item(item('other', type='list')) == 'a list'
    assert answers.describe_item(item('int-subclass', value=3, type='Liar')) == 'a Liar'
    assert answers.plain_number(item('float', repr='inf')) is None
    assert answers.truth(item('int', value=0, type='int')) is False


def test_baseline_cases_and_their_times():
    made = review.baseline_cases(2, reps=(1, 6))
    assert [c.name for c in made] == ['baseline-1', 'baseline-2', 'baseline-3', 'baseline-4']
    assert [c.input['reps'] for c in made] == [1, 1, 6, 6] and made[0].tags == ('baseline',)
    city = review.baseline_cases(1, label='baseline-large', network='large')
    assert city[0].name == 'baseline-large-1' and city[0].input == {'network': 'large'}
    replies = [Reply(status='ok', cpu=0.5), Reply(status='crashed', cpu=9.0)]
    recorded = [review.baseline_outcome(c, r, network=n)
                for c, r, n in zip(made, replies, ['large', 'small'])]
    assert review.baselines(recorded) == [(0, 0.5)]
    assert review.baselines(recorded, network='small') == []


def test_withdrawn_credit_fails_only_passed_outcomes_of_the_checks_named():
    outcomes = [base.Outcome('values', 'a', True), base.Outcome('values', 'b', False, 'wrong'),
                base.Outcome('terminal', 'a', True)]
    assert review.withdraw_unsearched(outcomes, ['values'], 'no search here') == 1
    assert (outcomes[0].passed, outcomes[0].kind, outcomes[0].message) == \
        (False, 'no search', 'no search here')
    assert outcomes[1].message == 'wrong' and outcomes[2].passed
    review.withdraw_uncounted(outcomes, 'terminal', 'the counts did not hold')
    assert outcomes[2].message == 'could not be counted: the counts did not hold'


def test_median():
    assert review.median([]) is None and review.median([None]) is None
    assert review.median([3, 1, 2, 4], 2) == 2.5


# -- every judge times with CPU seconds ------------------------------------------

def eightpuzzle_reply(start):
    from grader.exercises.eightpuzzle import puzzle
    from reference.oracles import puzzle_table
    path = [tuple(start)]
    while path[-1] != puzzle.GOAL:
        path.append(min(puzzle.successors(path[-1]), key=puzzle_table.distance))
    states = [list(s) for s in path]
    return {'returned': {'kind': 'path', 'type': 'list', 'length': len(states), 'states': states},
            'reconstructed': None, 'printed': '',
            'expansions': {'method': 40, 'instance': 40, 'intact': True, 'tamper': [],
                           'distinct': 40, 'reps': [40], 'heuristics': {}}}


def test_the_eight_puzzle_times_its_cases_with_cpu_time_not_wall_time(policy):
    exercise = exercises.get('eightpuzzle')
    settings = policy.exercises['eightpuzzle']
    cases, _, _ = fixtures.load_cases(exercise, settings)
    required = next(c for c in cases if 'required' in c.tags and 'heuristic' not in c.tags
                    and 'hard' not in c.tags and not c.hidden)
    reply = Reply(status='ok', observation=eightpuzzle_reply(required.input['state']),
                  cpu=0.25, wall=7.5, limit=3.0)
    timed = next(o for o in exercise.judge(required, [reply], settings) if o.check == 'timeouts')
    assert timed.passed and timed.message == '0.25 s of 3.00 s of CPU time'
    assert timed.measured['seconds'] == 0.25


def test_a_text_the_submission_returned_can_be_left_out():
    result = sequence(item('int', value=0), item('str', repr="'board X-O'"))
    assert answers.returned_text(result) == "(0, 'board X-O')"
    assert answers.returned_text(result, answers.type_text) == '(0, str)'


def test_a_sentence_across_cases_names_no_count_of_a_hidden_case():
    """The eight puzzle's reason for counts it cannot believe quotes a public start's
    count and floor, never a drawn one's; and a public outcome or fact whose words still
    name a hidden or drawn case is said without them."""
    from grader.exercises.eightpuzzle.judge import EXERCISE
    from grader.judging import evidence
    from grader.judging import outcomes as kinds
    found = evidence.Evidence(evidence.NOT_COUNTED, 'counts below the floor',
                              details={'case': 'generated-6'})
    public = EXERCISE._reason(found, [evidence.Sample('generated-6', [53], 0.1, 106)])
    assert '53' in public and '106' in public                      # the test can fail
    hidden = EXERCISE._reason(found, [evidence.Sample('generated-6', [53], 0.1, 106,
                                                      hidden=True)])
    assert hidden == 'counts below the floor'
    labels = {'generated-6': 'generated-2', 'zqx-secret': 'hidden-1'}
    quoting = base.Outcome('heuristic', 'easy-1', False, 'could not be counted: 53 expansions '
                           'counted on generated-6', 'start\nsee generated-6: 106', {},
                           'not measured')
    kept = base.Outcome('heuristic', 'easy-2', False, 'generated-61 moves', 'start', {})
    drawn = base.Outcome('heuristic', 'generated-6', False, 'the answer is 106', 'x', {'n': 1})
    said = kinds.redacted([quoting, kept, drawn], labels)
    assert said[0].message == 'could not be measured (decided on a hidden case)'
    assert said[0].feedback == 'start'
    assert said[1].message == 'generated-61 moves'                 # another word: kept
    assert (said[2].case, said[2].message, said[2].feedback, said[2].measured) == \
        ('generated-2', '', '', {}) and said[2].kind == kinds.HIDDEN
    facts = kinds.scrubbed({'evidence': {'reason': '53 on zqx-secret', 'spread': 2.0}}, labels)
    assert facts == {'evidence': {'reason': kinds.ON_A_HIDDEN_CASE, 'spread': 2.0}}


@pytest.mark.parametrize('works, shown', [
    ([0.001, 0.06], False),         # one case slowed by the load: no search shown
    ([0.03, 0.06], True),
    ([0.001, 0.001, 0.5], False),
    ([0.001, 0.03, 0.5], True),
    ([0.001, 0.001, 0.06, 0.06], False),
    ([], False),
])
def test_one_slowed_case_never_shows_a_search_by_time(works, shown):
    """The time evidence reads the lower median of the heavy cases: with two, the smaller."""
    from grader.judging import evidence
    assert evidence.searched_by_time(works, 0.02) is shown
