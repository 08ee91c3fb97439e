# ruff: noqa -- a hand-in as a student writes it (the handout's code and theirs)
"""Tic-tac-toe against the computer: exercise template.

You play against the computer in the terminal.  Your task is the computer's
search: implement ``Minimax(board, maximizingplayer, player)`` below, with
plain minimax or with alpha-beta pruning.  ``IsWinning``, ``PrintBoard`` and
``main`` are provided; leave them as they are.

The contract the grader checks:

- The board is a list of 9 one-character strings: '-' for an empty cell,
  'X' and 'O' (upper case) for the marks.  The cells are numbered like the
  numeric keypad of a keyboard, index 0 at the bottom-left and 8 at the
  top-right:

      7 | 8 | 9         6 | 7 | 8
      --+---+--         --+---+--
      4 | 5 | 6   ->    3 | 4 | 5
      --+---+--         --+---+--
      1 | 2 | 3         0 | 1 | 2
      (keypad)          (board index)

- ``player`` is the mark that moves now.  ``maximizingplayer`` tells whether
  that mark is the maximizing side (True) or the minimizing side (False).
  The game calls ``Minimax(board, True, computer)``: the computer maximizes.
- ``Minimax`` returns a pair ``(bestvalue, bestmove)``:
  ``bestvalue`` is the value of the position from the MAXIMIZING side's
  point of view, when both sides play perfectly: +1 if the maximizer wins,
  0 for a draw, -1 if the minimizer wins.  ``bestmove`` is an index 0-8 of
  an empty cell where ``player`` reaches that value.
- A position is over when ``IsWinning(board)`` is True (some line holds
  three equal marks; the winner is the side that moved last) or when no
  cell is empty (a draw).
- After the search the board must be exactly as it was: undo every move you
  try (put '-' back), or search on a copy of the board.
- You may add optional parameters with default values, for example
  ``Minimax(board, maximizingplayer, player, alpha=-2, beta=2)`` for
  alpha-beta, and helper functions of your own; the game and the grader call
  ``Minimax`` with the three arguments above.  +2 and -2 are large enough to
  stand for plus and minus infinity, because every value is -1, 0 or +1.
"""

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


BIG = 10


def Minimax(board, maximizingplayer, player, alpha=-BIG, beta=BIG):
    """Minimax with alpha-beta pruning."""
    if board.count('-') == 9:
        return (0, 4)
    s = terminal_value(board, maximizingplayer)
    if s is not None:
        return (s, None)
    best_idx = None
    if maximizingplayer:
        best_val = -BIG
        for cell in range(9):
            if board[cell] == '-':
                board[cell] = player
                val, mv = Minimax(board, False, flip(player), alpha, beta)
                board[cell] = '-'
                if val > best_val:
                    best_val = val
                    best_idx = cell
                if best_val > alpha:
                    alpha = best_val
                if alpha >= beta:
                    break
    else:
        best_val = BIG
        for cell in range(9):
            if board[cell] == '-':
                board[cell] = player
                val, mv = Minimax(board, True, flip(player), alpha, beta)
                board[cell] = '-'
                if val < best_val:
                    best_val = val
                    best_idx = cell
                if best_val < beta:
                    beta = best_val
                if alpha >= beta:
                    break
    return (best_val, best_idx)


def terminal_value(board, is_max):
    if IsWinning(board):
        return -1 if is_max else 1
    if '-' not in board:
        return 0
    return None


def flip(p):
    if p == 'X':
        return 'O'
    return 'X'


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
