"""An honest alpha-beta that warns, logs, prints, raises the recursion limit and checks
its board on a helper thread inside the search: none of it is tampering."""
import logging
import sys
import threading
import warnings

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
sys.setrecursionlimit(5000)
log = logging.getLogger('tictactoe')


def IsWinning(board):
    return any(board[a] != '-' and board[a] == board[b] == board[c] for a, b, c in LINES)


def Minimax(board, maximizingplayer, player, alpha=-2, beta=2, depth=0):
    if depth == 0:
        warnings.warn('searching', RuntimeWarning)
        log.warning('searching from %s', ''.join(board))
        print('thinking...')
        checked = []
        helper = threading.Thread(target=lambda: checked.append(len(board) == 9))
        helper.start()
        helper.join()
    if IsWinning(board):
        return (-1 if maximizingplayer else 1), None
    if '-' not in board:
        return 0, None
    opponent = 'O' if player == 'X' else 'X'
    best, bestmove = (-2 if maximizingplayer else 2), None
    for move in range(9):
        if board[move] != '-':
            continue
        board[move] = player
        value, _ = Minimax(board, not maximizingplayer, opponent, alpha, beta, depth + 1)
        board[move] = '-'
        if (value > best) if maximizingplayer else (value < best):
            best, bestmove = value, move
        if maximizingplayer:
            alpha = max(alpha, best)
        else:
            beta = min(beta, best)
        if alpha >= beta:
            break
    return best, bestmove
