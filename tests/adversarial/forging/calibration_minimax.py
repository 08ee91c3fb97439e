"""Searches one ply itself, then calls the grader's own plain minimax (the calibration
workload) for the rest. Nothing of the grader is importable in the sandbox."""

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def IsWinning(board):
    return any(board[a] != '-' and board[a] == board[b] == board[c] for a, b, c in LINES)


def Minimax(board, maximizingplayer, player):
    from grader.calibrate import _minimax
    opponent = 'O' if player == 'X' else 'X'
    best, bestmove = (-2 if maximizingplayer else 2), None
    for move in range(9):
        if board[move] == '-':
            board[move] = player
            value = _minimax(board, not maximizingplayer, opponent)
            board[move] = '-'
            if (value > best) if maximizingplayer else (value < best):
                best, bestmove = value, move
    return best, bestmove
