"""Plain minimax written with an explicit stack: no function calls itself, so nothing can
be counted. Honest and correct, it keeps its answers; it never prunes."""

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def IsWinning(board):
    return any(board[a] != '-' and board[a] == board[b] == board[c] for a, b, c in LINES)


def Minimax(board, maximizingplayer, player):
    """(bestvalue, bestmove) by an iterative depth-first minimax over board copies."""
    other = {'X': 'O', 'O': 'X'}
    # frame: [board, maximizing, player, moves left to try, best value, best move, move made]
    root = [list(board), maximizingplayer, player, None, None, None, None]
    stack = [root]
    result = None
    while stack:
        frame = stack[-1]
        cells, maximizing, mover = frame[0], frame[1], frame[2]
        if frame[3] is None:
            if IsWinning(cells):
                result = (-1 if maximizing else 1)
                stack.pop()
                continue
            if '-' not in cells:
                result = 0
                stack.pop()
                continue
            frame[3] = [m for m in range(9) if cells[m] == '-']
            frame[4] = -2 if maximizing else 2
        elif result is not None:
            value, move = result, frame[6]
            if (value > frame[4]) if maximizing else (value < frame[4]):
                frame[4], frame[5] = value, move
            result = None
        if frame[3]:
            move = frame[3].pop(0)
            frame[6] = move
            child = list(cells)
            child[move] = mover
            stack.append([child, not maximizing, other[mover], None, None, None, None])
        else:
            stack.pop()
            result = frame[4]
            if frame is root:
                return frame[4], frame[5]
    return result, None
