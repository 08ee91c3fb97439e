"""The library of the bugs students make, and the positions that catch them.

``tests/bugs/<exercise>/`` holds the classic mistakes of the handouts, one module each;
``grader fixtures --select`` (:mod:`grader.selection`) adds the cosmic-ray mutants of the
reference solution, sorts every variant (equivalent, honest, buggy) on the exercise's
position space and writes the pool that official grades draw from
(``reference/pools/<exercise>.json``) and the library's record
(``tests/bugs/<exercise>/library.json``).  Here: the record and the pool are those of the
current reference, the named bugs are buggy, every official grade meets several killers
of every buggy variant, and the sorting itself on a small space.  The named bugs graded
end to end are in tests/submissions (``bug_ties_min_takes_equal_bound``,
``bug_no_better_path_test``).
"""
import hashlib
import json
import random
import shutil

import pytest

from grader import generated, selection
from gradertest import ROOT

BUGS = ROOT / 'tests' / 'bugs'
EXERCISES = ('tictactoe', 'eightpuzzle')
NAMED = {'tictactoe': ['ties_min_takes_equal_bound', 'wrong_player_maximises',
                       'board_not_restored', 'last_cell_never_tried'],
         'eightpuzzle': ['no_better_path_test', 'handout_no_better_path_test',
                         'heuristic_overestimates', 'no_closed_set', 'blank_wraps_around']}


def record(exercise):
    return json.loads((BUGS / exercise / 'library.json').read_text())


def pool(exercise):
    return json.loads((ROOT / 'reference' / 'pools' / f'{exercise}.json').read_text())


def solution_digest(policy, exercise):
    trials = selection.trials_of(policy, exercise)
    source = (ROOT / 'reference' / trials.SOLUTION).read_text(encoding='utf-8')
    return 'sha256:' + hashlib.sha256(source.encode()).hexdigest()


def kills(position, bit):
    return int(position['kills'], 16) >> bit & 1


# ---------------------------------------------------------------- the draw's cover

def synthetic_pool(rng, variants, positions):
    return {'variants': [f'v{i}' for i in range(variants)],
            'positions': [{'input': {'n': p},
                           'kills': format(rng.getrandbits(variants) & rng.getrandbits(variants),
                                           'x')} for p in range(positions)]}


@pytest.mark.parametrize('seed', range(20))
def test_the_cover_meets_every_variant_as_often_as_asked(seed):
    rng = random.Random(seed)
    drawn_pool = synthetic_pool(rng, rng.randrange(1, 40), rng.randrange(1, 60))
    per_variant = rng.randrange(1, 5)
    chosen = generated.cover(drawn_pool, random.Random(seed), per_variant)
    assert len({json.dumps(i) for i in chosen}) == len(chosen), 'a position drawn twice'
    picked = [p for p in drawn_pool['positions'] if p['input'] in chosen]
    for bit in range(len(drawn_pool['variants'])):
        available = sum(kills(p, bit) for p in drawn_pool['positions'])
        assert sum(kills(p, bit) for p in picked) >= min(per_variant, available)
    assert generated.cover(drawn_pool, random.Random(seed), per_variant) == chosen


@pytest.mark.parametrize('seed', range(10))
def test_the_levels_of_killers_count_each_variant_s_killers_up_to_the_most_asked(seed):
    rng = random.Random(seed)
    drawn_pool = synthetic_pool(rng, rng.randrange(1, 40), rng.randrange(0, 60))
    masks = [int(p['kills'], 16) for p in drawn_pool['positions']]
    for most in range(5):
        levels = generated.killed_at_least(masks, most)
        for bit in range(len(drawn_pool['variants'])):
            killers = sum(mask >> bit & 1 for mask in masks)
            assert sum(level >> bit & 1 for level in levels) == min(most, killers)


# ---------------------------------------------------------------- the library as recorded

@pytest.mark.parametrize('exercise', EXERCISES)
def test_the_record_and_the_pool_are_those_of_the_current_reference(exercise, policy):
    """After a change of the reference, grader fixtures --select must run again."""
    digest = solution_digest(policy, exercise)
    assert record(exercise)['solution'] == digest, 'run grader fixtures --select'
    assert pool(exercise)['solution'] == digest, 'run grader fixtures --select'
    classic = {path.stem for path in (BUGS / exercise).glob('*.py')}
    recorded = {v['name'] for v in record(exercise)['variants'] if v['kind'] == 'classic'}
    assert classic == recorded


@pytest.mark.parametrize('exercise', EXERCISES)
def test_every_buggy_variant_has_killers_in_the_pool(exercise):
    buggy = [v['name'] for v in record(exercise)['variants'] if v['verdict'] == 'buggy']
    drawn_pool = pool(exercise)
    assert drawn_pool['variants'] == buggy
    for bit, name in enumerate(buggy):
        assert any(kills(p, bit) for p in drawn_pool['positions']), name


@pytest.mark.parametrize('exercise', EXERCISES)
def test_the_named_bugs_are_buggy(exercise):
    verdicts = {v['name']: v['verdict'] for v in record(exercise)['variants']}
    assert {name: verdicts[name] for name in NAMED[exercise]} == \
        dict.fromkeys(NAMED[exercise], 'buggy')


@pytest.mark.parametrize('exercise', EXERCISES)
def test_equivalent_mutants_are_set_aside_by_a_recorded_proof(exercise):
    variants = record(exercise)['variants']
    mutants = [v for v in variants if v['kind'] == 'mutant']
    assert mutants and all(v['operator'] and v['line'] for v in mutants)
    for variant in variants:
        if variant['verdict'] in ('equivalent', 'honest'):
            assert variant['proof'], variant['name']
        elif variant['verdict'] == 'buggy':
            assert variant['killers'] and variant['reasons'], variant['name']


@pytest.mark.parametrize('exercise', EXERCISES)
@pytest.mark.parametrize('seed', ['0' * 16, '0123456789abcdef', 'fedcba9876543210'])
def test_every_official_grade_meets_killers_of_every_buggy_variant(exercise, seed, policy):
    per_variant = policy.exercises[exercise].generated['killers']
    drawn = [json.dumps(c.input, sort_keys=True) for c in generated.draw(policy, exercise, seed)]
    drawn_pool = pool(exercise)
    for bit, name in enumerate(drawn_pool['variants']):
        killers = [json.dumps(p['input'], sort_keys=True) for p in drawn_pool['positions']
                   if kills(p, bit)]
        met = sum(1 for d in drawn if d in killers)
        assert met >= min(per_variant, len(killers)), (name, met)


# ---------------------------------------------------------------- the sorting itself

def test_select_sorts_variants_and_writes_a_pool(tmp_path, policy, monkeypatch):
    """On the first 400 positions of tic-tac-toe's space: a mutant in code grading never
    runs is equivalent, the tie bug is buggy, its killers are positions it answers wrongly,
    and the pool kills it."""
    import dataclasses
    reference = tmp_path / 'reference'
    shutil.copytree(ROOT / 'reference', reference,
                    ignore=shutil.ignore_patterns('travel', 'pools', '__pycache__'))
    bugs = tmp_path / 'bugs'
    (bugs / 'tictactoe').mkdir(parents=True)
    shutil.copy(BUGS / 'tictactoe' / 'ties_max_takes_equal_bound.py', bugs / 'tictactoe')
    course = dataclasses.replace(policy, reference=str(reference))
    trials = selection.trials_of(course, 'tictactoe')
    everything = trials.space()
    monkeypatch.setattr(trials, 'space', lambda: everything[-400:])
    from cosmic_ray import plugins
    from cosmic_ray.mutating import mutate_code

    def two_mutants(source):        # as selection.mutants names them, without all the rest
        made = []
        for operator in ('core/ReplaceBinaryOperator_Add_Sub',
                         'core/ReplaceComparisonOperator_Gt_GtE'):
            mutated = mutate_code(source, plugins.get_operator(operator)(), 0)
            made.append(selection.Variant(f"{operator.split('/')[1]}-0", 'mutant', mutated,
                                          dict(operator=operator, occurrence=0,
                                               **selection.change(source, mutated))))
        return made
    monkeypatch.setattr(selection, 'mutants', two_mutants)
    counts, (pool_path, record_path) = selection.select(course, 'tictactoe', bugs,
                                                        log=lambda line: None)
    written = json.loads(record_path.read_text())
    verdicts = {v['name']: v for v in written['variants']}
    assert verdicts['ties_max_takes_equal_bound']['verdict'] == 'buggy'
    assert verdicts['ReplaceComparisonOperator_Gt_GtE-0']['verdict'] == 'buggy'
    assert verdicts['ReplaceBinaryOperator_Add_Sub-0']['verdict'] == 'equivalent'
    assert 'all 400 positions' in verdicts['ReplaceBinaryOperator_Add_Sub-0']['proof']
    for index in verdicts['ties_max_takes_equal_bound']['killers']:
        position = everything[-400:][index]
        expected = trials.expect(position)
        cells = ''.join(trials.oracle.board_from_rows(position['board']))
        assert len(expected['best_moves']) < cells.count('-'), 'a killer has a wrong move'
    written_pool = json.loads(pool_path.read_text())
    assert written_pool['variants'] == ['ties_max_takes_equal_bound',
                                        'ReplaceComparisonOperator_Gt_GtE-0']
    assert all(int(p['kills'], 16) for p in written_pool['positions'])
    assert counts == {'buggy': 2, 'equivalent': 1}


def test_select_puts_a_cover_in_the_hidden_fixtures_and_keeps_the_instructors_cases(
        tmp_path, policy):
    import dataclasses

    from grader import fixtures
    from gradertest import with_exercise
    hidden = tmp_path / 'hidden' / 'tictactoe.yaml'
    course = with_exercise(policy, 'tictactoe', hidden_fixtures=(str(hidden),))
    course = dataclasses.replace(course, reference=str(ROOT / 'reference'))
    path, count = selection.write_hidden(course, 'tictactoe', 1)
    data, _ = fixtures.read(path, 'tictactoe')
    assert count == len(data['cases']) > 0
    own = dict(data['cases'][0], name='instructors-own')
    fixtures.dump(path, 'tictactoe', 'reference/oracles/tictactoe.py', [own] + data['cases'])
    selection.write_hidden(course, 'tictactoe', 2)
    again, _ = fixtures.read(path, 'tictactoe')
    assert again['cases'][0]['name'] == 'instructors-own'
    killers = [c for c in again['cases'] if c['name'].startswith(selection.HIDDEN_PREFIX)]
    assert len(killers) == len(again['cases']) - 1 >= count
    drawn_pool = pool('tictactoe')
    inputs = [json.dumps(c['input'], sort_keys=True) for c in killers]
    for bit, name in enumerate(drawn_pool['variants']):
        available = [json.dumps(p['input'], sort_keys=True)
                     for p in drawn_pool['positions'] if kills(p, bit)]
        assert sum(1 for i in inputs if i in available) >= min(2, len(available)), name


def test_select_without_a_library_is_a_one_line_error(tmp_path, capsys):
    from grader import cli
    code = cli.main(['--config', str(ROOT / 'grading.yaml'), 'fixtures', '--select',
                     '--bugs', str(tmp_path / 'none')])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and '--bugs DIR' in err, err


SLOW_BUT_RIGHT = '''
import time
_search, _busy = Minimax, []


def Minimax(board, maximizingplayer, player, *bounds):
    """The reference's search, after 0.15 s of CPU spent at the root."""
    if _busy:
        return _search(board, maximizingplayer, player, *bounds)
    _busy.append(1)
    try:
        end = time.process_time() + 0.15
        while time.process_time() < end:
            pass
        return _search(board, maximizingplayer, player, *bounds)
    finally:
        _busy.pop()
'''

NEVER_STOPS = '''
_search, _busy = Minimax, []


def Minimax(board, maximizingplayer, player, *bounds):
    """The reference's search, except that it never stops on a position whose centre is
    taken."""
    while not _busy and board[4] != '-':
        pass
    _busy.append(1)
    try:
        return _search(board, maximizingplayer, player, *bounds)
    finally:
        _busy.pop()
'''


def test_a_time_out_is_a_killer_only_past_the_far_limit(tmp_path, policy, monkeypatch):
    """A variant just past the trial's limit but right given more time is no bug (it would
    answer in time on a faster machine): undecided, not buggy.  A variant that never stops
    on some positions is buggy, its killers the positions it still has not answered at the
    far limit, and the pool marks them as its killers."""
    import dataclasses
    reference = tmp_path / 'reference'
    shutil.copytree(ROOT / 'reference', reference,
                    ignore=shutil.ignore_patterns('travel', 'pools', '__pycache__'))
    bugs = tmp_path / 'bugs'
    (bugs / 'tictactoe').mkdir(parents=True)
    source = (ROOT / 'reference' / 'tictactoe.py').read_text(encoding='utf-8')
    (bugs / 'tictactoe' / 'slow_but_right.py').write_text(source + SLOW_BUT_RIGHT)
    (bugs / 'tictactoe' / 'never_stops.py').write_text(source + NEVER_STOPS)
    course = dataclasses.replace(policy, reference=str(reference))
    trials = selection.trials_of(course, 'tictactoe')
    everything = trials.space()
    monkeypatch.setattr(trials, 'space', lambda: everything[-60:])
    monkeypatch.setattr(trials, 'LIMIT', 0.1)
    monkeypatch.setattr(trials, 'FAR_LIMIT', 0.4, raising=False)
    monkeypatch.setattr(selection, 'SLOW_TRIES', 3)
    monkeypatch.setattr(selection, 'mutants', lambda source: [])
    counts, (pool_path, record_path) = selection.select(course, 'tictactoe', bugs,
                                                        log=lambda line: None)
    verdicts = {v['name']: v for v in json.loads(record_path.read_text())['variants']}
    assert verdicts['slow_but_right']['verdict'] == 'undecided'
    never = verdicts['never_stops']
    assert never['verdict'] == 'buggy' and never['reasons'] == ['timeout at 0.4 s']
    assert len(never['killers']) == selection.CONFIRM
    for index in never['killers']:
        assert everything[-60:][index]['board'][1][1] != '-'
    written_pool = json.loads(pool_path.read_text())
    assert written_pool['variants'] == ['never_stops']
    assert [p['input'] for p in written_pool['positions']] == \
        [everything[-60:][i] for i in sorted(never['killers'])]
    assert all(kills(p, 0) for p in written_pool['positions'])
    assert counts == {'buggy': 1, 'undecided': 1}
