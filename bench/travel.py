"""Route-planner grading times and verdicts (prints figures; not a timed test).

    python bench/travel.py [--repeats N] [--variant NAME ...]

For each submission (the reference and example variants of
tests/submissions/travel), runs ``grader check`` and ``grader grade``
(official: the fixtures plus the trips drawn at grading time) on the
routeplanner assignment, N times each, and prints the median wall time,
the score, the checks lost, the expansions and what was said about them.
"""
import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
GRADER = [str(BIN / 'grader')] if (BIN / 'grader').exists() else [sys.executable, '-m', 'grader']
VARIANTS = ROOT / 'tests' / 'submissions' / 'travel'
DEFAULT = ['reference', 'astar_priorityqueue', 'astar_heapq_best_time', 'dijkstra_zero_heuristic',
           'astar_no_closed_set']


def folder_of(name):
    return ROOT / 'reference' / 'travel' if name == 'reference' else VARIANTS / name


def run(command, folder):
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / 'r.json'
        start = time.perf_counter()
        proc = subprocess.run([*GRADER, command, str(folder), '--assignment', 'routeplanner',
                               '--json', str(out), '-q'], capture_output=True, text=True, cwd=ROOT)
        seconds = time.perf_counter() - start
        if proc.returncode not in (0, 1):
            raise SystemExit(f'grader {command} {folder} failed:\n{proc.stderr}')
        return seconds, json.loads(out.read_text())


def summary(result):
    exercise = result['exercises'][0]
    lost = [c['name'] for c in exercise['checks']
            if c['max_score'] > 0 and c['score'] < c['max_score']]
    facts = exercise.get('facts', {})
    efficiency = next((c['message'] for c in exercise['checks'] if c['name'] == 'efficiency'), '')
    return (f"{result['score']:.2f}/{result['max_score']:.2f} lost {lost or '-'}; "
            f"expansions {facts.get('expansions')}; cases {facts.get('cases')}; "
            f"efficiency: {efficiency[:110]}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeats', type=int, default=3)
    parser.add_argument('--variant', action='append')
    args = parser.parse_args(argv)
    for name in args.variant or DEFAULT:
        for command in ('check', 'grade'):
            times, last = [], None
            for _ in range(args.repeats):
                seconds, last = run(command, folder_of(name))
                times.append(seconds)
            print(f'{name:28} {command:5} median {statistics.median(times):6.2f} s '
                  f'(min {min(times):.2f}, max {max(times):.2f}, n={len(times)})  {summary(last)}',
                  flush=True)


if __name__ == '__main__':
    main()
