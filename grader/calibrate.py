"""Calibration: how fast this machine runs plain Python search, right now.

Time limits in grading.yaml are multiples of the *unit*: the median CPU time of
a fixed workload (plain minimax over the tic-tac-toe game tree after one
corner mark, 31,973 calls) timed at the start of a run on the grading
machine.  A slower laptop or a loaded CI runner gets a larger unit, so a
correct handout-style solution never times out, while an exponential
blow-up still does.
"""
import statistics
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
    return {'unit_seconds': round(statistics.median(samples), 6),
            'samples': [round(s, 6) for s in samples],
            'workload': 'plain minimax, tic-tac-toe after one corner mark (31,973 calls)'}
