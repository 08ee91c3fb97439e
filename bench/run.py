"""Benchmarks that print figures (not timed tests; the machines are noisy).

    python bench/run.py [--repeats N] [--only NAME ...]

Every figure is a median of N runs, with ratios where a ratio is the point.
Each benchmark also checks its verdicts, so speed is never bought with a
wrong grade.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
GRADER = [str(BIN / 'grader')] if (BIN / 'grader').exists() else [sys.executable, '-m', 'grader']
sys.path.insert(0, str(ROOT))


def timed(command, **kwargs):
    start = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, **kwargs)
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f'{" ".join(map(str, command))} failed:\n{proc.stderr}')
    return seconds, proc


def grade_json(folder, extra=()):
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / 'r.json'
        seconds, _ = timed([*GRADER, 'grade', str(folder), '--json', str(out), '-q', *extra])
        return seconds, json.loads(out.read_text())


def machine():
    return (f'{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, '
            f'{platform.system()} {platform.release()}')


# -- submissions used ---------------------------------------------------------
def folder_of(tmp, name, files):
    """A submission folder in ``tmp`` holding ``files`` ({relative path: source path})."""
    folder = Path(tmp) / name
    for relative, source in files.items():
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(Path(source).read_bytes())
    return folder


SUB = ROOT / 'tests' / 'submissions'
REFERENCE = {
    'tictactoe.py': ROOT / 'reference' / 'tictactoe.py',
    'connect4.py': ROOT / 'reference' / 'connect4.py',
    'eightpuzzle.py': ROOT / 'reference' / 'eightpuzzle.py',
    'src/citymap.py': ROOT / 'reference' / 'travel' / 'src' / 'citymap.py',
}
HANDOUT = {
    'tictactoe.py': SUB / 'tictactoe' / 'minimax_make_undo.py',
    'connect4.py': SUB / 'connect4' / 'alphabeta_make_unmake.py',
    'eightpuzzle.py': SUB / 'eightpuzzle' / 'handout_style.py',
    'src/citymap.py': SUB / 'travel' / 'astar_priorityqueue' / 'src' / 'citymap.py',
}
EXERCISE_OF = {'tictactoe.py': 'tictactoe', 'connect4.py': 'connect4',
               'eightpuzzle.py': 'eightpuzzle', 'src/citymap.py': 'travel'}
ASSIGNMENT_OF = {'tictactoe': 'oulu-exercise-1', 'connect4': 'oulu-exercise-1',
                 'eightpuzzle': 'oulu-exercise-1', 'travel': 'routeplanner'}


def verdicts(result):
    """What must not change between two ways of grading: scores and check outcomes."""
    return {(e['name'], c['name']): (c['score'], c['cases_passed'])
            for e in result['exercises'] for c in e['checks']}


def median(values):
    return statistics.median(values)


# -- benchmarks -------------------------------------------------------------
def bench_overhead(repeats):
    """1. Wall time of `grader grade` on the reference, against the same calls in-process."""
    rows, walls, direct, inside = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        folders = {ex: folder_of(tmp, ex, {rel: src}) for rel, src in REFERENCE.items()
                   for ex in [EXERCISE_OF[rel]]}
        oulu = folder_of(tmp, 'oulu', {r: s for r, s in REFERENCE.items() if r != 'src/citymap.py'})
        for _ in range(repeats):
            wall = 0.0
            for folder, assignment in ((oulu, 'oulu-exercise-1'), (folders['travel'], 'routeplanner')):
                seconds, result = grade_json(folder, ['--assignment', assignment])
                wall += seconds
                inside.append(sum(e['facts'].get('student_seconds', 0) for e in result['exercises']))
            walls.append(wall)
            base = 0.0
            for exercise, folder in folders.items():
                _, proc = timed([sys.executable, str(ROOT / 'bench' / 'direct.py'), exercise, str(folder)])
                base += json.loads(proc.stdout)['seconds']
            direct.append(base)
    wall, base = median(walls), median(direct)
    rows.append(('1. overhead ratio (reference, all four exercises)',
                 f'{wall / base:.2f}x', f'grader grade {wall:.2f} s / direct calls {base:.2f} s '
                 f'(target <= 1.25; limit 1.0)'))
    return rows


def bench_check_latency(repeats):
    """2. `grader check` on handout-style correct submissions, each and all together."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        cases = [(EXERCISE_OF[rel], folder_of(tmp, EXERCISE_OF[rel], {rel: src}))
                 for rel, src in HANDOUT.items()]
        together = folder_of(tmp, 'all-four', HANDOUT)
        for label, folder, assignments in [*[(n, f, [ASSIGNMENT_OF[n]]) for n, f in cases],
                                           ('all four together', together,
                                            ['oulu-exercise-1', 'routeplanner'])]:
            samples, seen = [], set()
            for _ in range(repeats):
                total, scores = 0.0, []
                for assignment in assignments:
                    seconds, proc = timed([*GRADER, 'check', str(folder), '--assignment', assignment,
                                           '--color', 'never'])
                    total += seconds
                    scores.append(next(line for line in proc.stdout.splitlines()
                                       if line.startswith('Score')))
                samples.append(total)
                seen.add(tuple(scores))
            assert len(seen) == 1, f'unstable verdicts for {label}: {seen}'
            rows.append((f'2. check latency: {label}', f'{median(samples):.2f} s',
                         '; '.join(seen.pop())))
    return rows


def bench_route_queries(repeats):
    """3. Per-query cost: the course's unittest style against `grader grade` in the sandbox."""
    submission = HANDOUT['src/citymap.py'].parents[1]
    env = dict(os.environ, TMC_SUBMISSION=str(submission))
    unit, graded = [], []
    with tempfile.TemporaryDirectory() as tmp:
        from bench.routeplanner_tmc import test_astar
        import yaml
        cases = {c['name']: c['input'] for c in
                 yaml.safe_load((ROOT / 'fixtures' / 'travel.yaml').read_text())['cases']}
        expected = Path(tmp) / 'expected.json'
        expected.write_text(json.dumps(test_astar.expected_routes(
            ROOT, str(ROOT / 'fixtures' / 'travel'), cases)))
        env['TMC_EXPECTED'] = str(expected)
        folder = folder_of(tmp, 'travel', {'src/citymap.py': HANDOUT['src/citymap.py']})
        for _ in range(repeats):
            seconds, proc = timed([sys.executable, '-m', 'unittest', '-q',
                                   'bench/routeplanner_tmc/test_astar.py'], env=env)
            assert 'OK' in proc.stderr, proc.stderr
            unit.append(seconds)
            seconds, result = grade_json(folder, ['--assignment', 'routeplanner'])
            graded.append(seconds)
            queries = sum(1 for c in cases.values() if 'start' in c)
    u, g = median(unit), median(graded)
    return [('3. route planner, course unittest (3 queries, in-process, no isolation)',
             f'{u / 3 * 1000:.0f} ms per query', f'{u:.2f} s in all'),
            (f'3. route planner, grader grade ({queries} queries + checks, sandboxed)',
             f'{g / queries * 1000:.0f} ms per query', f'{g:.2f} s in all; score '
             f"{result['score']:.2f}/{result['max_score']:.0f}")]


def bench_start_cost(repeats):
    """5. Milliseconds per child start, per isolation level."""
    from grader.sandbox import layers
    from grader.sandbox.session import Session
    strong = layers.detect()
    levels = {'strong': strong,
              'standard': layers.weaker(strong, ['namespaces', 'seccomp', 'cgroup', 'uid-drop',
                                                 'audit-hook']),
              'advisory': layers.weaker(strong, ['namespaces', 'seccomp', 'cgroup', 'uid-drop',
                                                 'audit-hook', 'rlimits'])}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = folder_of(tmp, 'ttt', {'tictactoe.py': REFERENCE['tictactoe.py']})
        for name, isolation in levels.items():
            samples = []
            with Session(folder, 'tictactoe.py', 'grader.exercises.tictactoe.probe',
                         isolation=isolation, options={'entry': 'Minimax'}) as box:
                for _ in range(max(5, repeats)):
                    start = time.perf_counter()
                    assert box.start().ok
                    samples.append(time.perf_counter() - start)
            rows.append((f'5. child start, {name} ({isolation.level})',
                         f'{median(samples) * 1000:.0f} ms', ', '.join(isolation.layers)))
    return rows


def bench_instrumentation(repeats):
    """6. The student's search with and without node counting (tic-tac-toe pruning cases)."""
    import importlib.util
    from grader import config, fixtures
    from grader import exercises as plugins
    from grader.exercises.tictactoe import probe
    policy = config.load(ROOT / 'grading.yaml')
    plugin = plugins.get('tictactoe')
    settings = policy.exercises['tictactoe']
    cases, _, _ = fixtures.load_cases(plugin, settings)
    payloads = [r.payload for c in cases if 'pruning' in c.tags for r in plugin.requests(c, settings)]
    rows = []
    for label, path in (('alpha-beta (reference)', REFERENCE['tictactoe.py']),
                        ('plain minimax (handout style)', HANDOUT['tictactoe.py'])):
        spec = importlib.util.spec_from_file_location('tictactoe', path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)

        class Ctx:
            student_files = {str(path)}
        plain, counted = [], []
        for _ in range(repeats):
            start = time.perf_counter()
            for payload in payloads:
                probe.direct_call(module, payload, plugin.child_options(settings))
            plain.append(time.perf_counter() - start)
            start = time.perf_counter()
            for payload in payloads:
                probe.handle(module, payload, plugin.child_options(settings), Ctx)
            counted.append(time.perf_counter() - start)
        rows.append((f'6. node counting overhead, tic-tac-toe {label}',
                     f'{median(counted) / median(plain):.2f}x',
                     f'{median(plain):.3f} s plain, {median(counted):.3f} s counted '
                     f'({len(payloads)} pruning positions)'))
    return rows


def bench_batch(repeats):
    """4. Batch throughput and parallel efficiency (bench/batch.py, local pool)."""
    _, proc = timed([sys.executable, str(ROOT / 'bench' / 'batch.py'), '--size', '20'])
    return [('4. batch (bench/batch.py --size 20)', ' '.join(line.split()), '')
            for line in proc.stdout.splitlines() if line.strip()]


def bench_parallel_verdicts(repeats):
    """The optimised path (exercises in parallel) gives the verdicts of the sequential one."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = folder_of(tmp, 'oulu', {r: s for r, s in HANDOUT.items() if r != 'src/citymap.py'})
        fast, sequential = [], []
        for _ in range(repeats):
            seconds, result = grade_json(folder, ['--jobs', '2'])
            fast.append((seconds, verdicts(result)))
            seconds, result = grade_json(folder, ['--jobs', '1'])
            sequential.append((seconds, verdicts(result)))
    assert all(v == sequential[0][1] for _, v in fast + sequential), 'verdicts differ'
    f, q = median(s for s, _ in fast), median(s for s, _ in sequential)
    return [('verdicts: exercises in parallel (--jobs 2) vs one by one',
             f'{f:.2f} s vs {q:.2f} s', 'identical verdicts in every run')]


BENCHMARKS = {'overhead': bench_overhead, 'check': bench_check_latency,
              'routes': bench_route_queries, 'batch': bench_batch,
              'start': bench_start_cost, 'instrument': bench_instrumentation,
              'parallel': bench_parallel_verdicts}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeats', type=int, default=3)
    parser.add_argument('--only', nargs='*', choices=sorted(BENCHMARKS))
    args = parser.parse_args(argv)
    print(f'machine: {machine()}')
    print('figure | value | detail')
    for name in args.only or BENCHMARKS:
        for row in BENCHMARKS[name](args.repeats):
            print(' | '.join(row), flush=True)


if __name__ == '__main__':
    main()
