"""The route planner's library of the bugs students make, and the routes that catch them.

``tests/bugs/travel/`` holds the classic mistakes (one module each, the reference
``reference/travel/src/citymap.py`` with one mistake); ``grader fixtures --select`` adds
the cosmic-ray mutants, sorts them on the trial space of ``reference/trials/travel.py``
(routes, heuristic and comparator cases on the graded city) and writes the pool
(``reference/pools/travel.json``) and the record (``tests/bugs/travel/library.json``).
Here: the record and the pool are those of the current reference, every classic mistake
is buggy and loses points in a graded run through the pool's routes, every official grade
meets several killers of every buggy variant, and a fastest route other than the
reference's is accepted wherever several are optimal.
"""
import dataclasses
import json

import pytest

from grader import generated, selection
from gradertest import ROOT, with_exercise

EXERCISE = 'travel'
BUGS = ROOT / 'tests' / 'bugs' / EXERCISE
CLASSIC = sorted(path.stem for path in BUGS.glob('*.py'))


def record():
    return json.loads((BUGS / 'library.json').read_text())


def pool():
    return json.loads((ROOT / 'reference' / 'pools' / f'{EXERCISE}.json').read_text())


def kills(position, bit):
    return int(position['kills'], 16) >> bit & 1


def key(input):
    return json.dumps(input, sort_keys=True)


@pytest.fixture
def trials(policy):
    return selection.trials_of(policy, EXERCISE)


def test_the_record_and_the_pool_are_those_of_the_current_reference(trials):
    """After a change of the reference, grader fixtures --select must run again."""
    import hashlib
    source = (ROOT / 'reference' / trials.SOLUTION).read_text(encoding='utf-8')
    digest = 'sha256:' + hashlib.sha256(source.encode()).hexdigest()
    assert record()['solution'] == digest, 'run grader fixtures --select --exercise travel'
    assert pool()['solution'] == digest, 'run grader fixtures --select --exercise travel'
    recorded = {v['name'] for v in record()['variants'] if v['kind'] == 'classic'}
    assert recorded == set(CLASSIC)


def test_every_classic_mistake_is_buggy_and_every_buggy_variant_is_in_the_pool():
    verdicts = {v['name']: v for v in record()['variants']}
    assert {name: verdicts[name]['verdict'] for name in CLASSIC} == \
        dict.fromkeys(CLASSIC, 'buggy')
    buggy = [v['name'] for v in record()['variants'] if v['verdict'] == 'buggy']
    drawn_pool = pool()
    assert drawn_pool['variants'] == buggy
    for bit, name in enumerate(buggy):
        assert any(kills(p, bit) for p in drawn_pool['positions']), name


def test_variants_set_aside_carry_their_proof():
    variants = record()['variants']
    mutants = [v for v in variants if v['kind'] == 'mutant']
    assert mutants and all(v['operator'] and v['line'] for v in mutants)
    for variant in variants:
        if variant['verdict'] in ('equivalent', 'honest'):
            assert variant['proof'], variant['name']
        else:
            assert variant['verdict'] == 'buggy' and variant['killers'] and \
                variant['reasons'], variant['name']


def test_a_pool_route_kills_what_its_mask_says(trials, policy):
    """The masks are the trials' verdicts: a route of the pool that kills the tie-free
    better-path bug gets a late arrival from it, and the reference's answer passes."""
    from reference.trials.__main__ import load, one
    drawn_pool = pool()
    bit = drawn_pool['variants'].index('better_path_never_tested')
    position = next(p for p in drawn_pool['positions'] if kills(p, bit))
    case = [position['input'], trials.expect(position['input'])]
    reference = load(str(ROOT / 'reference' / trials.SOLUTION))
    variant = load(str(BUGS / 'better_path_never_tested.py'))
    assert one(trials, reference, case, 5.0)[1] == ''
    answer, reason = one(trials, variant, case, 5.0)
    assert reason == 'not the earliest arrival'
    assert answer[1][0][1] > case[1]['arrival']


@pytest.mark.parametrize('seed', ['0' * 16, '0123456789abcdef', 'fedcba9876543210'])
def test_every_official_grade_meets_killers_of_every_buggy_variant(seed, policy, monkeypatch):
    per_variant = policy.exercises[EXERCISE].generated['killers']
    assert per_variant >= 2
    oracle = generated.oracle_of(policy, EXERCISE)
    monkeypatch.setattr(oracle, 'expect', lambda input, options=None: {})   # inputs only
    drawn = [key(c.input) for c in generated.draw(policy, EXERCISE, seed)]
    drawn_pool = pool()
    for bit, name in enumerate(drawn_pool['variants']):
        killers = {key(p['input']) for p in drawn_pool['positions'] if kills(p, bit)}
        met = sum(1 for d in drawn if d in killers)
        assert met >= min(per_variant, len(killers)), (name, met)


def test_any_fastest_route_is_accepted(trials):
    """Where the oracle's optimal route differs from the reference's, the trials (and so
    the pool's masks) accept both: an honest search that breaks ties otherwise is no bug."""
    from reference.trials.__main__ import load, one
    reference = load(str(ROOT / 'reference' / trials.SOLUTION))
    other = 0
    for position in pool()['positions']:
        input = position['input']
        if 'start' not in input:
            continue
        expected = trials.expect(input)
        answer, reason = one(trials, reference, [input, expected], 5.0)
        assert reason == ''
        hops = [list(h) for h in expected['hops']]
        if hops != answer[1][::-1]:
            other += 1
            oracle_answer = ['state', hops[::-1], 'none', 0, False]
            assert trials.verdict(input, expected, oracle_answer) == ''
    assert other, 'no pool route with two fastest routes: the test shows nothing'


def test_the_tie_breaking_mutants_are_not_buggy():
    """The mutants that only change how ties of time + heuristic break (``<=`` for ``<`` in
    ``__lt__``, ``<=`` for ``<`` in the choice of the fastest tram) keep every answer
    accepted: equivalent or honest, never buggy."""
    verdicts = {(v['operator'], v['before'].strip()): v['verdict']
                for v in record()['variants'] if v['kind'] == 'mutant'}
    ties = [verdict for (operator, before), verdict in verdicts.items()
            if operator.endswith('Lt_LtE')
            and ('heuristic() <' in before or 'ride < best' in before)]
    assert len(ties) == 2 and 'buggy' not in ties, ties


# ---------------------------------------------------------------- graded runs

POOLED_CHECKS = ('arrival', 'route', 'heuristic', 'comparator', 'timeouts')
"""The checks the pool's cases meet (efficiency is judged on large-city trip sets)."""


@pytest.fixture
def killers_only(policy, tmp_path):
    """The course with two public cases that no mistake here gets wrong (a route whose
    start is the goal, at minute 0; the heuristic at the goal), no large-city trips, and,
    drawn, one route besides the pool's killers: a classic mistake that loses points here
    loses them on the drawn cases.  A search is stopped past 15 expansions per stop (the
    course: 100; every honest search makes at most 2), so the A* without a closed set is
    stopped on the same routes sooner (as tests/submissions/travel grades it)."""
    import yaml
    settings = policy.exercises[EXERCISE]
    data = yaml.safe_load(settings.fixtures[0].read_text())
    data['cases'] = [c for c in data['cases'] if c['name'] == 'heuristic-at-goal']
    data['cases'].append({'name': 'start-is-goal-at-0', 'source': 'a route of no hops',
                          'tags': ['required'],
                          'input': {'start': data['cases'][0]['input']['goal'],
                                    'goal': data['cases'][0]['input']['goal'], 'departure': 0}})
    path = tmp_path / 'travel.yaml'
    from grader import fixtures
    fixtures.dump(path, EXERCISE, 'reference/oracles/travel.py',
                  [dict(c, expected=generated.oracle_of(policy, EXERCISE).expect(c['input']))
                   for c in data['cases']])
    checks = dict(settings.checks)
    checks['timeouts'] = dataclasses.replace(
        checks['timeouts'], params={**checks['timeouts'].params, 'expansion_limit': 15})
    return with_exercise(policy, EXERCISE, fixtures=(path,), hidden_fixtures=(),
                         generated=dict(settings.generated, count=1, large_trips=0),
                         checks=checks)


def graded(course, run, source, folder):
    """The route planner's checks that lost points when ``source`` is handed in."""
    from grader import engine
    (folder / 'src').mkdir(parents=True)
    (folder / 'src' / 'citymap.py').write_bytes(source.read_bytes())
    course_run = engine.Run(course, calibration=run.calibration, isolation=run.isolation)
    result = engine.grade(course, folder, run=course_run, only=[EXERCISE]).exercise(EXERCISE)
    return [c.name for c in result.checks if c.name in POOLED_CHECKS and c.score < c.max_score], \
        [c.message for c in result.checks]


@pytest.mark.parametrize('name', CLASSIC)
def test_each_classic_mistake_loses_points_in_a_graded_run(name, killers_only, run, tmp_path):
    lost, messages = graded(killers_only, run, BUGS / f'{name}.py', tmp_path / name)
    assert lost, f'{name}: full points ({messages})'


def test_the_reference_keeps_full_points_on_the_killers(killers_only, run, tmp_path):
    lost, messages = graded(killers_only, run, ROOT / 'reference' / 'travel' / 'src' /
                            'citymap.py', tmp_path / 'reference')
    assert lost == [], messages


def test_a_variant_that_only_breaks_ties_otherwise_keeps_full_points(killers_only, run,
                                                                      tmp_path):
    """The honest mutants (``<=`` for ``<`` in ``__lt__``: another fastest route where
    several are optimal) lose no points on the pool's cases in a graded run."""
    from cosmic_ray import plugins
    from cosmic_ray.mutating import mutate_code
    reference = (ROOT / 'reference' / 'travel' / 'src' / 'citymap.py').read_text()
    honest = [v for v in record()['variants'] if v['verdict'] == 'honest']
    assert honest
    for variant in honest:       # made again as selection.mutants makes it
        mutated = mutate_code(reference, plugins.get_operator(variant['operator'])(),
                              variant['occurrence'])
        assert selection.change(reference, mutated)['after'] == variant['after']
        source = tmp_path / f"{variant['name']}.py"
        source.write_text(mutated, encoding='utf-8')
        lost, messages = graded(killers_only, run, source, tmp_path / variant['name'])
        assert lost == [], (variant['name'], messages)


def test_a_course_on_another_network_is_told_to_drop_the_killers(policy, tmp_path):
    """The pool's routes are stops of the city its space was drawn on: graded on other
    files, an official grade stops with one line naming grading.yaml and what to do."""
    from grader.errors import UserError
    stops = tmp_path / 'network.json'
    stops.write_text((ROOT / 'fixtures' / 'travel' / 'network.json').read_text() + '\n')
    settings = policy.exercises[EXERCISE]
    course = with_exercise(policy, EXERCISE,
                           options=dict(settings.options, stops_file=str(stops)))
    with pytest.raises(UserError) as raised:
        generated.draw(course, EXERCISE, '0' * 16)
    message = str(raised.value)
    assert 'options.stops_file' in message and 'drop killers' in message
    assert len(message.splitlines()) == 1
