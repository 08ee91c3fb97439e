"""Where the verdict tests' time goes: the students' calls, case by case.

    python bench/verdict_costs.py [--exercise NAME ...] [--top 6]

Each variant listed in ``tests/submissions/<exercise>/verdicts.yaml`` is graded in the
sandbox exactly as ``tests/test_submissions.py`` grades it in ``make test`` (the test course:
fewer positions drawn, the eight puzzle's unsolvable start cut short, a variant's own
``limits``), one variant at a time.  Printed per variant: the grade's wall time, the CPU
time of its calls of student code (each reply's, as the case process measured it: a
figure for this bench, not a grade's evidence) and the part of it spent in calls stopped at
their time limit; then per exercise the cases that cost the most over all its variants.

The students' calls are the floor of the verdict tests: what no change to the grader can
take away without grading on other cases or under other limits (the verdicts are about
those searches).  The rest of a variant's wall time is the grader's: the sandbox's start,
each case process's fixed cost, the judging.
"""
import argparse
import collections
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / 'tests'))

import test_submissions  # noqa: E402  (how the verdict tests grade: their course)
from conftest import make_submission  # noqa: E402
from grader import config, engine  # noqa: E402

STOPPED = ('timeout',)
"""Reply statuses of a call stopped at its limit."""


class CaseCosts:
    """The CPU of each case's replies while it is installed: the lane's per-case step
    (``engine.Lane._case_replies``) wrapped to note ``(case, cpu, cpu stopped at a limit)``."""

    def __init__(self):
        self.noted = []
        self._original = None

    def __enter__(self):
        self._original = original = engine.Lane._case_replies
        noted = self.noted

        def case_replies(lane, run, session, done, case, *args, **kwargs):
            replies = original(lane, run, session, done, case, *args, **kwargs)
            for reply in replies or ():
                cpu = reply.cpu or 0.0
                noted.append((case.name, cpu, cpu if reply.status in STOPPED else 0.0))
            return replies
        engine.Lane._case_replies = case_replies
        return self

    def __exit__(self, *exc):
        engine.Lane._case_replies = self._original

    def take(self):
        """The notes since the last call, and forget them."""
        taken, self.noted[:] = list(self.noted), []
        return taken


def grade_as_the_test_does(policy, run, exercise, variant, verdict, folder):
    """The variant's grade as ``test_verdict`` makes it (its course and run)."""
    course = test_submissions.course_for(policy, exercise, verdict, run.unit, folder / 'course')
    if course is not policy:
        run = engine.Run(course, calibration=run.calibration, isolation=run.isolation)
    graded = make_submission(folder, exercise, variant)
    return engine.grade(course, graded, run=run, only=[exercise]).exercise(exercise)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--exercise', nargs='*', default=[])
    parser.add_argument('--top', type=int, default=6, help='cases listed per exercise')
    args = parser.parse_args(argv)
    policy = config.load(ROOT / 'grading.yaml')
    run = engine.Run(policy)
    print(f'unit {run.unit:.4f} s; isolation {run.isolation.level}')
    print('variant | wall | students\' calls | of which stopped at a limit')
    totals = collections.defaultdict(collections.Counter)
    by_case = collections.defaultdict(collections.Counter)
    with CaseCosts() as costs, tempfile.TemporaryDirectory() as tmp:
        for index, param in enumerate(test_submissions.variants()):
            exercise, variant, verdict = param.values
            if args.exercise and exercise not in args.exercise:
                continue
            folder = Path(tmp) / str(index)
            folder.mkdir()
            start = time.perf_counter()
            grade_as_the_test_does(policy, run, exercise, variant, verdict, folder)
            wall = time.perf_counter() - start
            noted = costs.take()
            cpu = sum(n[1] for n in noted)
            stopped = sum(n[2] for n in noted)
            print(f'{exercise}/{variant.name} | {wall:.2f} s | {cpu:.2f} s | {stopped:.2f} s')
            totals[exercise].update(wall=wall, cpu=cpu, stopped=stopped, variants=1)
            for name, seconds, _ in noted:
                by_case[exercise][name] += seconds
    print()
    print('exercise | variants | wall | students\' calls | stopped at a limit | costliest cases')
    for exercise, total in totals.items():
        top = ', '.join(f'{name} {seconds:.1f} s'
                        for name, seconds in by_case[exercise].most_common(args.top))
        print(f'{exercise} | {total["variants"]} | {total["wall"]:.1f} s | {total["cpu"]:.1f} s '
              f'({total["cpu"] / total["wall"]:.0%}) | {total["stopped"]:.1f} s | {top}')
    wall = sum(t['wall'] for t in totals.values())
    cpu = sum(t['cpu'] for t in totals.values())
    print(f'all | {sum(t["variants"] for t in totals.values())} | {wall:.1f} s | {cpu:.1f} s '
          f'({cpu / wall:.0%}) | {sum(t["stopped"] for t in totals.values()):.1f} s |')
    return 0


if __name__ == '__main__':
    sys.exit(main())
