"""The student's hand-in as the grader first meets it: the folder to grade, and one
plain sentence for each plain mistake.

Every route (``grader check`` and ``grade``, ``batch``, Gradescope, PrairieLearn
and the pytest plug-in) asks here before any sandbox starts, so a mistake reads
the same wherever it is made, as one line (a :class:`~grader.errors.UserError`;
exit status 2 on the command line, ``gradable: false`` on PrairieLearn, an
ungradable entry in a batch, a score of 0 with the sentence on Gradescope):

- a path that does not exist says so (:func:`folder`);
- a file given instead of its folder is taken as its folder when it is an
  exercise file the policy knows (``grader check tictactoe.py``), and is
  refused by name otherwise (:func:`folder`);
- no exercise file where the grader looks (the top of the submission and
  ``src/``): a file one folder down is named, with "move it to the top of
  your submission"; a name that differs only in case or punctuation is named
  with the name expected; otherwise the files the submission holds are listed
  (:func:`absent`);
- a file that cannot be read is named in one line (:func:`readable`).

A file Python cannot decode (Latin-1 without a coding line) is not refused
here: its import fails in the sandbox as Python fails it
(:func:`grader.child.source.study`).
"""
import os
import re
from pathlib import Path, PurePosixPath

from grader.errors import UserError

SKIPPED = frozenset({'.git', '__pycache__', '.venv', 'venv', 'node_modules', '__MACOSX'})
"""Folders never looked into (the sandbox's copy leaves the first ones out too)."""

DEPTH = 3
"""How many folders down a misplaced exercise file is looked for."""

_LISTED = 10
"""At most this many file names are listed when no exercise file is found."""

_SEEN = 2000
"""At most this many entries are looked at (a bound, not a limit met by a hand-in)."""


def exercise_files(policy, names=None):
    """The file names the exercises ``names`` (default: all) are looked for under."""
    names = policy.exercises if names is None else names
    return list(dict.fromkeys(f for n in names for f in policy.exercises[n].files))


def folder(path, policy):
    """The folder to grade for the ``path`` a user gave.

    Raises a :class:`UserError` when it does not exist, or when it is a file
    other than an exercise file (whose folder is graded, the folder above
    ``src/`` for ``src/citymap.py``).
    """
    path = Path(path)
    found = folder_of(path)
    if found == path or path.name in {PurePosixPath(f).name for f in exercise_files(policy)}:
        return found
    raise UserError('is a file, not a folder: give the folder that holds the submission '
                    f'(the one with {_either(exercise_files(policy))})', path)


def folder_of(path):
    """``path`` when it is a folder, the folder of a file (the one above ``src/`` for
    ``src/citymap.py``), before any policy is read; a path that does not exist is
    refused.  :func:`folder` then refuses a file that is no exercise file."""
    path = Path(path)
    if path.is_dir():
        return path
    if not path.exists():
        raise UserError('does not exist: give the folder that holds the submission', path)
    parent = path.parent
    return parent.parent if parent.name == 'src' else parent


def _either(names):
    names = list(names)
    return ', '.join(names[:-1]) + f' or {names[-1]}' if len(names) > 1 else names[0]


def _loose(name):
    return re.sub(r'[^a-z0-9.]', '', name.lower())


def _entries(root):
    """``(relative posix path, is a folder)`` below ``root``, at most :data:`DEPTH` deep,
    never into :data:`SKIPPED` folders or symbolic links."""
    seen = 0
    level = ['']
    for _ in range(DEPTH + 1):
        below = []
        for relative in level:
            try:
                entries = sorted(os.scandir(os.path.join(root, relative)), key=lambda e: e.name)
            except OSError:
                continue
            for entry in entries:
                seen += 1
                if seen > _SEEN:
                    return
                name = f'{relative}/{entry.name}' if relative else entry.name
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if is_dir and entry.name not in SKIPPED:
                    below.append(name)
                yield name, is_dir
        level = below


def _where(relative):
    """``exercise1/tictactoe.py`` -> 'one folder down'."""
    depth = len(PurePosixPath(relative).parts) - 1
    return {1: 'one folder down', 2: 'two folders down'}.get(depth, f'{depth} folders down')


def _placed(relative, wanted):
    """Whether ``relative`` is where the grader looks for ``wanted`` (top or under src/)."""
    return relative in (wanted, f'src/{wanted}')


def absent(policy, root, names=None):
    """The sentence for a submission in ``root`` that holds no file of the exercises
    ``names`` (default: all) where the grader looks for it."""
    wanted = exercise_files(policy, names)
    files = [name for name, is_dir in _entries(root) if not is_dir]
    if not files:
        return (f'your submission is empty: hand in {_either(wanted)} at its top '
                '(or under src/)')
    by_name = {}
    for relative in files:
        by_name.setdefault(_loose(PurePosixPath(relative).name), []).append(relative)
    near = [(by_name[_loose(PurePosixPath(expected).name)][0], expected) for expected in wanted
            if _loose(PurePosixPath(expected).name) in by_name]
    if near:
        return '; '.join(_misplaced(relative, expected) for relative, expected in near)
    visible = [f for f in files if not any(part.startswith('.') for part in f.split('/'))]
    top = sorted(f for f in visible if '/' not in f) or sorted(visible) or sorted(files)
    listed = ', '.join(top[:_LISTED]) + (f' and {len(top) - _LISTED} more'
                                         if len(top) > _LISTED else '')
    return (f'no {_either(wanted)} found at the top of your submission or under src/ '
            f'(it holds {listed}): hand in the file under that name')


def _misplaced(relative, expected):
    """The sentence for ``relative``, a file that looks like ``expected`` but is not where
    (or not named as) the grader looks for it."""
    base = PurePosixPath(expected).name
    name = PurePosixPath(relative).name
    folder_part = str(PurePosixPath(relative).parent)
    top_level = folder_part in ('.', 'src') or _placed(relative, expected)
    if top_level:
        return (f'your submission has {relative}, but the file must be named {base} exactly '
                '(lower case): rename it')
    rename = '' if name == base else f' and name it {base} (lower case)'
    if PurePosixPath(folder_part).name == 'src':    # travel/src/citymap.py: its src/ moves
        return (f'{relative} is {_where(folder_part)}: move its folder {folder_part}/ to the '
                f'top of your submission{rename}')
    return (f'{relative} is {_where(relative)}: move it to the top of your submission'
            f'{rename}')


def readable(root):
    """Raise a one-line :class:`UserError` naming the first file or folder of the
    submission in ``root`` that cannot be read (the sandbox gets a copy of them all)."""
    for current, dirs, names in os.walk(root, onerror=_refuse(root)):
        dirs[:] = [d for d in dirs if d not in SKIPPED
                   and not os.path.islink(os.path.join(current, d))]
        for name in names:
            path = os.path.join(current, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            try:
                os.close(os.open(path, os.O_RDONLY))
            except OSError as error:
                _refuse(root)(error, path)


def unreadable(relative, error):
    """The sentence for the file or folder ``relative`` that could not be read (``error``,
    an OSError)."""
    reason = (error.strerror or str(error)).lower()
    return (f'{relative} cannot be read ({reason}): hand it in again as an ordinary file '
            'its owner can read')


def _refuse(root):
    def refuse(error, path=None):
        relative = os.path.relpath(path or error.filename, root)
        raise UserError(unreadable(relative, error), root)
    return refuse
