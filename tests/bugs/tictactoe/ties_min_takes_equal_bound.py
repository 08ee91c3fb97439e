"""Classic bug (ties on bounded values; seed 000's alpha-beta, min_value): the min node takes
a child on a tie (``<=`` instead of ``<``).  Below a cut-off a child's value is only a
bound, so a later child whose bound equals the best replaces the best move: the value
stays right, the move may lose.  Not optimal in 176 of the 9,040 reachable
position/side cases.
"""

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8),
         (0, 3, 6), (1, 4, 7), (2, 5, 8),
         (0, 4, 8), (2, 4, 6))


def IsWinning(board):
    """True when any line holds three equal marks (whose, it does not say)."""
    return any(board[a] != '-' and board[a] == board[b] == board[c]
               for a, b, c in LINES)


def PrintBoard(board):
    """Print the board top row first, as the keypad layout shows it."""
    for row in (6, 3, 0):
        print(' | '.join(board[row:row + 3]))
    print()


def other(player):
    return 'O' if player == 'X' else 'X'


def Minimax(board, maximizingplayer, player, alpha=-1, beta=1):
    """Alpha-beta search; see the module docstring for the contract.

    The board is changed during the search and restored before returning.
    Terminal positions are scored when the search enters them: a position in
    which a line is complete was won by the player who moved last.
    """
    if IsWinning(board):
        return (-1 if maximizingplayer else 1), None
    if '-' not in board:
        return 0, None
    if maximizingplayer:
        return max_value(board, player, alpha, beta)
    return min_value(board, player, alpha, beta)


def max_value(board, player, alpha, beta):
    """max_value(node, alpha, beta) of the course pseudocode, with the move."""
    v, best = -2, None
    for move in range(9):
        if board[move] != '-':
            continue
        board[move] = player
        child, _ = Minimax(board, False, other(player), alpha, beta)
        board[move] = '-'
        if child > v:
            v, best = child, move
        alpha = max(alpha, v)
        if alpha >= beta:
            return v, best
    return v, best


def min_value(board, player, alpha, beta):
    """min_value(node, alpha, beta) of the course pseudocode, with the move."""
    v, best = 2, None
    for move in range(9):
        if board[move] != '-':
            continue
        board[move] = player
        child, _ = Minimax(board, True, other(player), alpha, beta)
        board[move] = '-'
        if child <= v:
            v, best = child, move
        beta = min(beta, v)
        if alpha >= beta:
            return v, best
    return v, best


def main():
    board = ['-'] * 9
    human, computer = 'X', 'O'
    turn = human
    while not IsWinning(board) and '-' in board:
        PrintBoard(board)
        if turn == human:
            move = int(input('Your move (0-8): '))
            if board[move] != '-':
                continue
        else:
            _, move = Minimax(board, True, computer)
        board[move] = turn
        turn = other(turn)
    PrintBoard(board)


if __name__ == '__main__':
    main()
