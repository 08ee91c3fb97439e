"""The reference's answers to the positions of a pool, kept in the pool beside them.

Every official grade with ``killers: n`` draws positions from the exercise's
pool (:func:`grader.generated.cover`) and needs the reference's answer to each:
the same few hundred positions for every submission of the class.  ``grader
fixtures --regenerate`` (and ``--select``, which writes the pool) stores those
answers in the pool file::

    "answers": {"under": "sha256:...", "expected": [<expected block>, ...]}

one expected block per position, in the pool's order, computed by the oracle's
``expect(input, options)``.  ``under`` is :func:`key`: a digest over the
exercise's ``options`` (a data file they name by its contents, not its path: the
key is the same in every checkout) and every Python file of the reference folder,
so the answers are used only while neither has changed; otherwise the grade asks the
oracle again, as it does without stored answers (a missing or stale block never
changes a verdict, it only costs the oracle's time).  ``grader fixtures``
(``--verify``) reports stored answers that differ from the oracle's, as it does
for the fixture files' expected blocks.
"""
import functools
import hashlib
import json
import os
from pathlib import Path


def file_digest(path):
    """``sha256:<hex>`` of a data file (``grader fixtures --select`` records the pool's);
    read once per process while its size and times stay (a grade asks for the same
    files in :func:`key` and in the pool's fit, a batch at every submission)."""
    info = os.stat(path)
    return _digest(os.path.realpath(path), info.st_size, info.st_mtime_ns, info.st_ctime_ns)


@functools.lru_cache(maxsize=32)
def _digest(path, size, mtime_ns, ctime_ns):
    with open(path, 'rb') as f:
        return 'sha256:' + hashlib.sha256(f.read()).hexdigest()


def key(policy, exercise):
    """``sha256:<hex>`` over ``exercise``'s options (canonical JSON, each option naming an
    existing file by an absolute path replaced by the file's :func:`file_digest`: config
    resolves such options against the checkout, which differs between machines) and the
    bytes of every ``*.py`` under the reference folder (by relative path): everything the
    oracle's answers depend on."""
    digest = hashlib.sha256()
    options = {name: _portable(value) for name, value in policy.exercises[exercise].options.items()}
    options = json.dumps(options, sort_keys=True, default=str)
    digest.update(options.encode())
    folder = Path(policy.reference)
    for path in sorted(folder.rglob('*.py')):
        if '__pycache__' in path.parts:
            continue
        name = path.relative_to(folder).as_posix().encode()
        data = path.read_bytes()
        digest.update(len(name).to_bytes(4, 'big') + name + len(data).to_bytes(8, 'big') + data)
    return 'sha256:' + digest.hexdigest()


def _portable(value):
    """``value``, or the digest of the file it names when it is an absolute path to a file."""
    if isinstance(value, (str, os.PathLike)) and os.path.isabs(value) and os.path.isfile(value):
        return file_digest(value)
    return value


def stored(pool, under):
    """The pool's expected blocks (a list, one per position) when they were computed under
    ``under`` (:func:`key`), else None (a block of another shape than the oracle writes
    too: the pool is written by ``grader fixtures``, and ``--verify`` compares every block
    with the oracle's)."""
    answers = pool.get('answers')
    if not isinstance(answers, dict) or answers.get('under') != under:
        return None
    expected = answers.get('expected')
    if not isinstance(expected, list) or len(expected) != len(pool.get('positions', ())) or \
            not all(isinstance(block, dict) for block in expected):
        return None
    return expected


def computed(policy, exercise, pool):
    """The ``answers`` block of ``pool``: the oracle's answer to each position now."""
    from grader import fixtures
    oracle = fixtures.oracle(policy, exercise)
    options = policy.exercises[exercise].options
    return {'under': key(policy, exercise),
            'expected': [oracle.expect(p['input'], options) for p in pool['positions']]}

