"""Where a self-check's verdict differs from the official grade's, for every example submission.

    python bench/self_check.py [--exercise NAME ...] [--workers 2]

Each variant listed in ``tests/submissions/<exercise>/verdicts.yaml`` is graded twice in the
sandbox, through the engine: as ``grader grade`` grades it (the course as grading.yaml sets
it: hidden fixtures, positions drawn for the submission, the course's limits) and as ``grader
check`` does (the public cases only, a quick self-check).  Printed per variant: both scores
and every check whose outcome differs, then how many agree.

A check the self-check passes and the grade fails is expected where only drawn or hidden
positions find the bug.  One the self-check fails and the grade passes tells a student that
code the official grade accepts is wrong: those are listed under ``check stricter``.  (Scores
differ by a few hundredths where a check scores each case: the case counts differ.)
"""
import argparse
import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader import config, engine, exercises  # noqa: E402

SUBMISSIONS = ROOT / 'tests' / 'submissions'


def variants(names):
    """``(exercise, path)`` of every example submission of the exercises ``names`` (all if
    empty), in the order of their verdict files."""
    for verdicts in sorted(SUBMISSIONS.glob('*/verdicts.yaml')):
        exercise = verdicts.parent.name
        if names and exercise not in names:
            continue
        for name in yaml.safe_load(verdicts.read_text()) or {}:
            yield exercise, (verdicts.parent / name).resolve()


def handed_in(folder, exercise, variant):
    """A submission folder holding ``variant`` as a student hands it in."""
    if variant.is_dir():
        shutil.copytree(variant, folder)
    else:
        folder.mkdir()
        shutil.copy(variant, folder / exercises.get(exercise).files[0])
    return folder


def outcomes(result):
    """``{check: passed}`` of an exercise's result (a check worth points passes with them all)."""
    return {c.name: (c.score >= c.max_score if c.max_score > 0 else c.passed)
            for c in result.checks}


def compare(policy, official, check, exercise, variant):
    """``(official score, check score, {check: (official, self-check)})`` of one variant."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = handed_in(Path(tmp) / 'submission', exercise, variant)
        graded = engine.grade(policy, folder, run=official, only=[exercise]).exercise(exercise)
        checked = engine.grade(policy, folder, run=check, only=[exercise]).exercise(exercise)
    a, b = outcomes(graded), outcomes(checked)
    return graded.score, checked.score, {name: (a[name], b[name]) for name in a.keys() & b.keys()
                                         if a[name] != b[name]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--exercise', action='append', default=[])
    parser.add_argument('--workers', type=int, default=2,
                        help='variants graded at once (default 2: one per core)')
    args = parser.parse_args(argv)
    policy = config.load(ROOT / 'grading.yaml')
    official = engine.Run(policy)
    check = engine.Run(policy, include_hidden=False, calibration=official.calibration,
                       isolation=official.isolation, full=False)
    print(f'unit {official.unit:.4f} s; official grade against `grader check`')
    items = list(variants(args.exercise))
    stricter, agree = [], 0
    with ThreadPoolExecutor(args.workers) as pool:
        rows = pool.map(lambda item: compare(policy, official, check, *item), items)
        for (exercise, variant), (graded, checked, differ) in zip(items, rows):
            label = f'{exercise}/{variant.name}'
            agree += not differ
            print(f'{"same" if not differ else "DIFF"}  {label}: grade {graded:.2f}, check '
                  f'{checked:.2f}' + ''.join(f'; {name}: grade {"passed" if a else "failed"}, '
                                             f'check {"passed" if b else "failed"}'
                                             for name, (a, b) in sorted(differ.items())),
                  flush=True)
            stricter += [f'{label} {name}' for name, (a, b) in differ.items() if a and not b]
    print(f'{agree} of {len(items)} variants: every check the same')
    print(f'check stricter ({len(stricter)}): {", ".join(stricter) or "none"}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
