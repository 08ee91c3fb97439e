# Example submission: plain minimax that forgets to undo its moves,
# and a game that starts at import.
def IsWinning(board):
    lines = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
    for a, b, c in lines:
        if board[a] != '-' and board[a] == board[b] and board[b] == board[c]:
            return True
    return False


def PrintBoard(board):
    print(board[6] + '|' + board[7] + '|' + board[8])
    print(board[3] + '|' + board[4] + '|' + board[5])
    print(board[0] + '|' + board[1] + '|' + board[2])


def Minimax(board, maximizingplayer, player):
    if board.count('-') == 9:
        return 0, 4
    if IsWinning(board):
        return (-1 if maximizingplayer else 1), -1
    if '-' not in board:
        return 0, -1
    opponent = 'O' if player == 'X' else 'X'
    bestmove = -1
    bestvalue = -2 if maximizingplayer else 2
    for move in range(9):
        if board[move] == '-':
            board[move] = player
            value, _ = Minimax(board, not maximizingplayer, opponent)
            if (maximizingplayer and value > bestvalue) or (not maximizingplayer and value < bestvalue):
                bestvalue, bestmove = value, move
    return bestvalue, bestmove


def main():
    board = ['-'] * 9
    while not IsWinning(board) and '-' in board:
        PrintBoard(board)
        move = int(input('Your move: '))
        board[move] = 'X'
        _, reply = Minimax(board, True, 'O')
        board[reply] = 'O'


main()
