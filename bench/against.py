"""Interleaved before/after figures: this checkout against an earlier commit.

    python bench/against.py REF [--rounds N]

Builds a worktree of ``REF`` in a temporary folder (its bytecode compiled, the
search counter this checkout built copied in when ``_tally.c`` is the same,
else built there), then times, round by round and in turn, each side's:

- one ``grader grade --assignment all`` of the four reference solutions;
- one ``grader grade`` per assignment (the two runs' sum);
- one ``grader check`` of the four handout-style submissions together;

each side with its own ``grading.yaml``, fixtures and reference.  The wall
time and the CPU time of the grader and its sandboxes (the reaped children's)
are printed as medians, with the direct calls of the same student code
(``bench/direct.py``, this checkout's) as the ratio's base.  Interleaving keeps
a passing load from favouring either side: this machine's speed moves by
10-20 % within an hour.  Whether the scores agree is printed too.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.run import EXERCISE_OF, HANDOUT, REFERENCE, children_cpu, folder_of, median  # noqa: E402

ASSIGNMENTS = ('oulu-exercise-1', 'routeplanner')


def worktree(ref, folder):
    """A checkout of ``ref`` at ``folder``, ready to run with this interpreter."""
    subprocess.run(['git', 'worktree', 'add', '--detach', '-f', str(folder), ref], cwd=ROOT,
                   check=True, capture_output=True)
    here, there = ROOT / 'grader' / 'child', folder / 'grader' / 'child'
    built = sorted(here.glob('_tally.*.so'))
    if (here / '_tally.c').read_bytes() == (there / '_tally.c').read_bytes() and built:
        for library in built:
            shutil.copy2(library, there / library.name)
    else:
        subprocess.run([sys.executable, 'setup.py', '-q', 'build_ext', '--inplace'],
                       cwd=folder, check=True, capture_output=True)
    subprocess.run([sys.executable, '-m', 'compileall', '-q', 'grader', 'reference'],
                   cwd=folder, check=True, capture_output=True)


def timed(side, *arguments):
    """``(wall seconds, CPU seconds of the grader and its sandboxes, scores)``."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / 'r.json'
        before, start = children_cpu(), time.perf_counter()
        proc = subprocess.run([sys.executable, '-m', 'grader', *arguments, '--json', str(out),
                               '-q'], cwd=side, capture_output=True, text=True,
                              env=dict(os.environ, PYTHONPATH=str(side)))
        wall, cpu = time.perf_counter() - start, children_cpu() - before
        if proc.returncode not in (0, 1):
            raise SystemExit(f'{side}: grader {" ".join(arguments)} failed:\n{proc.stderr}')
        results = [json.loads(p.read_text()) for p in sorted(Path(tmp).glob('r*.json'))]
        results = [r for found in results for r in (found if isinstance(found, list) else
                                                     [found])]
        return wall, cpu, sorted((r['assignment'], r['score']) for r in results)


def direct_seconds(folders):
    total = 0.0
    for exercise, folder in folders.items():
        proc = subprocess.run([sys.executable, str(ROOT / 'bench' / 'direct.py'), exercise,
                               str(folder)], capture_output=True, text=True, check=True)
        total += json.loads(proc.stdout)['seconds']
    return total


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('ref', help='the commit to compare against')
    parser.add_argument('--rounds', type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        base = tmp / 'base'
        worktree(args.ref, base)
        try:
            everything = folder_of(tmp, 'references', REFERENCE)
            handout = folder_of(tmp, 'handout', HANDOUT)
            alone = {EXERCISE_OF[rel]: folder_of(tmp, f'alone-{EXERCISE_OF[rel]}', {rel: src})
                     for rel, src in REFERENCE.items()}
            sides = {args.ref: base, 'this checkout': ROOT}
            figures = {side: {'all': [], 'all cpu': [], 'each': [], 'each cpu': [],
                              'check': [], 'check cpu': []} for side in sides}
            scores = {side: set() for side in sides}
            direct = []
            for _ in range(args.rounds):
                direct.append(direct_seconds(alone))
                for side, folder in sides.items():
                    found = figures[side]
                    wall, cpu, score = timed(folder, 'grade', str(everything),
                                             '--assignment', 'all')
                    found['all'].append(wall)
                    found['all cpu'].append(cpu)
                    scores[side].add(tuple(score))
                    walls = [timed(folder, 'grade', str(everything), '--assignment', name)
                             for name in ASSIGNMENTS]
                    found['each'].append(sum(w for w, _, _ in walls))
                    found['each cpu'].append(sum(c for _, c, _ in walls))
                    wall, cpu, score = timed(folder, 'check', str(handout))
                    found['check'].append(wall)
                    found['check cpu'].append(cpu)
        finally:
            subprocess.run(['git', 'worktree', 'remove', '--force', str(base)], cwd=ROOT,
                           capture_output=True)
    base_seconds = median(direct)
    print(f'direct calls of the references (bench/direct.py): {base_seconds:.2f} s; medians of '
          f'{args.rounds} interleaved rounds')
    print('figure | ' + ' | '.join(sides))
    rows = (('grade --assignment all, wall', 'all', True), ('  its CPU', 'all cpu', False),
            ('grade per assignment (two runs), wall', 'each', True),
            ('  their CPU', 'each cpu', False),
            ('check, four handout-style together, wall', 'check', False),
            ('  its CPU', 'check cpu', False))
    for label, key, ratio in rows:
        cells = []
        for side in sides:
            value = median(figures[side][key])
            cells.append(f'{value:.2f} s' + (f' = {value / base_seconds:.2f}x' if ratio else ''))
        print(f'{label} | ' + ' | '.join(cells))
    for side in sides:
        print(f'scores, {side}: {sorted(scores[side])}')


if __name__ == '__main__':
    main()
