"""Connect four rules and the canonical evaluation (standard library only).

This module is imported on both sides of grading: the judge uses it to read
fixture boards and draw them in feedback, and the probe injects
:func:`canonical_evaluation` into the student's ``ConnectFour`` object in place
of the student's own ``evaluation``, so that every submission is searched
against the same numbers.

Board conventions (the handout's): a board is a list of 6 rows of 7 one-char
cells, indexed ``board[row][col]`` with row 0 at the BOTTOM; a cell is ``' '``
(empty), ``'x'`` (the human) or ``'o'`` (the computer).  Fixture files write a
board as 6 strings of 7 characters, TOP row first, with ``'.'`` for empty.

Canonical evaluation (the course sheet, after Rivest 1988, with the sign
turned so that the computer 'o' is the maximizer, as in the handout code):

1. 'o' has four in a row -> +512; otherwise 'x' has four in a row -> -512;
   otherwise the board is full -> 0.
2. Otherwise the sum over all 69 four-cell segments (24 horizontal,
   21 vertical, 24 diagonal) of: +1/+10/+50 for a segment holding 1/2/3 'o'
   marks and no 'x'; -1/-10/-50 for 1/2/3 'x' marks and no 'o'; 0 otherwise.
3. Plus the side-to-move term: +16 when 'o' is to move, -16 when 'x' is.

The handout's own ``evaluation`` reads the wrong cells on both diagonals and
always adds +16 (its ``turn`` never changes).  The canonical one scores the true
diagonals, and derives the side to move from the number of pieces added since
the search root, where 'o' is to move: an even number of added pieces means
'o' is to move again.
"""
from operator import itemgetter

ROWS = 6
COLS = 7
EMPTY = ' '
HUMAN = 'x'
COMPUTER = 'o'
MARKS = (HUMAN, COMPUTER)
FIXTURE_EMPTY = '.'

#: The handout's move order: centre first, then outwards.
MOVE_ORDER = (3, 2, 4, 1, 5, 0, 6)

WIN_VALUE = 512
SEGMENT_WEIGHTS = {1: 1, 2: 10, 3: 50}
SIDE_TO_MOVE_BONUS = 16


def _segments():
    """All 69 four-cell segments as tuples of (row, col), grouped by direction."""
    horizontal = [tuple((r, c + k) for k in range(4))
                  for r in range(ROWS) for c in range(COLS - 3)]
    vertical = [tuple((r + k, c) for k in range(4))
                for r in range(ROWS - 3) for c in range(COLS)]
    rising = [tuple((r + k, c + k) for k in range(4))
              for r in range(ROWS - 3) for c in range(COLS - 3)]
    falling = [tuple((r - k, c + k) for k in range(4))
               for r in range(3, ROWS) for c in range(COLS - 3)]
    return horizontal, vertical, rising + falling


HORIZONTAL, VERTICAL, DIAGONAL = _segments()
SEGMENTS = HORIZONTAL + VERTICAL + DIAGONAL
assert (len(HORIZONTAL), len(VERTICAL), len(DIAGONAL)) == (24, 21, 24)


# ---------------------------------------------------------------- boards

def parse_board(rows):
    """Fixture rows (6 strings, top first, '.' empty) -> handout board."""
    if len(rows) != ROWS or any(len(row) != COLS for row in rows):
        raise ValueError('a board is 6 rows of 7 cells')
    board = [[EMPTY if cell == FIXTURE_EMPTY else cell for cell in row]
             for row in reversed(rows)]
    for row in board:
        for cell in row:
            if cell not in (EMPTY, HUMAN, COMPUTER):
                raise ValueError("a cell is '.', 'x' or 'o', not %r" % cell)
    return board


def board_rows(board):
    """Handout board -> fixture rows (6 strings, top first, '.' empty)."""
    return [''.join(FIXTURE_EMPTY if cell == EMPTY else cell for cell in row)
            for row in reversed(board)]


def render_board(board):
    """The board as text for feedback: top row first, column numbers below."""
    lines = ['|' + ' '.join(FIXTURE_EMPTY if cell == EMPTY else cell
                            for cell in row) + '|'
             for row in reversed(board)]
    lines.append(' ' + ' '.join(str(col) for col in range(COLS)))
    return '\n'.join(lines)


def copy_board(board):
    return [list(row) for row in board]


def count_pieces(board):
    """Number of marks on the board (0..42)."""
    return sum(cell != EMPTY for row in board for cell in row)


def legal_row(board, col):
    """The row a piece dropped in ``col`` lands on, or -1 when it is full."""
    for row in range(ROWS):
        if board[row][col] == EMPTY:
            return row
    return -1


def legal_moves(board):
    """Playable columns in the handout's order."""
    return [col for col in MOVE_ORDER if board[ROWS - 1][col] == EMPTY]


def is_full(board):
    return all(cell != EMPTY for cell in board[ROWS - 1])


def is_winning(board, mark):
    """True when ``mark`` has four in a row anywhere on the board."""
    return any(all(board[r][c] == mark for r, c in segment)
               for segment in SEGMENTS)


def other(mark):
    return COMPUTER if mark == HUMAN else HUMAN


def position_problems(board):
    """Why ``board`` is not a legal position with 'o' to move ([] if it is).

    Convention: either side may have started (the handout game asks the
    human), so with 'o' to move the counts satisfy #x == #o (the computer
    started) or #x == #o + 1 (the human started).  Pieces rest on the bottom
    or on another piece, nobody has four in a row yet, and the board is not
    full (the game would be over).
    """
    problems = []
    for col in range(COLS):
        column = [board[row][col] for row in range(ROWS)]
        height = legal_row(board, col)
        height = ROWS if height == -1 else height
        if any(cell != EMPTY for cell in column[height:]):
            problems.append('column %d has a piece floating above an empty '
                            'cell' % col)
    x_count = sum(row.count(HUMAN) for row in board)
    o_count = sum(row.count(COMPUTER) for row in board)
    if x_count - o_count not in (0, 1):
        problems.append("with 'o' to move #x - #o must be 0 or 1, not %d"
                        % (x_count - o_count))
    for mark in MARKS:
        if is_winning(board, mark):
            problems.append('%r already has four in a row' % mark)
    if is_full(board):
        problems.append('the board is full')
    return problems


# ---------------------------------------------------------------- evaluation

def _segment_scores():
    """Score of every 4-cell content (81 of them), and the two winning ones."""
    scores = {}
    cells = (EMPTY, HUMAN, COMPUTER)
    for a in cells:
        for b in cells:
            for c in cells:
                for d in cells:
                    content = (a, b, c, d)
                    o_count = content.count(COMPUTER)
                    x_count = content.count(HUMAN)
                    if o_count and not x_count:
                        scores[content] = SEGMENT_WEIGHTS.get(o_count, 0)
                    elif x_count and not o_count:
                        scores[content] = -SEGMENT_WEIGHTS.get(x_count, 0)
                    else:
                        scores[content] = 0
    return scores


_SCORES = _segment_scores()
_CELLS = (EMPTY, HUMAN, COMPUTER)
_O_FOUR = (COMPUTER,) * 4
_X_FOUR = (HUMAN,) * 4
# Each getter picks one segment's four cells out of the flattened board
# (index row * 7 + col).
_GETTERS = [itemgetter(*(r * COLS + c for r, c in segment))
            for segment in SEGMENTS]


def _flatten(board):
    cells = [cell for row in board for cell in row]
    if len(cells) != ROWS * COLS:
        raise ValueError('a board is 6 rows of 7 cells')
    return cells


def static_value(board, o_to_move=True):
    """The canonical evaluation of ``board`` with the given side to move."""
    return _value(_flatten(board), o_to_move)


def _value(cells, o_to_move):
    contents = [get(cells) for get in _GETTERS]
    if _O_FOUR in contents:
        return WIN_VALUE
    if _X_FOUR in contents:
        return -WIN_VALUE
    if EMPTY not in cells:
        return 0
    try:
        total = sum([_SCORES[content] for content in contents])
    except KeyError:
        bad = sorted({cell for cell in cells if cell not in _CELLS})
        raise ValueError("the board holds %s: a cell is ' ', 'x' or 'o'"
                         % ', '.join(repr(cell) for cell in bad)) from None
    return total + (SIDE_TO_MOVE_BONUS if o_to_move else -SIDE_TO_MOVE_BONUS)



def canonical_evaluation(root_board):
    """An ``evaluation(board) -> int`` for a search started at ``root_board``.

    'o' is to move at the root; a position with an even number of pieces
    added since the root has 'o' to move again, an odd number 'x'.
    """
    root_pieces = count_pieces(root_board)

    def evaluation(board):
        cells = _flatten(board)
        o_to_move = (ROWS * COLS - cells.count(EMPTY) - root_pieces) % 2 == 0
        return _value(cells, o_to_move)

    return evaluation


def value_parts(board, o_to_move=True):
    """The canonical evaluation split into its terms, for feedback.

    ``{'four': +512/-512/0 or None, 'horizontal': int, 'vertical': int,
    'diagonal': int, 'side_to_move': +16/-16}``; ``four`` is set (and the
    other terms are then not part of the value) when somebody has four in a
    row or the board is full.
    """
    cells = _flatten(board)
    value = _value(cells, o_to_move)
    parts = {'four': value if value in (WIN_VALUE, -WIN_VALUE) or EMPTY not in cells else None}
    for name, segments in (('horizontal', HORIZONTAL), ('vertical', VERTICAL),
                           ('diagonal', DIAGONAL)):
        parts[name] = sum(_SCORES[tuple(cells[r * COLS + c] for r, c in segment)]
                          for segment in segments)
    parts['side_to_move'] = SIDE_TO_MOVE_BONUS if o_to_move else -SIDE_TO_MOVE_BONUS
    return parts
