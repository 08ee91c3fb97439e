"""Plain minimax whose recursion goes through a callable kept in a list and code made with
exec at import (no function calls itself by name), beside a self-named alpha-beta
function that does nothing and is called, counted, on about a quarter of the nodes.
Every frame is seen: the real recursion is counted, and it is a whole minimax tree."""
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
STEP = []
SOURCE = '''
def step(board, maximizing, player):
    if IsWinning(board):
        return (-1 if maximizing else 1), None
    if '-' not in board:
        return 0, None
    opponent = 'O' if player == 'X' else 'X'
    best, bestmove = (-2 if maximizing else 2), None
    for move in range(9):
        if board[move] == '-':
            board[move] = player
            if move % 4 == 0:
                alphabeta(0)
            value, _ = STEP[0](board, not maximizing, opponent)
            board[move] = '-'
            if (value > best) if maximizing else (value < best):
                best, bestmove = value, move
    return best, bestmove
'''


def IsWinning(board):
    return any(board[a] != '-' and board[a] == board[b] == board[c] for a, b, c in LINES)


def alphabeta(n):
    return alphabeta(n - 1) if n > 0 else None


exec(SOURCE, globals())
STEP.append(globals().pop('step'))


def Minimax(board, maximizingplayer, player):
    return STEP[0](board, maximizingplayer, player)
