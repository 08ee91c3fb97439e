"""Connect four's library of the bugs students make, and the positions that catch them.

As tests/test_bug_library.py for the other games: ``tests/bugs/connect4/`` holds the
classic mistakes (off-by-one depth, the wrong player maximising, the board not restored,
ties on bounded values at the root, the cut-off test, the evaluation from the wrong
side, a win not detected before the depth limit, the last column never tried, ...), one
module each; ``grader fixtures --select`` adds the cosmic-ray mutants of
``reference/connect4.py``, sorts them on ``reference/trials/connect4.py``'s positions and
writes ``reference/pools/connect4.json`` and ``tests/bugs/connect4/library.json``.
Here: the record and the pool are the current reference's, the named mistakes are buggy,
every official grade meets several killers of every buggy variant, and every classic
mistake found buggy loses points in a real grade on the positions drawn for it.
"""
import hashlib
import json

import pytest

from grader import generated, selection
from gradertest import ROOT, with_exercise

EXERCISE = 'connect4'
BUGS = ROOT / 'tests' / 'bugs'
NAMED = ['depth_off_by_one', 'evaluated_one_ply_early', 'wrong_player_maximises',
         'board_not_restored', 'cut_off_before_the_unmake', 'moves_not_uncounted',
         'ties_root_takes_equal_bound', 'evaluation_from_wrong_side',
         'terminal_win_not_detected', 'last_column_never_tried', 'top_row_never_filled']


def record():
    return json.loads((BUGS / EXERCISE / 'library.json').read_text())


def pool():
    return json.loads((ROOT / 'reference' / 'pools' / f'{EXERCISE}.json').read_text())


def kills(position, bit):
    return int(position['kills'], 16) >> bit & 1


def test_the_record_and_the_pool_are_those_of_the_current_reference(policy):
    """After a change of reference/connect4.py, grader fixtures --select must run again."""
    trials = selection.trials_of(policy, EXERCISE)
    source = (ROOT / 'reference' / trials.SOLUTION).read_text(encoding='utf-8')
    digest = 'sha256:' + hashlib.sha256(source.encode()).hexdigest()
    assert record()['solution'] == digest, 'run grader fixtures --select'
    assert pool()['solution'] == digest, 'run grader fixtures --select'
    assert record()['positions'] == len(trials.space())
    classic = {path.stem for path in (BUGS / EXERCISE).glob('*.py')}
    assert classic == {v['name'] for v in record()['variants'] if v['kind'] == 'classic'}


def test_the_named_mistakes_are_buggy_and_every_one_has_killers_in_the_pool():
    variants = record()['variants']
    verdicts = {v['name']: v['verdict'] for v in variants}
    assert {name: verdicts[name] for name in NAMED} == dict.fromkeys(NAMED, 'buggy')
    buggy = [v['name'] for v in variants if v['verdict'] == 'buggy']
    drawn_pool = pool()
    assert drawn_pool['variants'] == buggy
    for bit, name in enumerate(buggy):
        assert any(kills(p, bit) for p in drawn_pool['positions']), name


def test_equivalent_mutants_are_set_aside_by_a_recorded_proof():
    variants = record()['variants']
    mutants = [v for v in variants if v['kind'] == 'mutant']
    assert mutants and all(v['operator'] and v['line'] for v in mutants)
    for variant in variants:
        if variant['verdict'] in ('equivalent', 'honest'):
            assert variant['proof'], variant['name']
        else:
            assert variant['verdict'] == 'buggy', variant['name']
            assert variant['killers'] and variant['reasons'], variant['name']


def test_the_killers_are_answered_wrongly_by_their_variant_and_rightly_by_the_reference(
        policy):
    """The pool's positions as the trials judge them: the tie bug of the root loses on
    every position the pool says it kills; the reference on none."""
    import reference.connect4 as reference
    from reference.trials.__main__ import load
    trials = selection.trials_of(policy, EXERCISE)
    drawn_pool = pool()
    bit = drawn_pool['variants'].index('ties_root_takes_equal_bound')
    tie_bug = load(str(BUGS / EXERCISE / 'ties_root_takes_equal_bound.py'))
    killers = [p['input'] for p in drawn_pool['positions'] if kills(p, bit)]
    assert killers
    for position in killers:
        expected = trials.expect(position)
        assert trials.verdict(position, expected, trials.answer(tie_bug, position)) == \
            'wrong move'
        assert trials.verdict(position, expected, trials.answer(reference, position)) == ''


@pytest.mark.parametrize('seed', ['0' * 16, '0123456789abcdef', 'fedcba9876543210'])
def test_every_official_grade_meets_killers_of_every_buggy_variant(seed, policy):
    per_variant = policy.exercises[EXERCISE].generated['killers']
    assert per_variant >= 1
    drawn = [json.dumps(c.input, sort_keys=True) for c in generated.draw(policy, EXERCISE, seed)]
    drawn_pool = pool()
    for bit, name in enumerate(drawn_pool['variants']):
        killers = [json.dumps(p['input'], sort_keys=True) for p in drawn_pool['positions']
                   if kills(p, bit)]
        met = sum(1 for d in drawn if d in killers)
        assert met >= min(per_variant, len(killers)), (name, met)


def test_a_pool_position_is_graded_for_its_answer_only(policy):
    """Drawn from the pool, a position is ``required`` (it carries points), never
    ``pruning`` (whose repeated searches would cost every grade time)."""
    drawn = generated.draw(policy, EXERCISE, '0123456789abcdef')
    count = policy.exercises[EXERCISE].generated['count']
    assert len(drawn) > count
    assert all(case.tags == ('required',) for case in drawn[count:])


def buggy_classics():
    return [v['name'] for v in record()['variants']
            if v['kind'] == 'classic' and v['verdict'] == 'buggy']


@pytest.fixture
def killers_only(policy, tmp_path):
    """The course with one public case (depth 1 from the empty board's centre reply) and,
    drawn at grading time, one position and the pool's killers: a classic mistake that
    loses points here loses them on what was drawn for it."""
    from grader import fixtures
    folder = tmp_path / 'course'
    folder.mkdir()
    data, _ = fixtures.read(ROOT / 'fixtures' / 'connect4.yaml', EXERCISE)
    one = [c for c in data['cases'] if c['name'] == 'centre-reply-d1']
    path = folder / 'connect4.yaml'
    fixtures.dump(path, EXERCISE, 'reference/oracles/connect4.py', one)
    settings = policy.exercises[EXERCISE]
    return with_exercise(policy, EXERCISE, fixtures=(str(path),), hidden_fixtures=(),
                         generated={**settings.generated, 'count': 1})


@pytest.mark.parametrize('name', buggy_classics())
def test_every_classic_mistake_loses_points_on_the_positions_drawn_for_it(
        name, killers_only, run, submission):
    from grader import engine
    course_run = engine.Run(killers_only, calibration=run.calibration, isolation=run.isolation)
    folder = submission(EXERCISE, BUGS / EXERCISE / f'{name}.py', 'connect4.py')
    result = engine.grade(killers_only, folder, run=course_run,
                          only=[EXERCISE]).exercise(EXERCISE)
    assert result.generated['count'] > 1
    lost = {c.name: c.split['hidden']['cases_passed'] for c in result.checks
            if c.max_score > 0 and c.split
            and c.split['hidden']['score'] < c.split['hidden']['max_score']}
    assert lost, f'{name} kept every point on the positions drawn for it'
