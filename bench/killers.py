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
(the checks ``values``/``moves``/``robustness`` of tic-tac-toe, ``validity``/
``optimality``/``heuristic`` of the eight puzzle, as the trials judge them).

Printed per exercise: buggy variants, the share caught before and after, the fewest
positions that catch a variant in one grade, and the drawn positions a grade holds.
"""
import argparse
import dataclasses
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
    """The inputs of the public fixtures and of the positions drawn for ``seed``."""
    settings = policy.exercises[exercise]
    cases, _, _ = fixtures.load_cases(_plugin(exercise), settings)
    drawn = generated.draw(policy, exercise, seed)
    return [c.input for c in cases if not c.hidden], [c.input for c in drawn]


def _plugin(exercise):
    from grader import exercises
    return exercises.registry()[exercise]


def seed_of(policy, exercise, trials, source):
    """The seed of a submission holding ``source`` as the exercise's file."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / trials.SOLUTION).write_text(source, encoding='utf-8')
        digest = generated.submission_digest(tmp)
    return generated.seed_for(policy.course, exercise, digest)


def measure(policy, exercise, bugs, killers):
    library = selection.Library(policy, exercise, bugs)
    before = with_generated(policy, exercise, killers=0)
    after = with_generated(policy, exercise, killers=killers)
    rows = []
    for variant in library.buggy():
        seed = seed_of(policy, exercise, library.trials, variant.source)
        public, drawn_before = grade_inputs(before, exercise, seed)
        _, drawn_after = grade_inputs(after, exercise, seed)
        inputs = public + drawn_before + drawn_after
        cases = [[i, library.trials.expect(i)] for i in inputs]
        result = selection.run_trial(policy, exercise, variant.source, cases, library.limit,
                                     timeout=600)
        failed = set(range(len(cases))) if result is None else \
            {int(k) for k in result['failed']}
        split = len(public) + len(drawn_before)
        caught_before = any(i < split for i in failed)
        killers_after = sum(1 for i in failed if i < len(public) or i >= split)
        rows.append((variant, caught_before, killers_after, len(drawn_before),
                     len(drawn_after)))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--exercise', action='append')
    parser.add_argument('--killers', type=int)
    parser.add_argument('--bugs', default=str(ROOT / 'tests/bugs'))
    args = parser.parse_args(argv)
    policy = config.load(ROOT / 'grading.yaml')
    for exercise in args.exercise or ['tictactoe', 'eightpuzzle']:
        killers = args.killers or policy.exercises[exercise].generated.get('killers', 3)
        rows = measure(policy, exercise, args.bugs, killers)
        if not rows:
            print(f'{exercise}: no buggy variant in the library')
            continue
        before = sum(1 for r in rows if r[1])
        after = sum(1 for r in rows if r[2] > 0)
        print(f'{exercise}: {len(rows)} buggy variants; caught before {before} '
              f'({100 * before / len(rows):.1f} %), after {after} '
              f'({100 * after / len(rows):.1f} %); fewest killers met in one grade after: '
              f'{min(r[2] for r in rows)}; drawn positions a grade {rows[0][3]} before, '
              f'{min(r[4] for r in rows)}-{max(r[4] for r in rows)} after')
        for variant, caught, met, _, _ in rows:
            if variant.kind == 'classic' or not caught or met < killers:
                print(f'  {variant.name}: caught before {caught}, killers met after {met}')


if __name__ == '__main__':
    main()
