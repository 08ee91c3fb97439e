"""Calibration: how fast this machine runs plain Python search, right now.

Time limits in grading.yaml are multiples of the *unit*: the median CPU time of
a fixed workload (plain minimax over the tic-tac-toe game tree after one
corner mark, 31,973 calls) timed at the start of a run on the grading
machine.  A slower laptop or a loaded CI runner gets a larger unit, so a
correct handout-style solution never times out, while an exponential
blow-up still does.

The workload takes a few tenths of a second of CPU, so a run measures it in
a process of its own (:func:`start`), on another core while the grader
imports, reads its policy and starts the first child: a thread would hold
the interpreter lock that the grader's own work needs.
"""
import json
import os
import subprocess
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


def measure(repeats=3):
    """``{'unit_seconds': median, 'samples': [...], 'workload': ...}``.

    Measured in CPU time of the calling thread, like the limits it scales
    (the child's limits are CPU time too), so other processes competing for
    the cores change it little.
    """
    samples = []
    for _ in range(repeats):
        start = time.thread_time()
        workload()
        samples.append(time.thread_time() - start)
    import statistics  # after the workload: not on the way to starting it
    return {'unit_seconds': round(statistics.median(samples), 6),
            'samples': [round(s, 6) for s in samples],
            'workload': 'plain minimax, tic-tac-toe after one corner mark (31,973 calls)'}


_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_PROGRAM = ('import json, sys; sys.path.insert(0, sys.argv[1]); '
            'from grader import calibrate; '
            'print(json.dumps(calibrate.measure(int(sys.argv[2]))))')


class Pending:
    """A calibration measured by a separate Python process; :meth:`result` waits for it.

    The process runs only the grader's own workload (no student code), with
    the interpreter that runs the children.  If it cannot be started or
    gives no usable answer, :meth:`result` measures in this process instead,
    so a calibration is always obtained.
    """

    def __init__(self, repeats=3):
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
        if self._proc is None:
            return None
        try:
            out, _ = self._proc.communicate(timeout=120)
            answer = json.loads(out)
            if self._proc.returncode == 0 and answer['unit_seconds'] > 0:
                return answer
        except (subprocess.TimeoutExpired, ValueError, KeyError, TypeError):
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
