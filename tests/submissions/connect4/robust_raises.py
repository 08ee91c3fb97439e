"""Connect four: alpha-beta with max/min helpers that start from
'no value yet' (None) and compare with it: TypeError.
"""
import copy


class ConnectFour:
    def __init__(self):
        # Number of pieces on the board (42 = full) and whose turn it is.
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
        pieces = sum(1 for row in range(6) if board[row][col] != ' ')
        if pieces < 6:
            return pieces
        return -1

    def LegalMoves(self, board):
        """The playable columns, centre first: [3, 2, 4, 1, 5, 0, 6]."""
        legalmoves = []
        for col in [3, 2, 4, 1, 5, 0, 6]:
            if self.LegalRow(col, board) != -1:
                legalmoves.append(col)
        return legalmoves

    def MakeMove(self, board, col, player, row):
        """Put ``player``'s mark on (row, col) and count the move."""
        board[row][col] = player
        self.moves += 1
        return board

    def UnmakeMove(self, board, col, row):
        """Empty (row, col) again and uncount the move."""
        board[row][col] = ' '
        self.moves -= 1
        return board

    def IsWinning(self, currentplayer, board):
        """True when ``currentplayer`` has four in a row on ``board``."""
        for i in range(6):
            for j in range(4):
                if all(board[i][j + k] == currentplayer for k in range(4)):
                    return True
        for i in range(3):
            for j in range(7):
                if all(board[i + k][j] == currentplayer for k in range(4)):
                    return True
        for i in range(3):
            for j in range(4):
                if all(board[i + k][j + k] == currentplayer for k in range(4)):
                    return True
        for i in range(3, 6):
            for j in range(4):
                if all(board[i - k][j + k] == currentplayer for k in range(4)):
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
        """The other player's mark."""
        if player == 'x':
            return 'o'
        return 'x'

    def evaluation(self, board):
        """Score ``board`` for the computer 'o' (the maximizer).

        +512 if 'o' has four in a row, -512 if 'x' has, 0 if the board is
        full.  Otherwise every four-cell segment (24 horizontal, 21 vertical,
        24 diagonal) holding only 'o' marks scores +1, +10 or +50 for 1, 2
        or 3 marks, and one holding only 'x' marks -1, -10 or -50; the sum
        gets +16 when 'o' is to move (-16 when ``self.turn`` is 'x').
        """
        if self.IsWinning('o', board):
            return 512
        if self.IsWinning('x', board):
            return -512
        if self.moves == 42:
            return 0
        segments = []
        for i in range(6):                      # horizontal
            for j in range(4):
                segments.append([board[i][j + k] for k in range(4)])
        for i in range(3):                      # vertical
            for j in range(7):
                segments.append([board[i + k][j] for k in range(4)])
        for i in range(3):                      # diagonal, rising
            for j in range(4):
                segments.append([board[i + k][j + k] for k in range(4)])
        for i in range(3, 6):                   # diagonal, falling
            for j in range(4):
                segments.append([board[i - k][j + k] for k in range(4)])
        weights = {1: 1, 2: 10, 3: 50}
        score = 0
        for segment in segments:
            o_marks = segment.count('o')
            x_marks = segment.count('x')
            if o_marks > 0 and x_marks == 0:
                score += weights[o_marks]
            elif x_marks > 0 and o_marks == 0:
                score -= weights[x_marks]
        if self.turn == 'x':
            score -= 16
        else:
            score += 16
        return score

    def alphabetapruning(self, board, depth, opponent, alpha, beta):
        # opponent is the one whose turn it is; the computer 'o' maximizes.
        if opponent == 'o':
            return self.maxfunction(board, depth, alpha, beta)
        return self.minfunction(board, depth, alpha, beta)

    def gameover(self, board):
        return (self.IsWinning('o', board) or self.IsWinning('x', board)
                or len(self.LegalMoves(board)) == 0)

    def maxfunction(self, board, depth, alpha, beta):
        if depth == 0 or self.gameover(board):
            return self.evaluation(board), None
        v = None  # no value yet
        bestmove = None
        for move in self.LegalMoves(board):
            row = self.LegalRow(move, board)
            self.MakeMove(board, move, 'o', row)
            value, _ = self.minfunction(board, depth - 1, alpha, beta)
            self.UnmakeMove(board, move, row)
            if value > v:
                v, bestmove = value, move
            alpha = max(alpha, v)
            if beta <= alpha:
                break  # beta cut-off
        return v, bestmove

    def minfunction(self, board, depth, alpha, beta):
        if depth == 0 or self.gameover(board):
            return self.evaluation(board), None
        v = None  # no value yet
        bestmove = None
        for move in self.LegalMoves(board):
            row = self.LegalRow(move, board)
            self.MakeMove(board, move, 'x', row)
            value, _ = self.maxfunction(board, depth - 1, alpha, beta)
            self.UnmakeMove(board, move, row)
            if value < v:
                v, bestmove = value, move
            beta = min(beta, v)
            if beta <= alpha:
                break  # alpha cut-off
        return v, bestmove

    def minimax(self, board, depth, opponent):
        """Minimax search; returns (value, column).  Same contract as above."""
        # Write your minimax search here if you do not use alpha-beta.
        return None

    def searchingfunction(self, board, depth, opponent):
        """Let the computer (``opponent``) move on ``board``; returns it."""
        newboard = copy.deepcopy(board)
        value, position = self.alphabetapruning(newboard, depth, opponent,
                                                -1000000000, 1000000000)
        # value, position = self.minimax(newboard, depth, opponent)
        board = self.MakeMove(board, position, opponent,
                              self.LegalRow(position, board))
        return board


def PlayerGoesFirst():
    """Ask whether the human starts.  The human is x, the computer o."""
    print('Player is X and AI is O')
    return input('Do you want to play first? (y/n) : ').lower().startswith('y')


def PlayAgain():
    return input('Do you want to play again? (y/n) : ').lower().startswith('y')


def main():
    print('Connect4')
    print('-' * 34)
    while True:
        connectfour = ConnectFour()
        table = [[' '] * 7 for _ in range(6)]
        player, opponent = 'x', 'o'
        turn = player if PlayerGoesFirst() else opponent
        while True:
            connectfour.PrintGameBoard(table)
            if turn == player:
                table = connectfour.PlayerMove(table, player)
            else:
                # The computer's move: alpha-beta (or minimax), depth 6.
                table = connectfour.searchingfunction(table, 6, opponent)
            if connectfour.IsWinning(turn, table):
                connectfour.PrintGameBoard(table)
                if turn == player:
                    print('You won the game!')
                else:
                    print('Computer won the game')
                break
            if connectfour.moves == 42:
                connectfour.PrintGameBoard(table)
                print('Game is tie')
                break
            turn = connectfour.SwitchPlayer(turn)
        if not PlayAgain():
            print('Game ended')
            print('-' * 34)
            break


if __name__ == '__main__':
    main()
