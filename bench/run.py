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


# -- benchmarks -------------------------------------------------------------
def bench_check_latency(repeats):
    """`grader check` wall time on handout-style correct submissions."""
    rows = []
    for label, folder in SUBMISSIONS_CHECK:
        samples, scores = [], set()
        for _ in range(repeats):
            seconds, proc = timed([*GRADER, 'check', str(folder)])
            samples.append(seconds)
            scores.add(next(l for l in proc.stdout.splitlines() if l.startswith('Score')))
        assert len(scores) == 1, f'unstable verdicts: {scores}'
        rows.append((f'check latency: {label}', f'{statistics.median(samples):.2f} s',
                     scores.pop()))
    return rows


def bench_overhead(repeats):
    """Grader wall time against the same student calls in one plain process."""
    rows = []
    for exercise, folder in SUBMISSIONS_OVERHEAD:
        walls, direct, student = [], [], []
        for _ in range(repeats):
            seconds, result = grade_json(folder)
            walls.append(seconds)
            facts = result['exercises'][0]['facts']
            student.append(facts['student_seconds'])
            _, proc = timed([sys.executable, str(ROOT / 'bench' / 'direct.py'), exercise, str(folder)])
            direct.append(json.loads(proc.stdout)['seconds'])
        wall, base, inside = (statistics.median(walls), statistics.median(direct),
                              statistics.median(student))
        rows.append((f'overhead: {exercise} ({folder.name})',
                     f'wall {wall:.2f} s / direct {base:.3f} s = {wall / base:.1f}x',
                     f'grader share {(wall - inside) / wall:.0%} of the wall time '
                     f'(student code {inside:.3f} s in the sandbox)'))
    return rows


SUBMISSIONS_CHECK = [
    ('tic-tac-toe, alpha-beta (examples/alice)', ROOT / 'examples' / 'alice'),
]
SUBMISSIONS_OVERHEAD = [
    ('tictactoe', ROOT / 'examples' / 'alice'),
]
BENCHMARKS = {'check': bench_check_latency, 'overhead': bench_overhead}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeats', type=int, default=5)
    parser.add_argument('--only', nargs='*', choices=sorted(BENCHMARKS))
    args = parser.parse_args(argv)
    print(f'machine: {machine()}')
    for name in args.only or BENCHMARKS:
        for row in BENCHMARKS[name](args.repeats):
            print(' | '.join(row))


if __name__ == '__main__':
    main()
