"""How many known buggy variants an official grade catches, before and after the pools.

    python bench/killers.py [--exercise NAME ...] [--killers N]

For every variant of the library that ``grader fixtures --select`` found buggy
(``tests/bugs/<exercise>/library.json``: the classic mistakes and the cosmic-ray mutants
of the reference solution), the positions its official grade meets are built as a grade
builds them -- the public fixtures, and the positions drawn for it (seeded by the course
and the variant's own content, as if it were handed in) -- once without the pool
(``killers: 0``, the grader before) and once with it (``killers: N``, default the
course's).  The variant then answers them in a process of its own
(``reference/trials``), and a position it answers wrongly is one where it loses points
(the checks ``values``/``moves``/``robustness`` of tic-tac-toe, ``values``/``moves``/
``balance`` of connect four, ``validity``/``optimality``/``heuristic`` of the eight
puzzle, as the trials judge them).  A time-out at the trials' limit (about a second, below
the grader's) is not counted as points lost: only a wrong answer is, or a time-out on a
pool position that ``--select`` found the variant slow on even at the far limit (ten
times the grader's), so the figures hold on any machine.  Each grade, before and after,
runs in a trial of its own, every case of it tried.

Each variant is handed in ``--copies`` times (default 10), each copy with a comment of
its own, so each gets positions drawn for it.  Printed per exercise: the share of these
grades that lose points before and after, the variants caught in every grade, and the
fewest positions that catch a variant in one grade; then every classic variant and every
variant some grade misses.  A decided position (``terminal``) is worth no points.
"""
import argparse
import dataclasses
import json
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader import config, fixtures, generated, selection  # noqa: E402


def with_generated(policy, exercise, **drawn):
    """``policy`` with ``exercise``'s ``generated`` settings changed."""
    settings = policy.exercises[exercise]
    settings = dataclasses.replace(settings, generated={**settings.generated, **drawn})
    return dataclasses.replace(policy, exercises={**policy.exercises, exercise: settings})


def grade_inputs(policy, exercise, seed):
    """The inputs of the public fixtures and of the positions drawn for ``seed`` (their
    answers are the trials' business: the oracle's full answers are not computed)."""
    settings = policy.exercises[exercise]
    cases, _, _ = fixtures.load_cases(_plugin(exercise), settings)
    oracle = generated.oracle_of(policy, exercise)
    expect, oracle.expect = oracle.expect, lambda input, options=None: {}
    try:
        drawn = generated.draw(policy, exercise, seed)
    finally:
        oracle.expect = expect
    graded = selection.trials_of(policy, exercise).GRADED_TAGS
    public = [c.input for c in cases if not c.hidden and set(c.tags) & set(graded)]
    return public, [c.input for c in drawn]


def _plugin(exercise):
    from grader import exercises
    return exercises.registry()[exercise]


def seed_of(policy, exercise, trials, source):
    """The seed of a submission holding ``source`` as the exercise's file."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / getattr(trials, 'SUBMITTED_AS', trials.SOLUTION)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding='utf-8')
        digest = generated.submission_digest(tmp)
    return generated.seed_for(policy.course, exercise, digest)


def measure(policy, exercise, bugs, killers, copies, count_before=None, sample=None):
    """``[(variant, grades caught before, grades caught after, fewest killers met after)]``
    over ``copies`` submissions of each buggy variant (its file with a comment of its own
    at the end: another content, so other positions drawn)."""
    library = selection.Library(policy, exercise, bugs)
    before = with_generated(policy, exercise, killers=0,
                            **({'count': count_before} if count_before else {}))
    after = with_generated(policy, exercise, killers=killers)
    rows = []
    buggy = library.buggy()
    if sample:
        mutants = [v for v in buggy if v.kind == 'mutant']
        chosen = random.Random(33).sample(mutants, min(sample, len(mutants)))
        buggy = [v for v in buggy if v.kind != 'mutant' or v in chosen]
    expected = {}
    pool = generated.pool_of(policy, exercise)
    for variant in buggy:
        slow = confirmed_slow(pool, variant.name)
        caught_before, met = 0, []
        for copy in range(copies):
            source = f'{variant.source}\n# submission {copy}\n'
            seed = seed_of(policy, exercise, library.trials, source)
            public, drawn_before = grade_inputs(before, exercise, seed)
            _, drawn_after = grade_inputs(after, exercise, seed)
            caught_before += bool(grade_failures(policy, exercise, library, variant,
                                                 public + drawn_before, expected, slow))
            met.append(len(grade_failures(policy, exercise, library, variant,
                                          public + drawn_after, expected, slow)))
        rows.append((variant, caught_before, sum(1 for m in met if m), min(met)))
        print(f'{exercise}: {len(rows)} variants measured', file=sys.stderr, flush=True)
    return rows


def _key(input):
    return json.dumps(input, sort_keys=True)


def confirmed_slow(pool, name):
    """The pool positions (as keys) that kill the variant ``name``: where it times out at
    the trials' limit, the selection found it wrong or slow past the far limit."""
    if name not in pool['variants']:
        return set()
    bit = pool['variants'].index(name)
    return {_key(p['input']) for p in pool['positions'] if int(p['kills'], 16) >> bit & 1}


def grade_failures(policy, exercise, library, variant, inputs, expected, slow=frozenset()):
    """The indexes of ``inputs`` (one grade's positions) the variant answers wrongly, in a
    trial of its own with every case tried: a time-out counts only on a position of
    ``slow``.  ``expected`` caches the trials' answers across variants."""
    cases = []
    for i in inputs:
        key = _key(i)
        if key not in expected:
            expected[key] = library.trials.expect(i)
        cases.append([i, expected[key]])
    result = selection.run_trial(policy, exercise, variant.source, cases, library.limit,
                                 timeout=1800, timeouts=len(cases) + 1)
    if result is None:
        return set()
    return {int(k) for k, v in result['failed'].items()
            if v != 'timeout' or _key(inputs[int(k)]) in slow}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--exercise', action='append')
    parser.add_argument('--killers', type=int)
    parser.add_argument('--bugs', default=str(ROOT / 'tests/bugs'))
    parser.add_argument('--count-before', action='append', default=[], metavar='EXERCISE=N',
                        help="the drawn positions before the pools (default the course's)")
    parser.add_argument('--sample', type=int,
                        help='measure the classic variants and this many mutants drawn (seeded)')
    parser.add_argument('--copies', type=int, default=10,
                        help='submissions of each variant (each its own drawn positions)')
    args = parser.parse_args(argv)
    policy = config.load(ROOT / 'grading.yaml')
    for exercise in args.exercise or ['tictactoe', 'eightpuzzle']:
        killers = args.killers or policy.exercises[exercise].generated.get('killers', 3)
        count_before = dict(pair.split('=') for pair in args.count_before).get(exercise)
        rows = measure(policy, exercise, args.bugs, killers, args.copies,
                       int(count_before) if count_before else None, args.sample)
        if not rows:
            print(f'{exercise}: no buggy variant in the library')
            continue
        grades = len(rows) * args.copies
        before = sum(r[1] for r in rows)
        after = sum(r[2] for r in rows)
        always_before = sum(1 for r in rows if r[1] == args.copies)
        always_after = sum(1 for r in rows if r[2] == args.copies)
        print(f'{exercise}: {len(rows)} buggy variants x {args.copies} submissions each; '
              f'grades that lose points: before {100 * before / grades:.1f} %, '
              f'after {100 * after / grades:.1f} %; variants caught in every grade: before '
              f'{always_before} ({100 * always_before / len(rows):.1f} %), after '
              f'{always_after} ({100 * always_after / len(rows):.1f} %); fewest killers met '
              f'in one grade after: {min(r[3] for r in rows)}')
        for variant, caught, caught_after, met in rows:
            if variant.kind == 'classic' or caught < args.copies or met < killers:
                print(f'  {variant.name}: grades caught before {caught}/{args.copies}, '
                      f'after {caught_after}/{args.copies}, fewest killers met after {met}')


if __name__ == '__main__':
    main()
