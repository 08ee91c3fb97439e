"""Tic-tac-toe against the computer: alpha-beta pruning, alpha and beta as optional arguments."""

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8),
         (0, 3, 6), (1, 4, 7), (2, 5, 8),
         (0, 4, 8), (2, 4, 6))


def IsWinning(board):
    """True when any line holds three equal marks (it does not say whose)."""
    for a, b, c in LINES:
        if board[a] != '-' and board[a] == board[b] == board[c]:
            return True
    return False


def PrintBoard(board):
    """Print the board top row first, as the keypad shows it."""
    for row in (6, 3, 0):
        print(' ' + ' | '.join(board[row:row + 3]))
        if row:
            print('---+---+---')
    print()


def Minimax(board, maximizingplayer, player, alpha=-2, beta=2):
    """Alpha-beta search.  The game calls Minimax(board, True, player); the
    recursive calls pass the window (alpha, beta) down."""
    if board.count('-') == 9:
        return (0, 4)

    if IsWinning(board):
        if maximizingplayer:
            return (-1, None)
        return (1, None)
    if '-' not in board:
        return (0, None)

    opponent = 'O' if player == 'X' else 'X'
    bestmove = None
    if maximizingplayer:
        v = -2
        for move in range(9):
            if board[move] == '-':
                board[move] = player
                value, _ = Minimax(board, False, opponent, alpha, beta)
                board[move] = '-'
                if value > v:
                    v, bestmove = value, move
                alpha = max(alpha, v)
                if beta <= alpha:
                    break   # beta cut-off
    else:
        v = 2
        for move in range(9):
            if board[move] == '-':
                board[move] = player
                value, _ = Minimax(board, True, opponent, alpha, beta)
                board[move] = '-'
                if value < v:
                    v, bestmove = value, move
                beta = min(beta, v)
                if beta <= alpha:
                    break   # alpha cut-off
    return (v, bestmove)


def main():
    board = ['-'] * 9
    human = ''
    while human not in ('X', 'O'):
        human = input('Do you play X or O? (X moves first) ').strip().upper()
    computer = 'O' if human == 'X' else 'X'
    turn = 'X'
    while not IsWinning(board) and '-' in board:
        PrintBoard(board)
        if turn == human:
            answer = input('Your move (1-9 as on the keypad): ').strip()
            if not answer.isdigit() or not 1 <= int(answer) <= 9:
                print('Type a number from 1 to 9.')
                continue
            move = int(answer) - 1
            if board[move] != '-':
                print('That cell is taken.')
                continue
        else:
            bestvalue, move = Minimax(board, True, computer)
            print(f'The computer plays {move + 1} (value {bestvalue}).')
        board[move] = turn
        turn = 'O' if turn == 'X' else 'X'
    PrintBoard(board)
    if IsWinning(board):
        winner = 'O' if turn == 'X' else 'X'
        print('You win!' if winner == human else 'The computer wins.')
    else:
        print('A draw.')


if __name__ == '__main__':
    main()
