"""Batch grading throughput: submissions per minute and parallel efficiency.

    python bench/batch.py [--size N] [--seed S] [--skip-dask] [--hanging SHARE]

Grades one generated class (see :func:`make_class`) four times into fresh
output folders: a local pool of 1 worker, a local pool of 2 workers, a
LocalCluster of 1 Dask worker and a LocalCluster of 2. Prints submissions
per minute (grading phase only, as the batch reports it; and end to end,
with intake, start-up and outputs) and the parallel efficiency
``rate(2 workers) / (2 x rate(1 worker))``.  Every run must give every
submission the same verdict, so speed is never bought with a wrong grade.

Then the same class with a share of its tic-tac-toe hand-ins replaced by
ones that hang in every call (:data:`HANGS`: half sleep, half loop) is
graded by the local pool of 2, beside the clean class's figure: once hangs
end early (``time_limit.stop_after_timeouts``) the gap should be small.
Not a timed test: the figures depend on the machine and its load.
"""
import argparse
import io
import random
import shutil
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUBMISSIONS = ROOT / 'tests' / 'submissions'
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

REFERENCE_FILES = {'tictactoe': 'tictactoe.py', 'connect4': 'connect4.py',
                   'eightpuzzle': 'eightpuzzle.py'}

HANGS = {
    'sleeps': 'import time\n\ndef Minimax(board, maximizing, player):\n    time.sleep(3600)\n',
    'loops': 'def Minimax(board, maximizing, player):\n    while True:\n        pass\n',
}
"""Tic-tac-toe hand-ins that hang in every call: waiting (wall clock) and computing (CPU)."""


def variants(policy):
    """``{exercise: [(name, path)]}`` for every configured exercise: the
    reference solution and the example submissions of tests/submissions."""
    import yaml
    found = {}
    for exercise in policy.exercises:
        verdicts = SUBMISSIONS / exercise / 'verdicts.yaml'
        if not verdicts.is_file():
            continue
        names = sorted(yaml.safe_load(verdicts.read_text()) or {})
        listed = [(Path(n).stem, SUBMISSIONS / exercise / n) for n in names
                  if (SUBMISSIONS / exercise / n).exists()]
        reference = ROOT / 'reference' / REFERENCE_FILES.get(exercise, '')
        if exercise in REFERENCE_FILES and reference.is_file():
            listed.insert(0, ('reference', reference))
        if listed:
            found[exercise] = listed
    return found


def _files(policy, exercise, path):
    """The files a student hands in for one variant: ``{relative path: bytes}``."""
    from grader import exercises
    if path.is_dir():
        return {p.relative_to(path).as_posix(): p.read_bytes()
                for p in sorted(path.rglob('*')) if p.is_file()}
    name = policy.exercises[exercise].files[0] if exercise in policy.exercises else \
        exercises.get(exercise).files[0]
    return {name: path.read_bytes()}


def _zip(files, wrapper=''):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, 'w') as archive:
        for name, data in sorted(files.items()):
            archive.writestr(wrapper + name, data)
    return buffer.getvalue()


def make_class(folder, size, policy, seed=2024, fill=None, second_share=0.15):
    """A class of ``size`` students in Moodle's "Download all submissions" layout.

    Every student hands in a tic-tac-toe file (every variant at least once
    when ``size`` allows; the rest drawn from the variants whose name passes
    ``fill``, all by default); a ``second_share`` of them also hand in one
    file of another configured exercise of the same assignment.  One student
    in five uploads a zip (half of them wrapped in a project folder) instead
    of the loose file.  Returns ``{folder name: [(exercise, variant name)]}``.
    """
    rng = random.Random(seed)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    pool = variants(policy)
    main = pool.pop('tictactoe')
    assignment = policy.assignment_for(['tictactoe'])
    others = [(e, v) for e, vs in pool.items() if assignment and e in assignment.exercises
              for v in vs]
    picks = list(main)
    rng.shuffle(picks)
    picks = picks[:size]
    fillers = [v for v in main if fill is None or fill(v[0])] or main
    while len(picks) < size:
        picks.append(rng.choice(fillers))
    rng.shuffle(picks)
    made = {}
    for i, (name, path) in enumerate(picks):
        participant = 100001 + i
        student = f'Student {i + 1:03d}_{participant}_assignsubmission_file_'
        files = _files(policy, 'tictactoe', path)
        handed = [('tictactoe', name)]
        if others and rng.random() < second_share:
            exercise, (other, other_path) = rng.choice(others)
            files.update(_files(policy, exercise, other_path))
            handed.append((exercise, other))
        target = folder / student
        target.mkdir()
        if rng.random() < 0.2:
            wrapper = 'my_project/' if rng.random() < 0.5 else ''
            (target / 'submission.zip').write_bytes(_zip(files, wrapper))
        else:
            for relative, data in files.items():
                (target / relative).parent.mkdir(parents=True, exist_ok=True)
                (target / relative).write_bytes(data)
        made[student] = handed
    return made


def add_hangs(folder, share, seed=2024):
    """Replace the tic-tac-toe file of ``share`` of the students in ``folder`` (at least
    one) by one of :data:`HANGS`, in turn; the students changed, by kind."""
    rng = random.Random(seed)
    students = sorted(p for p in Path(folder).iterdir() if (p / 'tictactoe.py').is_file())
    chosen = rng.sample(students, max(1, round(share * len(students))))
    kinds = sorted(HANGS)
    made = {}
    for i, student in enumerate(sorted(chosen)):
        kind = kinds[i % len(kinds)]
        (student / 'tictactoe.py').write_text(HANGS[kind])
        made[student.name] = kind
    return made


def zip_class(folder, archive):
    """Zip a class folder as Moodle does (one folder per student at the top)."""
    folder = Path(folder)
    with zipfile.ZipFile(archive, 'w', zipfile.ZIP_DEFLATED) as out:
        for path in sorted(folder.rglob('*')):
            if path.is_file():
                out.write(path, path.relative_to(folder).as_posix())
    return archive


def run_once(policy, source, out, executor):
    """Grade ``source`` into ``out``: ``(summary, end-to-end seconds, verdicts by key)``."""
    from grader.batch import compare, gradebook, pipeline
    settings = pipeline.Settings(out=out, executor=executor, feedback='md', progress=False)
    started = time.perf_counter()
    summary = pipeline.batch(policy, source, settings)
    total = time.perf_counter() - started
    with gradebook.Gradebook(out) as book:
        verdicts = {r.identity.key: (r.status, compare.verdict(r.result)) for r in book.records()}
    return summary, total, verdicts


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--size', type=int, default=60, help='students in the class (default 60)')
    parser.add_argument('--seed', type=int, default=2024)
    parser.add_argument('--skip-dask', action='store_true')
    parser.add_argument('--hanging', type=float, default=0.1, metavar='SHARE',
                        help='share of hand-ins that hang, for the figure with hangs '
                             '(default 0.1; 0 leaves it out)')
    args = parser.parse_args(argv)

    from grader import config
    from grader.batch import executors
    policy = config.load(ROOT / 'grading.yaml')
    work = Path(tempfile.mkdtemp(prefix='grader-bench-batch-'))
    try:
        make_class(work / 'class', args.size, policy, seed=args.seed)
        source = zip_class(work / 'class', work / 'class.zip')
        setups = [('local pool', 1, lambda: executors.LocalPool(policy, 1)),
                  ('local pool', 2, lambda: executors.LocalPool(policy, 2))]
        if not args.skip_dask:
            setups += [('Dask LocalCluster', n,
                        lambda n=n: executors.DaskCluster(policy, local_workers=n))
                       for n in (1, 2)]
        print(f'class of {args.size} (seed {args.seed}), Moodle zip; machine: '
              f'{__import__("os").cpu_count()} cores')
        print(f'{"executor":<20}{"workers":>8}{"grading/min":>13}{"end-to-end/min":>16}'
              f'{"seconds":>9}{"efficiency":>12}')
        rates, reference = {}, None
        for label, workers, executor in setups:
            summary, total, verdicts = run_once(policy, source, work / f'out-{label}-{workers}'
                                                .replace(' ', '-'), executor())
            if reference is None:
                reference = verdicts
            assert verdicts == reference, f'{label} x{workers}: verdicts differ from the first run'
            rate = summary.planned / summary.seconds * 60
            rates[(label, workers)] = rate
            efficiency = ''
            if workers > 1 and (label, 1) in rates:
                efficiency = f'{rate / (workers * rates[(label, 1)]):.0%}'
            print(f'{label:<20}{workers:>8}{rate:>13.1f}{summary.planned / total * 60:>16.1f}'
                  f'{summary.seconds:>9.1f}{efficiency:>12}')
        print('verdicts identical across all runs')
        if args.hanging:
            import shutil as copier
            copier.copytree(work / 'class', work / 'hanging')
            hanging = add_hangs(work / 'hanging', args.hanging, seed=args.seed)
            source = zip_class(work / 'hanging', work / 'hanging.zip')
            summary, total, verdicts = run_once(policy, source, work / 'out-hanging',
                                                executors.LocalPool(policy, 2))
            took = _seconds(work / 'out-hanging', hanging)
            rate = summary.planned / summary.seconds * 60
            clean = rates[('local pool', 2)]
            print(f'with hangs: {len(hanging)} of {args.size} hand-ins hang in every call; '
                  f'local pool x2: {rate:.1f}/min against {clean:.1f}/min clean '
                  f'({rate / clean:.0%}); seconds per hanging hand-in: '
                  + ', '.join(f'{kind} {seconds:.1f}' for kind, seconds in took))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _seconds(out, students):
    """``[(kind, grading seconds)]`` of the students ``{Moodle folder name: kind}``."""
    from grader.batch import gradebook
    took = []
    with gradebook.Gradebook(out) as book:
        for name, kind in sorted(students.items(), key=lambda item: item[1]):
            key = name.split('_')[1]            # the participant id is the key
            took += [(kind, row['seconds']) for row in book.history(key)
                     if row['current'] and row['seconds'] is not None]
    return took


if __name__ == '__main__':
    main()
