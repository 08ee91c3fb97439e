"""Calibration: how fast this machine runs plain Python search, right now.

Time limits in grading.yaml are multiples of the *unit*: the median CPU time of
a fixed workload (plain minimax over the tic-tac-toe game tree after one
corner mark, 31,973 calls) timed at the start of a run on the grading
machine.  A slower laptop or a loaded CI runner gets a larger unit, so a
correct handout-style solution never times out, while an exponential
blow-up still does.

The workload takes a tenth of a second of CPU, so a run measures it in a
process of its own (:func:`start`), on another core while the grader
imports, reads its policy and starts the first child: a thread would hold
the interpreter lock that the grader's own work needs.  That process loads
nothing but this module (``os``, ``sys`` and ``time``, which every
interpreter has loaded at its start) and prints its samples as plain numbers.

The measurement stops before ``repeats`` samples once those taken already
fix the median of ``repeats`` within :data:`AGREEMENT` (with three, when the
first two agree: the third could only put the median between them).
"""
import os
import sys
import time

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def _won(board):
    for a, b, c in LINES:
        if board[a] != '-' and board[a] == board[b] == board[c]:
            return True
    return False


def _minimax(board, maximizing, player):
    """Plain minimax, terminal children scored inline (the workload)."""
    other = 'O' if player == 'X' else 'X'
    best = -2 if maximizing else 2
    for move in range(9):
        if board[move] != '-':
            continue
        board[move] = player
        if _won(board):
            value = 1 if maximizing else -1
        elif '-' not in board:
            value = 0
        else:
            value = _minimax(board, not maximizing, other)
        board[move] = '-'
        best = max(best, value) if maximizing else min(best, value)
    return best


def workload():
    board = ['X'] + ['-'] * 8
    return _minimax(board, True, 'O')


AGREEMENT = 0.01
"""How close the samples taken must fix the median of all ``repeats`` to stop early."""

WORKLOAD = 'plain minimax, tic-tac-toe after one corner mark (31,973 calls)'

_clock = time.thread_time


def median_bounds(taken, repeats):
    """``(low, high)``: where the median of ``repeats`` samples must lie, whatever the
    samples still to come, given the samples ``taken`` so far; None while a sample to
    come could still put it anywhere.

    The median is the sample of the middle rank (or the two middle ones averaged); each
    sample to come may push the sample that ends up at such a rank one place down the
    ranks of those taken, never up: with ``r`` to come, rank ``j`` of all ``repeats``
    holds one of the taken samples of ranks ``j - r`` to ``j``.
    """
    ordered = sorted(taken)
    to_come = repeats - len(ordered)
    middle = [(repeats - 1) // 2, repeats // 2]
    if any(rank - to_come < 0 or rank >= len(ordered) for rank in middle):
        return None
    low = sum(ordered[rank - to_come] for rank in middle) / 2
    high = sum(ordered[rank] for rank in middle) / 2
    return low, high


def samples(repeats=3):
    """The workload's CPU seconds, up to ``repeats`` times: fewer once the samples taken
    fix the median of ``repeats`` within :data:`AGREEMENT`.

    Measured in CPU time of the calling thread, like the limits it scales
    (the child's limits are CPU time too), so other processes competing for
    the cores change it little.
    """
    taken = []
    while len(taken) < repeats:
        start = _clock()
        workload()
        taken.append(_clock() - start)
        bounds = median_bounds(taken, repeats)
        if len(taken) < repeats and bounds and bounds[1] <= bounds[0] * (1 + AGREEMENT):
            break
    return taken


def summary(taken, repeats):
    """The calibration dict for the samples ``taken`` of ``repeats``:
    ``{'unit_seconds', 'samples', 'workload'}``, the unit the median of all ``repeats``
    (the middle of its bounds when fewer were taken)."""
    low, high = median_bounds(taken, repeats) or (0.0, 0.0)
    return {'unit_seconds': round((low + high) / 2, 6),
            'samples': [round(s, 6) for s in taken],
            'workload': WORKLOAD}


def measure(repeats=3):
    """``{'unit_seconds': median, 'samples': [...], 'workload': ...}``, measured here."""
    return summary(samples(repeats), repeats)


def _valid(taken, repeats):
    """Whether ``taken``, read from the measuring process, is what :func:`samples` gives."""
    bounds = median_bounds(taken, repeats) if 0 < len(taken) <= repeats else None
    return bool(bounds) and all(0 < s < 3600 for s in taken) and (
        len(taken) == repeats or bounds[1] <= bounds[0] * (1 + AGREEMENT))


_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_PROGRAM = ('import sys; sys.path.insert(0, sys.argv[1]); '
            'from grader import calibrate; '
            "print(' '.join(map(repr, calibrate.samples(int(sys.argv[2])))))")
"""What the measuring process runs: its samples, as plain numbers on one line."""


class Pending:
    """A calibration measured by a separate Python process; :meth:`result` waits for it.

    The process runs only the grader's own workload (no student code), with
    the interpreter that runs the children.  If it cannot be started or
    gives no usable answer, :meth:`result` measures in this process instead,
    so a calibration is always obtained.
    """

    def __init__(self, repeats=3):
        import subprocess  # here: the measuring process loads no more than it needs
        self.repeats = repeats
        self._result = None
        try:
            self._proc = subprocess.Popen(
                [sys.executable, '-I', '-S', '-c', _PROGRAM, _PACKAGE_PARENT, str(repeats)],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except OSError:
            self._proc = None

    def result(self):
        """The calibration dict of :func:`measure`."""
        if self._result is None:
            self._result = self._answer() or measure(self.repeats)
        return self._result

    def finished(self):
        """Whether :meth:`result` would answer at once."""
        return self._result is not None or self._proc is None or self._proc.poll() is not None

    def close(self):
        """Stop the process if it still runs, and reap it."""
        if self._proc is not None and self._proc.returncode is None:
            self._proc.kill()
            self._proc.communicate()

    def _answer(self):
        import subprocess
        if self._proc is None:
            return None
        try:
            out, _ = self._proc.communicate(timeout=120)
            taken = [float(word) for word in out.split()]
            if self._proc.returncode == 0 and _valid(taken, self.repeats):
                return summary(taken, self.repeats)
        except (subprocess.TimeoutExpired, ValueError):
            self._proc.kill()
            self._proc.wait()
        return None


_started = []


def start(repeats=3):
    """Begin measuring now, in a process of its own, for a later :func:`begun`.

    A command line calls this first thing, so the workload runs on another
    core while the grader loads; :func:`discard` ends it if it is not used.
    """
    if not _started:
        _started.append(Pending(repeats))


def begun(repeats=3):
    """The measurement :func:`start` began with ``repeats`` (taken), or None."""
    if _started and _started[0].repeats == repeats:
        return _started.pop()
    discard()
    return None


def discard():
    """End a measurement begun but never taken (no process is left behind)."""
    while _started:
        _started.pop().close()
