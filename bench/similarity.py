"""How long the comparison of a class's code takes: first run, resume, one resubmission.

    python bench/similarity.py [--size 300] [--seed 2024] [--copies 0.05]

Makes a class of SIZE hand-ins of tic-tac-toe and connect four, each the
handout's template with a solution drawn from the example submissions
(tests/submissions, tests/copies, the reference) in which every name the
student wrote is changed (a name of the student's own), stores it in a
fresh gradebook as ``grader batch`` does, and runs the comparison
(:func:`grader.batch.copies.run`, every pair of each exercise plus the
known solutions) three times:

1. first run: every pair compared;
2. resumed with nothing changed: no pair compared, all read back;
3. one student hands in again: only that hand-in's pairs compared.

A share ``--copies`` of the hand-ins are copies of another student's (names
changed again, functions reordered).  Prints the pairs, the pairs flagged
and the seconds of each run.  The drawn solutions come from a few dozen
examples, so most pairs share their example: many more pairs look alike
(and are compared in full) than in a real class, which makes this a
pessimistic figure.  Not a timed test: the figures depend on the machine.
"""
import argparse
import dataclasses
import os
import random
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

EXERCISES = {'tictactoe': 'tictactoe.py', 'connect4': 'connect4.py'}
KEEP = {'Minimax', 'IsWinning', 'PrintBoard', 'main', 'LINES', 'alphabetapruning', 'self'}


def pool(exercise):
    """The solutions a hand-in is drawn from: files that define the entry point."""
    paths = sorted((ROOT / 'tests' / 'submissions' / exercise).glob('*.py'))
    paths.append(ROOT / 'reference' / EXERCISES[exercise])
    if exercise == 'tictactoe':
        paths += sorted((ROOT / 'tests' / 'copies').glob('*.py'))
    return [p.read_text() for p in paths]


def renamed(code, rng):
    """``code`` with every name it binds (but the handout's) changed, and its top-level
    functions in another order."""
    import ast

    from grader.batch.similarity import _read_tree
    try:
        names = _read_tree(ast.parse(code))[0] - KEEP
    except SyntaxError:
        return code
    for name in sorted(names):
        new = name + '_' + ''.join(rng.choice('abcdefghijklmnopqrstuvwxyz') for _ in range(4))
        code = re.sub(rf'\b{re.escape(name)}\b', new, code)
    parts = re.split(r'\n(?=def )', code)
    head, functions = parts[0], parts[1:]
    rng.shuffle(functions)
    return '\n'.join([head] + functions)


def make_class(size, seed, share_copies):
    rng = random.Random(seed)
    pools = {e: pool(e) for e in EXERCISES}
    hand_ins = {}
    for i in range(size):
        key = f'student{i:03d}'
        if hand_ins and rng.random() < share_copies:
            source = hand_ins[rng.choice(sorted(hand_ins))]
            hand_ins[key] = {f: renamed(code, rng) for f, code in source.items()}
            continue
        hand_ins[key] = {file: renamed(rng.choice(pools[e]), rng)
                         for e, file in EXERCISES.items()}
    return hand_ins


def store(book, hand_ins, run_id):
    from grader.batch import archives
    from grader.batch.identity import Identity
    for key, files in hand_ins.items():
        data = {name: text.encode() for name, text in files.items()}
        book.put_submission(Identity(key=key, student_id=key), archives.content_hash(data),
                            archives.pack(data), '', run_id)


def timed(book, policy, label):
    from grader.batch import copies
    started = time.perf_counter()
    report = copies.run(book, policy)
    seconds = time.perf_counter() - started
    print(f'{label:<34} {report.compared:>9} {report.cached:>9} {len(report.pairs):>8} '
          f'{seconds:>9.2f}')
    return report


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--size', type=int, default=300)
    parser.add_argument('--seed', type=int, default=2024)
    parser.add_argument('--copies', type=float, default=0.05)
    args = parser.parse_args()

    from grader import config
    from grader.batch.gradebook import Gradebook
    policy = config.load(ROOT / 'grading.yaml')
    policy = dataclasses.replace(policy, similarity={
        'known': ROOT / 'tests' / 'copies' / 'known', 'template': ROOT / 'student_template'})
    hand_ins = make_class(args.size, args.seed, args.copies)
    pairs = len(EXERCISES) * args.size * (args.size - 1) // 2
    print(f'class of {args.size}, {len(EXERCISES)} exercises: {pairs} pairs of hand-ins '
          f'(plus each with the known solutions)')
    print(f'{"run":<34} {"compared":>9} {"kept":>9} {"flagged":>8} {"seconds":>9}')
    with tempfile.TemporaryDirectory() as folder, Gradebook(Path(folder), create=True) as book:
        run_id = book.start_run('batch')
        store(book, hand_ins, run_id)
        timed(book, policy, 'first run (every pair)')
        timed(book, policy, 'resumed, nothing changed')
        key = sorted(hand_ins)[0]
        store(book, {key: {f: renamed(t, random.Random(1)) for f, t in hand_ins[key].items()}},
              run_id)
        timed(book, policy, 'resumed, one hand-in changed')
        size = (Path(folder) / 'gradebook.sqlite').stat().st_size
    print(f'gradebook {size / 2**20:.1f} MB (the hand-ins and the comparisons); load '
          f'average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores')


if __name__ == '__main__':
    main()
