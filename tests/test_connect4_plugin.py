"""Connect four plug-in: probe measurements, judging details, plays_well.

The probe's answers are read in-process on trusted files (the reference and example
submissions); its counts only exist in a sandbox (the C counter, read by the runner), so
the tests of counts run the probe there.
"""
import importlib.util
import shutil
import time
from dataclasses import replace

import jsonschema
import pytest
import yaml

from grader.config import CheckSettings
from grader.exercises import base
from grader.exercises.connect4 import probe, rules
from grader.exercises.connect4.judge import EXERCISE
from grader.judging import tallies
from grader.sandbox import layers
from grader.sandbox.session import Reply, Session
from gradertest import ROOT, SUBMISSIONS, read_yaml

CASES = {c['name']: c for c in
         read_yaml(ROOT / 'fixtures' / 'connect4.yaml')['cases']}
VARIANTS = SUBMISSIONS / 'connect4'
VALIDATOR = jsonschema.Draft202012Validator(EXERCISE.observation_schema)
ISOLATION = layers.detect()


class Ctx:
    perf_counter = staticmethod(time.perf_counter)


def module(path):
    spec = importlib.util.spec_from_file_location(f'c4_{path.stem}', path)
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


def case(name, hidden=False):
    raw = CASES[name]
    return base.Case(raw['name'], raw['input'], raw['expected'], raw['source'],
                     tuple(raw['tags']), hidden)


def search(path, name, entry='alphabetapruning', fallback=False, tmp_path=None):
    """``(observation, counted)`` of one search request run in a sandbox on ``path``."""
    raw = CASES[name]
    payload = {'task': 'search', 'entry': entry, 'fallback': fallback, 'count': True,
               'board': raw['input']['board'], 'depth': raw['input']['depth']}
    folder = tmp_path / path.stem
    folder.mkdir()
    shutil.copy(path, folder / 'connect4.py')
    with Session(folder, 'connect4.py', 'grader.exercises.connect4.probe',
                 isolation=ISOLATION) as box:
        assert box.start().ok
        reply = box.call(payload, 20.0)
    assert reply.ok, reply.error
    assert VALIDATOR.is_valid(reply.observation)
    return reply.observation, tallies.counted(reply, unit='leaves')


@pytest.mark.parametrize('variant', ['alphabeta_make_unmake.py', 'alphabeta_deepcopy.py'])
def test_probe_counts_leaves_and_nodes_as_the_oracle(variant, tmp_path):
    name = 'full-columns-d5'
    obs, counted = search(VARIANTS / variant, name, tmp_path=tmp_path)
    expected = CASES[name]['expected']
    assert counted.intact, counted.problem
    assert counted.traced == expected['alphabeta_leaves']
    assert counted.nodes[0] - 1 == expected['alphabeta_nodes']   # the root is a call, no move
    assert obs['board_after'] == CASES[name]['input']['board']
    assert obs['moves_after'] == {'kind': 'int', 'value': obs['moves_before'], 'type': 'int'}


def test_the_fallback_search_is_counted_like_any_other(tmp_path):
    """The fallback (``minimax``, sent once the placeholder's reply is in) calls no code of
    the submission outside its counted run: an honest plain minimax's counts stand."""
    graded, counted = search(VARIANTS / 'minimax_only.py', 'middle-11-d4', 'minimax', True,
                             tmp_path=tmp_path)
    assert counted.intact, counted.problem
    assert counted.traced == CASES['middle-11-d4']['expected']['minimax_leaves']
    assert graded['entry'] == 'minimax'


def test_direct_call_returns_the_raw_answer():
    raw = CASES['block-column-d4']
    payload = {'task': 'search', 'entry': 'minimax', 'fallback': True,
               'board': raw['input']['board'], 'depth': raw['input']['depth']}
    value, column = probe.direct_call(module(VARIANTS / 'minimax_only.py'), payload, {})
    assert value == raw['expected']['value'] and column in raw['expected']['best_moves']
    evaluated = probe.direct_call(module(ROOT / 'student_template' / 'connect4.py'),
                                  {'task': 'evaluate', 'board': raw['input']['board']}, {})
    assert evaluated == raw['expected']['evaluation']


def reply(observation, wall=0.1, limit=2.0, leaves=100, moves=150):
    """A reply as the session gives it: the counts in the tally the runner read."""
    slot = {'nodes': moves + 1 if moves else 0, 'calls': moves + leaves + 1, 'leaves': leaves,
            'depth': 8, 'recursive': 1, 'flags': 0, 'closed': True}
    tally = {'runs': 1, 'flags': 0, 'slots': [slot], 'others_ns': 0, 'main_ns': 0}
    return Reply(status='ok', observation=observation, wall=wall, limit=limit, tally=tally)


def judged(name, result, hidden=False, **changes):
    """Judge one case from a hand-made alphabetapruning observation."""
    c = case(name, hidden)
    counts = {'leaves': changes.pop('leaves', 100), 'moves': changes.pop('moves', 150)}
    obs = {'task': 'search', 'entry': 'alphabetapruning', 'missing': False,
           'result': result, 'board_after': list(c.input['board']),
           'moves_before': 4, 'moves_after': {'kind': 'int', 'value': 4}}
    obs.update(changes)
    fallback = dict(obs, entry='minimax')     # (not graded: the search answered)
    for observation in (obs, fallback):
        assert VALIDATOR.is_valid(observation)
    settings = replace_settings()
    return {o.check: o for o in EXERCISE.judge(c, [reply(obs, **counts),
                                                   reply(fallback, leaves=0, moves=0)],
                                               settings)}


def pair(first, second):
    return {'shape': 'sequence', 'length': 2,
            'items': [{'kind': 'int', 'value': first}, {'kind': 'int', 'value': second}]}


def replace_settings(**checks):
    from grader import config
    settings = config.load(ROOT / 'grading.yaml').exercises['connect4']
    merged = dict(settings.checks)
    for name, params in checks.items():
        merged[name] = CheckSettings(name, 0.0, 'proportional', params=params)
    return replace(settings, checks=merged)


def test_swapped_pair_is_graded_the_other_way_round_less_the_interface_points():
    outcomes = judged('block-column-d4', pair(4, -50))
    assert outcomes['values'].passed and outcomes['moves'].passed
    assert outcomes['values'].measured['swapped']
    _, facts = EXERCISE.review(list(outcomes.values()), replace_settings(), {'unit': 0.05})
    assert facts['deduction']['points'] == 0.5
    assert 'instead of (value, column)' in facts['deduction']['reason']
    straight = judged('block-column-d4', pair(-50, 4))
    assert 'deduction' not in EXERCISE.review(list(straight.values()), replace_settings(),
                                              {'unit': 0.05})[1]


def test_row_instead_of_column_is_named_and_board_drawn():
    # block-column-d4: the best column 4 holds three pieces, so its piece lands on row 3.
    outcomes = judged('block-column-d4', pair(-50, 3))
    moves = outcomes['moves']
    assert outcomes['values'].passed and not moves.passed
    assert 'row where the piece lands' in moves.feedback
    assert rules.render_board(rules.parse_board(CASES['block-column-d4']['input']['board'])) \
        in moves.feedback
    assert 'returned: (-50, 3)' in moves.feedback and 'expected: value -50' in moves.feedback
    assert not outcomes['balance'].passed and not outcomes['timeouts'].passed


def test_hidden_case_keeps_only_whether_it_passed():
    from grader.judging import outcomes as kinds
    outcomes = judged('block-column-d4', pair(-12, 2), hidden=True)
    assert any(not o.passed for o in outcomes.values())     # the test can fail
    for outcome in outcomes.values():
        shown = kinds.redact(outcome, 'hidden-1')
        assert shown.case == 'hidden-1' and shown.feedback == '' and not shown.measured
        assert shown.message == '' and shown.passed == outcome.passed
        assert shown.kind == ('right' if outcome.passed else kinds.HIDDEN)


def test_board_left_changed_fails_balance_only():
    c = case('block-column-d4')
    after = list(c.input['board'])
    after[0] = 'o' + after[0][1:]
    outcomes = judged('block-column-d4', pair(-50, 4), board_after=after,
                      moves_after={'kind': 'int', 'value': 5})
    assert outcomes['values'].passed and outcomes['moves'].passed
    assert not outcomes['balance'].passed
    assert 'row 5 column 0' in outcomes['balance'].message
    assert 'self.moves changed from 4 to 5' in outcomes['balance'].message


def test_pruning_margin_on_leaves():
    expected = CASES['block-column-d4']['expected']
    prunes = judged('block-column-d4', pair(-50, 4), leaves=expected['alphabeta_leaves'])
    full = judged('block-column-d4', pair(-50, 4), leaves=expected['minimax_leaves'])
    wrong = judged('block-column-d4', pair(-43, 4), leaves=expected['alphabeta_leaves'])
    assert prunes['pruning'].passed
    assert not full['pruning'].passed and 'no pruning' in full['pruning'].message
    assert not wrong['pruning'].passed
    facts = EXERCISE.facts(list(prunes.values()), replace_settings())
    _, reviewed = EXERCISE.review(list(prunes.values()), replace_settings(), {'unit': 0.05})
    assert reviewed['prunes'] and facts['entry'] == 'alphabetapruning'
    assert facts['leaf_ratios'] == {'block-column-d4': round(
        expected['alphabeta_leaves'] / expected['minimax_leaves'], 4)}


def test_placeholder_grades_minimax_and_timeout_fails_every_check():
    c = case('centre-reply-d6')
    none = {'task': 'search', 'entry': 'alphabetapruning', 'missing': False,
            'result': {'shape': 'single', 'item': {'kind': 'none'}}, 'board_after': None,
            'moves_before': 1, 'moves_after': {'kind': 'none'}}
    timeout = Reply(status='timeout', wall=27.0, limit=27.0)
    search = outcomes = EXERCISE.judge(c, [reply(none, leaves=0, moves=0), timeout],
                                       replace_settings())
    assert {o.check for o in search} == {'values', 'moves', 'timeouts', 'balance', 'pruning'}
    assert all(not o.passed and 'timed out' in o.message for o in search)
    assert 'minimax(board, 6' in search[0].feedback
    assert EXERCISE.facts(outcomes, replace_settings())['entry'] == 'minimax'


def test_the_fallback_request_is_sent_only_after_the_placeholder():
    """``minimax`` is called only when ``alphabetapruning`` is missing or returned None
    without searching: a search that answers, or returns None after searching, or fails,
    costs one case process, not two."""
    search = {'task': 'search', 'entry': 'alphabetapruning', 'missing': False,
              'board_after': None, 'moves_before': 1, 'moves_after': {'kind': 'none'}}
    none = {'shape': 'single', 'item': {'kind': 'none'}}
    move = {'shape': 'single', 'item': {'kind': 'int', 'value': 3}}
    needed = EXERCISE.fallback_needed
    assert needed([reply(dict(search, result=none), leaves=0, moves=0)])
    assert needed([reply(dict(search, missing=True, result=none), leaves=0, moves=0)])
    assert not needed([reply(dict(search, result=none), leaves=40, moves=60)])
    assert not needed([reply(dict(search, result=move))])
    assert not needed([reply(dict(search, result=move), leaves=0, moves=0)])
    assert not needed([Reply(status='timeout', wall=3.0, limit=2.0)])
    assert not needed([reply({'task': 'evaluate', 'value': 1})])   # another request's reply
    requests = EXERCISE.requests(case('middle-11-d4'), replace_settings())
    assert [r.payload['entry'] for r in requests] == ['alphabetapruning', 'minimax']
    assert requests[1].needed == needed


def test_plays_well_requests_only_when_games_are_set():
    c = case('empty-board-d4')
    assert len(EXERCISE.requests(c, replace_settings())) == 2
    on = replace_settings(plays_well={'games': 3, 'depth': 2})
    games = EXERCISE.requests(c, on)[2:]
    assert [g.payload['first'] for g in games] == ['o', 'x', 'o']
    assert {g.limit_key for g in games} == {'game'}
    assert len(EXERCISE.requests(case('middle-11-d4'), on)) == 2


def games_only(settings, folder):
    """``settings`` with the public cases tagged ``games`` only (a copy of the fixture file
    in ``folder``), and no position drawn: the games are played on those cases, and the
    other cases' searches (three at depth 6) are not what plays_well is about."""
    fixtures = []
    for i, path in enumerate(settings.fixtures):
        data = yaml.safe_load(path.read_text())
        data['cases'] = [c for c in data['cases'] if 'games' in c.get('tags', ())]
        assert data['cases'], f'{path}: no case tagged games'
        fixtures.append(folder / f'connect4-{i}.yaml')
        fixtures[-1].write_text(yaml.safe_dump(data, sort_keys=False))
    return replace(settings, fixtures=tuple(fixtures), generated={'count': 0})


@pytest.mark.parametrize('variant,lost', [('reference', False), ('bug_wrong_side.py', True)])
def test_plays_well_in_the_sandbox(variant, lost, policy, run, submission, tmp_path):
    from grader import engine
    path = ROOT / 'reference' / 'connect4.py' if variant == 'reference' else VARIANTS / variant
    settings = games_only(replace_settings(plays_well={'games': 2, 'depth': 3, 'max_losses': 0}),
                          tmp_path)
    patched = replace(policy, exercises={**policy.exercises, 'connect4': settings})
    games_run = engine.Run(patched, calibration=run.calibration, isolation=run.isolation)
    result = engine.grade(patched, submission('connect4', path), run=games_run,
                          only=['connect4']).exercise('connect4')
    check = next(c for c in result.checks if c.name == 'plays_well')
    assert check.cases_total == 2 and check.passed is not lost
    if lost:
        assert result.facts['games']['loss'] == 2
        assert ' 0 1 2 3 4 5 6' in check.failures[0]['feedback']
    else:
        assert result.facts['games'] == {'win': 2, 'draw': 0, 'loss': 0}


# -- the student's own evaluation: every position in one call ------------------------

def evaluation_batches(hidden_names=()):
    cases = [case(name, name in hidden_names) for name in CASES]
    extra = EXERCISE.extra_cases(cases, replace_settings())
    return cases + extra, {c.name: c for c in extra if 'evaluations' in c.tags}


def test_public_and_hidden_positions_are_evaluated_in_calls_of_their_own():
    hidden = ('centre-reply-d6', 'block-column-d4')
    cases, batches = evaluation_batches(hidden)
    public, secret = batches['evaluations'], batches['evaluations-hidden']
    graded = [c for c in cases if 'baseline' not in c.tags and 'evaluations' not in c.tags]
    assert [i['name'] for i in public.input['items']] == [c.name for c in graded
                                                           if c.name not in hidden]
    assert [i['name'] for i in secret.input['items']] == list(hidden)
    assert secret.hidden and not public.hidden
    requests = EXERCISE.requests(public, replace_settings())
    assert requests[0].payload == {'task': 'evaluations',
                                   'boards': [i['board'] for i in public.input['items']]}
    assert len(requests) == 1 + len(public.input['items'])
    # each alone only when the call for all of them failed
    assert not requests[1].needed([reply({'task': 'evaluations', 'values': []})])
    assert requests[1].needed([Reply(status='timeout', limit=1.0)])
    settings = replace_settings()
    tasks = {r.payload.get('task') for c in graded for r in EXERCISE.requests(c, settings)}
    assert tasks == {'search'}


def test_each_position_of_the_call_is_judged_under_its_own_case():
    _, batches = evaluation_batches(('centre-reply-d6',))
    batch = batches['evaluations-hidden']
    item, = batch.input['items']
    wrong = {'task': 'evaluations', 'values': [{'value': {'kind': 'int', 'value': 12345}}]}
    raised = {'task': 'evaluations', 'values': [{'error': 'raised IndexError: list index out of '
                                                          'range (line 7, in evaluation)',
                                                 'kind': 'exception'}]}
    right = {'task': 'evaluations',
             'values': [{'value': {'kind': 'int', 'value': item['expected']['evaluation']}}]}
    for observation in (wrong, raised, right):
        assert VALIDATOR.is_valid(observation)
    not_run = Reply(status='error', kind='not run', error='not needed')
    judged_as = {}
    for label, observation in (('wrong', wrong), ('raised', raised), ('right', right)):
        outcome, = EXERCISE.judge(batch, [reply(observation), not_run], replace_settings())
        assert outcome.case == 'centre-reply-d6' and outcome.check == 'evaluation'
        judged_as[label] = outcome
    assert judged_as['right'].passed and not judged_as['wrong'].passed
    assert str(item['expected']['evaluation']) not in judged_as['wrong'].message  # hidden
    assert 'IndexError' in judged_as['raised'].message and not judged_as['raised'].passed
    # The call for all of them timed out: each position's own call decides.
    alone = reply({'task': 'evaluate', 'value': {'kind': 'int',
                                                 'value': item['expected']['evaluation']}})
    outcome, = EXERCISE.judge(batch, [Reply(status='timeout', limit=1.0), alone],
                              replace_settings())
    assert outcome.passed
    # A reply that answers another number of positions than asked is no answer.
    outcome, = EXERCISE.judge(batch, [reply({'task': 'evaluations', 'values': []}), not_run],
                              replace_settings())
    assert not outcome.passed


EXITS_ON_ODD = '''
import sys
from reference_connect4 import *  # noqa


class ConnectFour(ConnectFour):
    def evaluation(self, board):
        if sum(cell != ' ' for row in board for cell in row) % 2:
            sys.exit('odd')
        return super().evaluation(board)
'''


def test_a_position_that_ends_the_call_costs_that_position_only(policy, run, submission,
                                                                tmp_path):
    """sys.exit on some positions ends the call for all of them: each is then asked alone,
    and only those positions fail."""
    from grader import engine
    variant = tmp_path / 'exits_on_odd.py'
    variant.write_text(EXITS_ON_ODD)
    folder = submission('connect4', variant)
    (folder / 'reference_connect4.py').write_text((ROOT / 'reference' / 'connect4.py').read_text())
    result = engine.grade(policy, folder, run=run, only=['connect4']).exercise('connect4')
    check = next(c for c in result.checks if c.name == 'evaluation')
    odd = {name for name, c in CASES.items()
           if sum(cell != '.' for row in c['input']['board'] for cell in row) % 2}
    assert odd and check.cases_total > check.cases_passed > 0
    public = [f for f in check.failures if not f['hidden']]
    assert all('sys.exit' in f['message'] for f in public), check.failures
    # exactly the public positions with an odd number of pieces failed (mirrored ones too)
    assert {f['case'].removesuffix('-mirrored') for f in public} == odd
    others = [c for c in result.checks if c.name in ('values', 'moves', 'timeouts', 'balance')]
    assert all(c.score == c.max_score for c in others)


LOOPS_IN_EVALUATION = '''
from reference_connect4 import *  # noqa


class ConnectFour(ConnectFour):
    def evaluation(self, board):
        while True:
            pass
'''


def test_an_evaluation_that_never_answers_costs_only_the_evaluation_check(policy, run,
                                                                          submission,
                                                                          tmp_path):
    """The search is graded with the sheet's evaluation, so only the evaluation check fails;
    and after stop_after_timeouts positions in a row time out alone, the rest are not run."""
    from grader import engine
    settings = replace(policy.exercises['connect4'], min_seconds=0.3,
                       factors={**policy.exercises['connect4'].factors, 'default': 8})
    course = replace(policy, exercises={**policy.exercises, 'connect4': settings})
    variant = tmp_path / 'loops_in_evaluation.py'
    variant.write_text(LOOPS_IN_EVALUATION)
    folder = submission('connect4', variant)
    (folder / 'reference_connect4.py').write_text((ROOT / 'reference' / 'connect4.py').read_text())
    quick = engine.Run(course, calibration=run.calibration, isolation=run.isolation)
    result = engine.grade(course, folder, run=quick, only=['connect4']).exercise('connect4')
    for check in result.checks:
        if check.name == 'evaluation':
            assert check.cases_passed == 0 and check.cases_total > 3
        elif check.max_score > 0:
            assert check.score == check.max_score, (check.name, check.message)
    evaluation = next(c for c in result.checks if c.name == 'evaluation')
    public = [f['message'] for f in evaluation.failures if not f['hidden']]
    stop = settings.stop_after_timeouts
    assert all(m.startswith('timed out') for m in public[:stop]), public[:stop + 1]
    assert public[stop:] and all(m.startswith('not run') for m in public[stop:]), public
