"""Allocates 40 GB inside the search (a memo table gone wrong)."""

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
    table = bytearray(40 * 1024 ** 3)
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
