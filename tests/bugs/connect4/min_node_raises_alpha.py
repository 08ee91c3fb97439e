"""Classic bug (the cut-off test): the min node raises alpha with its value instead of
lowering beta, so it cuts off as soon as a child is above the window's bottom.
"""
import copy

HUMAN = 'x'
COMPUTER = 'o'
EMPTY = ' '
INFINITY = 1000000000


class ConnectFour:
    def __init__(self):
        # Pieces on the board (42 = full) and the side to move while the
        # search evaluates a position (0 before any search: 'o' to move).
        self.moves = 0
        self.turn = 0

    def PrintGameBoard(self, board):
        """Draw the board, top row first, column numbers on top."""
        print('  0   1   2   3   4   5   6')
        for row in range(5, -1, -1):
            print('|---|---|---|---|---|---|---|')
            print('| ' + ' | '.join(board[row]) + ' |')
        print('`---------------------------´')

    def LegalRow(self, col, board):
        """The row a piece dropped in ``col`` lands on, or -1 if it is full."""
        for row in range(6):
            if board[row][col] == EMPTY:
                return row
        return -1

    def LegalMoves(self, board):
        """Playable columns, centre first: [3, 2, 4, 1, 5, 0, 6]."""
        return [col for col in [3, 2, 4, 1, 5, 0, 6]
                if self.LegalRow(col, board) != -1]

    def MakeMove(self, board, col, player, row):
        """Put ``player``'s mark on (row, col) and count the move."""
        board[row][col] = player
        self.moves += 1
        return board

    def UnmakeMove(self, board, col, row):
        """Empty (row, col) again and uncount the move."""
        board[row][col] = EMPTY
        self.moves -= 1
        return board

    def IsWinning(self, currentplayer, board):
        """True when ``currentplayer`` has four in a row on ``board``."""
        for segment in self.segments(board):
            if segment.count(currentplayer) == 4:
                return True
        return False

    def PlayerMove(self, board, player):
        """Ask the human for a column and play it."""
        while True:
            answer = input('Choose a column where you want to make your '
                           'move (0-6): ')
            try:
                col = int(answer)
            except ValueError:
                print('Give a number as an integer between 0-6!')
                continue
            if not 0 <= col <= 6:
                print('The range was 0-6!!!')
            elif self.LegalRow(col, board) == -1:
                print('This column is full')
            else:
                return self.MakeMove(board, col, player,
                                     self.LegalRow(col, board))

    def SwitchPlayer(self, player):
        return COMPUTER if player == HUMAN else HUMAN

    def segments(self, board):
        """The 69 four-cell segments: 24 horizontal, 21 vertical, 24 diagonal."""
        segments = []
        for i in range(6):
            for j in range(4):
                segments.append([board[i][j + k] for k in range(4)])
        for i in range(3):
            for j in range(7):
                segments.append([board[i + k][j] for k in range(4)])
        for i in range(3):
            for j in range(4):
                segments.append([board[i + k][j + k] for k in range(4)])
        for i in range(3, 6):
            for j in range(4):
                segments.append([board[i - k][j + k] for k in range(4)])
        return segments

    def evaluation(self, board):
        """The sheet's evaluation with 'o' maximizing.

        +512 if 'o' has four in a row, -512 if 'x' has, 0 on a full board;
        otherwise +1/+10/+50 for every segment with 1/2/3 'o' marks and no
        'x', -1/-10/-50 likewise for 'x', and +16 when 'o' is to move
        (-16 when 'x' is).
        """
        if self.IsWinning(COMPUTER, board):
            return 512
        if self.IsWinning(HUMAN, board):
            return -512
        if all(cell != EMPTY for cell in board[5]):
            return 0
        weights = {0: 0, 1: 1, 2: 10, 3: 50}
        score = 0
        for segment in self.segments(board):
            o_marks, x_marks = segment.count(COMPUTER), segment.count(HUMAN)
            if x_marks == 0:
                score += weights[o_marks]
            elif o_marks == 0:
                score -= weights[x_marks]
        return score + (-16 if self.turn == HUMAN else 16)

    def game_over(self, board):
        """Terminal test: somebody has four in a row or the board is full."""
        return (self.IsWinning(COMPUTER, board) or self.IsWinning(HUMAN, board)
                or not self.LegalMoves(board))

    def cutoff_value(self, board, player):
        """Evaluate ``board`` with ``player`` to move (pseudocode line 03)."""
        saved, self.turn = self.turn, player
        value = self.evaluation(board)
        self.turn = saved
        return value

    def alphabetapruning(self, board, depth, opponent, alpha, beta):
        """Alpha-beta search from the root; returns (value, column).

        ``opponent`` is the mark to move at the root: for 'o' the root is a
        max node (the sheet's alphabeta with maximizingPlayer = TRUE), for
        'x' a min node.  ``column`` is the first move, in LegalMoves order,
        that reaches the value; None when the root itself is evaluated.
        """
        if depth == 0 or self.game_over(board):
            return self.cutoff_value(board, opponent), None
        maximizing = opponent == COMPUTER
        best_value = -INFINITY if maximizing else INFINITY
        best_column = None
        for col in self.LegalMoves(board):
            row = self.LegalRow(col, board)
            self.MakeMove(board, col, opponent, row)
            if maximizing:
                value = self.min_value(board, depth - 1, alpha, beta)
            else:
                value = self.max_value(board, depth - 1, alpha, beta)
            self.UnmakeMove(board, col, row)
            if maximizing and value > best_value:
                best_value, best_column = value, col
                alpha = max(alpha, best_value)
            elif not maximizing and value < best_value:
                best_value, best_column = value, col
                beta = min(beta, best_value)
            if beta <= alpha:
                break
        return best_value, best_column

    def max_value(self, board, depth, alpha, beta):
        """The sheet's alphabeta, lines 02-11: 'o' to move."""
        if depth == 0 or self.game_over(board):
            return self.cutoff_value(board, COMPUTER)
        value = -INFINITY
        for col in self.LegalMoves(board):
            row = self.LegalRow(col, board)
            self.MakeMove(board, col, COMPUTER, row)
            value = max(value, self.min_value(board, depth - 1, alpha, beta))
            self.UnmakeMove(board, col, row)
            alpha = max(alpha, value)
            if beta <= alpha:
                break                                   # beta cut-off
        return value

    def min_value(self, board, depth, alpha, beta):
        """The sheet's alphabeta, lines 12-19: 'x' to move."""
        if depth == 0 or self.game_over(board):
            return self.cutoff_value(board, HUMAN)
        value = INFINITY
        for col in self.LegalMoves(board):
            row = self.LegalRow(col, board)
            self.MakeMove(board, col, HUMAN, row)
            value = min(value, self.max_value(board, depth - 1, alpha, beta))
            self.UnmakeMove(board, col, row)
            alpha = max(alpha, value)
            if beta <= alpha:
                break                                   # alpha cut-off
        return value

    def minimax(self, board, depth, opponent):
        """Plain depth-limited minimax from the root; returns (value, column).

        Same contract as ``alphabetapruning`` without the window.
        """
        if depth == 0 or self.game_over(board):
            return self.cutoff_value(board, opponent), None
        best_value, best_column = None, None
        for col in self.LegalMoves(board):
            row = self.LegalRow(col, board)
            self.MakeMove(board, col, opponent, row)
            value = self.minimax_value(board, depth - 1,
                                       self.SwitchPlayer(opponent))
            self.UnmakeMove(board, col, row)
            if (best_value is None
                    or (opponent == COMPUTER and value > best_value)
                    or (opponent == HUMAN and value < best_value)):
                best_value, best_column = value, col
        return best_value, best_column

    def minimax_value(self, board, depth, player):
        """Minimax value of ``board`` with ``player`` to move."""
        if depth == 0 or self.game_over(board):
            return self.cutoff_value(board, player)
        values = []
        for col in self.LegalMoves(board):
            row = self.LegalRow(col, board)
            self.MakeMove(board, col, player, row)
            values.append(self.minimax_value(board, depth - 1,
                                             self.SwitchPlayer(player)))
            self.UnmakeMove(board, col, row)
        return max(values) if player == COMPUTER else min(values)

    def searchingfunction(self, board, depth, opponent):
        """Let the computer (``opponent``) move on ``board``; returns it."""
        newboard = copy.deepcopy(board)
        value, position = self.alphabetapruning(newboard, depth, opponent,
                                                -INFINITY, INFINITY)
        # value, position = self.minimax(newboard, depth, opponent)
        return self.MakeMove(board, position, opponent,
                             self.LegalRow(position, board))


def PlayerGoesFirst():
    print('Player is X and AI is O')
    return input('Do you want to play first? (y/n) : ').lower().startswith('y')


def PlayAgain():
    return input('Do you want to play again? (y/n) : ').lower().startswith('y')


def main():
    print('Connect4')
    print('-' * 34)
    while True:
        game = ConnectFour()
        table = [[EMPTY] * 7 for _ in range(6)]
        turn = HUMAN if PlayerGoesFirst() else COMPUTER
        while True:
            game.PrintGameBoard(table)
            if turn == HUMAN:
                table = game.PlayerMove(table, HUMAN)
            else:
                table = game.searchingfunction(table, 6, COMPUTER)
            if game.IsWinning(turn, table):
                game.PrintGameBoard(table)
                print('You won the game!' if turn == HUMAN
                      else 'Computer won the game')
                break
            if game.moves == 42:
                game.PrintGameBoard(table)
                print('Game is tie')
                break
            turn = game.SwitchPlayer(turn)
        if not PlayAgain():
            print('Game ended')
            break


if __name__ == '__main__':
    main()
