"""Plain minimax nested in a closure inside Minimax: the nested function is the
submission's and is counted. Correct answers; no pruning."""

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def IsWinning(board):
    return any(board[a] != '-' and board[a] == board[b] == board[c] for a, b, c in LINES)


def Minimax(board, maximizingplayer, player):
    def search(maximizing, mover):
        if IsWinning(board):
            return (-1 if maximizing else 1), None
        if '-' not in board:
            return 0, None
        opponent = 'O' if mover == 'X' else 'X'
        best, bestmove = (-2 if maximizing else 2), None
        for move in range(9):
            if board[move] == '-':
                board[move] = mover
                value, _ = search(not maximizing, opponent)
                board[move] = '-'
                if (value > best) if maximizing else (value < best):
                    best, bestmove = value, move
        return best, bestmove
    return search(maximizingplayer, player)
