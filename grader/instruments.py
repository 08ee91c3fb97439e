"""The grader's own instruments on this machine, and the refusal to grade officially without them.

The search counter (:file:`grader/child/_tally.c`, a compiled extension) decides the
counted facts: "prunes", the eight puzzle's expansions, the route planner's.  An official
grade (``grade``, ``batch``, ``regrade``, Gradescope, PrairieLearn, the pytest plug-in with
hidden checks) never runs without it: :func:`require_counter` raises
:class:`MissingInstrument`, one line saying what is missing and the command that fixes it,
before anything is graded or written.  A student's self-check (``grader check``) runs on,
and each counted check then says it is not checked on this machine (:data:`NOT_CHECKED`).

The counter is *in force* when the extension of this install imports in this process:
found for this very Python (an extension built for another version is not found), and
loadable.  Loading it here installs nothing (its hooks are set only by its ``install`` and
``given``, in a sandboxed child).
"""
import functools
import sys
from dataclasses import dataclass
from pathlib import Path

from grader.errors import UserError


class MissingInstrument(UserError):
    """An official grade refused: an instrument of the grade is missing on this machine.

    Not the student's fault: a platform reports it as a broken autograder."""


@dataclass(frozen=True)
class Counter:
    """The search counter in force: where it is, how it sees frames, the Python it was
    built for."""

    path: str
    mode: str
    built_for: str

    def describe(self):
        return f'C, {self.mode}, built for CPython {self.built_for} ({self.path})'


@functools.lru_cache(maxsize=None)
def counter():
    """The :class:`Counter` in force in this process, or None (not built for this Python, or
    not loadable)."""
    from grader.child import tally
    try:
        module = tally.extension()
    except (ImportError, OSError):
        return None
    path = getattr(module, '__file__', None) or '?'
    return Counter(path, getattr(module, 'MODE', 'frame hook'),
                   getattr(module, 'BUILT_FOR', '?'))


def fix_command():
    """The command that builds the counter for the running Python, in words."""
    python = sys.executable or 'python3'
    package = Path(__file__).resolve().parent
    if (package.parent / 'setup.py').is_file() and (package.parent / 'Makefile').is_file():
        return f'make setup PYTHON={python} (in {package.parent})'
    return (f"{python} -m pip install --force-reinstall --no-deps search-grader with gcc and "
            "Python's headers installed (apt-get install gcc python3-dev), or a wheel of "
            '`make wheels`')


def missing_counter_line(official=True):
    """The one line an official grade says when it refuses for want of the counter (and,
    not ``official``, the warning of a self-check that runs on without it)."""
    version = '.'.join(map(str, sys.version_info[:3]))
    consequence = ('so nothing was graded' if official else
                   'this self-check runs on, with pruning and expansions not checked')
    return (f'the search counter (grader/child/_tally.c) is not built for this Python '
            f'({version}, {sys.executable}): an official grade needs it to count the searches '
            f'("prunes" and the expansions), {consequence}; fix: {fix_command()}; '
            '`grader doctor --require-counter` checks it')


def require_counter():
    """Raise :class:`MissingInstrument` unless the counter is in force (official grades)."""
    if counter() is None:
        raise MissingInstrument(missing_counter_line())


def broken_autograder(error):
    """What a platform (Gradescope, PrairieLearn) tells the student when ``error`` (a
    :class:`MissingInstrument`) stopped the grade: the autograder is broken, not their code."""
    return (f'The autograder is not set up correctly ({error}). This is a problem of the '
            'grader, not of your code: nothing was graded; please tell the course staff.')
