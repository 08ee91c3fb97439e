"""Tic-tac-toe against the computer: Minimax ends the program with sys.exit(0) when it
meets a finished game (meant for the end of play, but it happens inside the search)."""
import sys

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


def Minimax(board, maximizingplayer, player):
    if board.count('-') == 9:
        return (0, 4)

    if IsWinning(board) or '-' not in board:
        PrintBoard(board)
        print('Game over!')
        sys.exit(0)

    opponent = 'O' if player == 'X' else 'X'
    bestvalue = -2 if maximizingplayer else 2
    bestmove = None
    for move in range(9):
        if board[move] == '-':
            board[move] = player
            value, _ = Minimax(board, not maximizingplayer, opponent)
            board[move] = '-'
            if maximizingplayer and value > bestvalue or not maximizingplayer and value < bestvalue:
                bestvalue, bestmove = value, move
    return (bestvalue, bestmove)


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
