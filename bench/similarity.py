"""How long the comparison of a class's code takes: first run, resume, one resubmission.

    python bench/similarity.py [--size 1000] [--seed 2024] [--copies 0.05]
                               [--class own|pool] [--no-template]

Makes a class of SIZE hand-ins of tic-tac-toe and connect four, stores it
in a fresh gradebook as ``grader batch`` does, and runs the comparison
(:func:`grader.batch.copies.run`, with the known solutions of tests/copies)
three times:

1. first run: every file new;
2. resumed with nothing changed: no pair compared, all read back;
3. one student hands in again: only that hand-in's pairs compared.

Two kinds of class (``--class``):

- ``own`` (the default): each student's own code under the handout's
  template.  Its functions are made of statements drawn at random from the
  functions of the example submissions, the references and tests/copies (a
  short loop, a test, an assignment...), their numbers and some of their
  operators chosen anew and every name the student wrote changed: the
  students share idioms, statement by statement, as a class does, but no two
  write the same program.
- ``pool``: each hand-in is one of those few dozen solutions whole, names
  changed and functions reordered: most pairs share their example, so about
  a quarter of all pairs are copies of each other and are listed (the class
  of the benchmark before issue 41).

A share ``--copies`` of the hand-ins are copies of another student's, made
with one to three obfuscations of tests/obfuscate.py (``pool``: names
changed again, functions reordered) and names changed: the run says how
many of those whose original holds enough code to be listed at all are
listed.  ``--no-template`` does not give the handout as the template: the
code most of the class holds is left out all the same.  Prints the pairs
compared (those sharing a fingerprint, one of them new), the pairs compared
in full (``measured``: those flagged), the pairs read back from the
gradebook, the pairs listed, the seconds of each run and the peak memory of
the process.  Not a timed test: the figures depend on the machine.
"""
import argparse
import ast
import dataclasses
import os
import random
import re
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for folder in (ROOT, ROOT / 'tests'):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

EXERCISES = {'tictactoe': 'tictactoe.py', 'connect4': 'connect4.py'}
KEEP = {'Minimax', 'IsWinning', 'PrintBoard', 'main', 'LINES', 'alphabetapruning', 'self'}
LETTERS = 'abcdefghijklmnopqrstuvwxyz'
SMALL = 4
"""The statements of the bank are shorter than this many lines: students share idioms, not
whole searches."""


def pool(exercise):
    """The solutions a hand-in is drawn from: files that define the entry point."""
    paths = sorted((ROOT / 'tests' / 'submissions' / exercise).glob('*.py'))
    paths.append(ROOT / 'reference' / EXERCISES[exercise])
    if exercise == 'tictactoe':
        paths += sorted((ROOT / 'tests' / 'copies').glob('*.py'))
    out = []
    for path in paths:
        try:
            ast.parse(path.read_text())
        except SyntaxError:
            continue
        out.append(path.read_text())
    return out


def bound_names(tree):
    """The names a module binds (definitions, parameters, stored names)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def renamed(code, rng, reorder=True):
    """``code`` with every name it binds (but the handout's) changed, and its top-level
    functions in another order."""
    try:
        names = bound_names(ast.parse(code)) - KEEP
    except SyntaxError:
        return code
    for name in sorted(names):
        new = name + '_' + ''.join(rng.choice(LETTERS) for _ in range(4))
        code = re.sub(rf'\b{re.escape(name)}\b', new, code)
    if not reorder:
        return code
    parts = re.split(r'\n(?=def )', code)
    head, functions = parts[0], parts[1:]
    rng.shuffle(functions)
    return '\n'.join([head] + functions)


def statement_bank(exercise):
    """The handout, and the statements (of fewer than :data:`SMALL` lines, not functions)
    of the functions and methods of the pool's solutions that are not the handout's."""
    template = (ROOT / 'student_template' / EXERCISES[exercise]).read_text()
    handout = {ast.dump(node) for node in ast.walk(ast.parse(template))
               if isinstance(node, ast.FunctionDef)}
    bank = []
    for text in pool(exercise):
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef) and ast.dump(node) not in handout:
                bank += [s for s in node.body if not isinstance(s, ast.FunctionDef)
                         and not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
                         and ast.unparse(s).count('\n') < SMALL]
    distinct = {ast.unparse(s): s for s in bank}      # the variants of a solution share most
    return template, [distinct[code] for code in sorted(distinct)]


def written_anew(statement, rng):
    """A copy of a statement of the bank with the details a student chooses changed at
    random: numbers, comparisons and arithmetic operators."""
    import copy
    statement = copy.deepcopy(statement)
    for node in ast.walk(statement):
        if isinstance(node, ast.Constant) and type(node.value) is int and rng.random() < 0.5:
            node.value = rng.randrange(10)
        elif isinstance(node, ast.Compare) and rng.random() < 0.4:
            node.ops = [rng.choice((ast.Lt, ast.LtE, ast.Eq, ast.NotEq))() for _ in node.ops]
        elif isinstance(node, ast.BinOp) and rng.random() < 0.4:
            node.op = rng.choice((ast.Add, ast.Sub, ast.Mult, ast.FloorDiv))()
    return statement


def own_solution(template, bank, rng):
    """The handout with a student's own functions under it, made of statements drawn from
    the bank and written anew."""
    functions = []
    for number in range(rng.randint(3, 6)):
        body = [written_anew(s, rng) for s in rng.sample(bank, rng.randint(4, 12))]
        node = ast.parse(f'def helper_{number}(board, player, depth):\n    pass').body[0]
        node.body = body
        functions.append(ast.unparse(node))
    return renamed(template + '\n\n' + '\n\n\n'.join(functions) + '\n', rng, reorder=False)


def disguised_copy(text, rng):
    import obfuscate
    names = rng.sample(sorted(obfuscate.OBFUSCATIONS), rng.randint(1, 3))
    try:
        copy, _ = obfuscate.disguised(text, names, seed=rng.randrange(10**6))
    except SyntaxError:
        copy = text
    return renamed(copy, rng, reorder=False)


def make_class(size, seed, share_copies, kind):
    """``({key: {file: text}}, {copy's key: original's key})``."""
    rng = random.Random(seed)
    draw = {e: pool(e) for e in EXERCISES} if kind == 'pool' else \
        {e: statement_bank(e) for e in EXERCISES}
    hand_ins, copied = {}, {}
    for i in range(size):
        key = f'student{i:04d}'
        if hand_ins and rng.random() < share_copies:
            source = rng.choice(sorted(hand_ins))
            copied[key] = source
            if kind == 'pool':
                hand_ins[key] = {f: renamed(code, rng) for f, code in hand_ins[source].items()}
            else:
                hand_ins[key] = {f: disguised_copy(code, rng)
                                 for f, code in hand_ins[source].items()}
            continue
        if kind == 'pool':
            hand_ins[key] = {file: renamed(rng.choice(draw[e]), rng)
                             for e, file in EXERCISES.items()}
        else:
            hand_ins[key] = {file: own_solution(*draw[e], rng) for e, file in EXERCISES.items()}
    return hand_ins, copied


def store(book, hand_ins, run_id):
    from grader.batch import archives
    from grader.batch.identity import Identity
    for key, files in hand_ins.items():
        data = {name: text.encode() for name, text in files.items()}
        book.put_submission(Identity(key=key, student_id=key), archives.content_hash(data),
                            archives.pack(data), '', run_id)


def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def long_enough(hand_ins, copied):
    """``{(exercise, copy, original)}`` of the copies whose original holds enough code of
    its own to be listed at all (an exact copy of it would be)."""
    from grader.batch import similarity
    settings, out = similarity.Settings(), set()
    for exercise, file in EXERCISES.items():
        template = (ROOT / 'student_template' / file).read_text()
        boilerplate = similarity.every_kgram(template, settings)
        for copy, original in copied.items():
            prints = similarity.fingerprint(hand_ins[original][file], settings, boilerplate)
            itself = similarity.compare(prints, prints)
            if settings.flagged(itself.share_a, itself.share_b, itself.tokens):
                out.add((exercise, *sorted((copy, original))))
    return out


def timed(book, policy, label, copied):
    from grader.batch import copies
    started = time.perf_counter()
    report = copies.run(book, policy)
    seconds = time.perf_counter() - started
    listed = {(p.exercise, p.a.name, p.b.name) for p in report.pairs}
    found = len(copied & listed)
    print(f'{label:<30} {report.compared:>9} {getattr(report, "measured", "-"):>9} '
          f'{report.cached:>9} {len(report.pairs):>8} {found:>4}/{len(copied):<4} '
          f'{seconds:>8.2f} {peak_mb():>8.0f}', flush=True)
    return report


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--size', type=int, default=1000)
    parser.add_argument('--seed', type=int, default=2024)
    parser.add_argument('--copies', type=float, default=0.05)
    parser.add_argument('--class', dest='kind', choices=('own', 'pool'), default='own')
    parser.add_argument('--no-template', action='store_true')
    args = parser.parse_args()

    from grader import config
    from grader.batch.gradebook import Gradebook
    policy = config.load(ROOT / 'grading.yaml')
    similarity = {'known': ROOT / 'tests' / 'copies' / 'known'}
    if not args.no_template:
        similarity['template'] = ROOT / 'student_template'
    policy = dataclasses.replace(policy, similarity=similarity)
    hand_ins, copied = make_class(args.size, args.seed, args.copies, args.kind)
    listable = long_enough(hand_ins, copied)
    pairs = len(EXERCISES) * args.size * (args.size - 1) // 2
    print(f'class of {args.size} ({args.kind}), {len(EXERCISES)} exercises: {pairs} pairs of '
          f'hand-ins (plus each with the known solutions); {len(copied)} copies '
          f'({len(copied) * 2} copied files, {len(listable)} of them of an original with '
          f'enough code to list); peak memory {peak_mb():.0f} MB after making it')
    print(f'{"run":<30} {"compared":>9} {"measured":>9} {"kept":>9} {"listed":>8} '
          f'{"copies":>9} {"seconds":>8} {"peak MB":>8}')
    with tempfile.TemporaryDirectory() as folder, Gradebook(Path(folder), create=True) as book:
        run_id = book.start_run('batch')
        store(book, hand_ins, run_id)
        timed(book, policy, 'first run', listable)
        timed(book, policy, 'resumed, nothing changed', listable)
        key = sorted(hand_ins)[0]
        store(book, {key: {f: renamed(t, random.Random(1)) for f, t in hand_ins[key].items()}},
              run_id)
        timed(book, policy, 'resumed, one hand-in changed', listable)
        size = (Path(folder) / 'gradebook.sqlite').stat().st_size
    print(f'gradebook {size / 2**20:.1f} MB (the hand-ins and the comparisons); load '
          f'average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores')


if __name__ == '__main__':
    main()
