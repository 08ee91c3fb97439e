"""Tic-tac-toe positions as text, for feedback (parent side)."""


def from_rows(rows):
    """Three rows, top row first -> keypad-indexed list (index 0 bottom-left)."""
    top, middle, bottom = rows
    return list(bottom) + list(middle) + list(top)


def draw(board):
    """The board top row first, with the keypad indices beside it."""
    lines = []
    for row, start in enumerate((6, 3, 0)):
        cells = [board[i] if board[i] in 'XO' else ' ' for i in range(start, start + 3)]
        lines.append(f'  {cells[0]} | {cells[1]} | {cells[2]}      {start} {start + 1} {start + 2}')
        if row < 2:
            lines.append(' ---+---+---')
    return '\n'.join(lines)


def turned(index):
    """Where keypad cell ``index`` goes when the board is turned a quarter counter-clockwise."""
    row, col = divmod(index, 3)             # row 0 is the bottom row
    return col * 3 + (2 - row)


def turn_rows(rows):
    """Three rows (top first) turned a quarter counter-clockwise (as :func:`turned`)."""
    board = from_rows(rows)
    after = ['-'] * 9
    for index, mark in enumerate(board):
        after[turned(index)] = mark
    return [''.join(after[6:9]), ''.join(after[3:6]), ''.join(after[0:3])]
