# Example submission: alpha-beta on the handout's Minimax entry point.
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


def Minimax(board, maximizingplayer, player, alpha=-2, beta=2):
    if board.count('-') == 9:
        return 0, 4
    opponent = 'O' if player == 'X' else 'X'
    bestmove = -1
    if maximizingplayer:
        bestvalue = -2
    else:
        bestvalue = 2
    for move in range(9):
        if board[move] != '-':
            continue
        board[move] = player
        if IsWinning(board):
            value = 1 if maximizingplayer else -1
        elif '-' not in board:
            value = 0
        else:
            value, _ = Minimax(board, not maximizingplayer, opponent, alpha, beta)
        board[move] = '-'
        if maximizingplayer and value > bestvalue:
            bestvalue, bestmove = value, move
            alpha = max(alpha, value)
        elif not maximizingplayer and value < bestvalue:
            bestvalue, bestmove = value, move
            beta = min(beta, value)
        if alpha >= beta:
            break
    return bestvalue, bestmove


def main():
    board = ['-'] * 9
    while not IsWinning(board) and '-' in board:
        PrintBoard(board)
        move = int(input('Your move: '))
        board[move] = 'X'
        if IsWinning(board) or '-' not in board:
            break
        _, reply = Minimax(board, True, 'O')
        board[reply] = 'O'
    PrintBoard(board)


if __name__ == '__main__':
    main()
