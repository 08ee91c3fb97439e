"""A bitboard connect four searcher for generating fixture expectations.

Independent of the list-of-lists code in ``reference/connect4.py`` and of
``grader/exercises/connect4/rules.py`` on purpose: the fixture rows are read,
checked and written here too, and tests compare the three
(``tests/test_rules_against_oracles.py`` on many random boards).

Layout: one bit per cell, bit ``col * 7 + row`` (row 0 at the bottom); the
7th bit of every column stays empty as a sentinel so that shifts do not wrap.
A position is the pair ``(o, x)`` of the two players' bitboards.  The search
root always has 'o' (the maximizer) to move; deeper positions have 'o' to move
when an even number of pieces was added since the root.

Depth convention (the sheet's alphabeta pseudocode): a position is evaluated
when the remaining depth is 0 or the position is terminal ('o' or 'x' has four
in a row, or the board is full); otherwise each legal move is made and the
child searched with depth - 1.  So depth 1 evaluates the children of the root.
"""
H = 7                      # bits per column: 6 cells and a sentinel
ROWS, COLS = 6, 7
MOVE_ORDER = (3, 2, 4, 1, 5, 0, 6)
BOTTOM = [1 << (col * H) for col in range(COLS)]
COLUMN = [((1 << ROWS) - 1) << (col * H) for col in range(COLS)]
FULL = sum(COLUMN)

WIN, BONUS = 512, 16
WEIGHT = {1: 1, 2: 10, 3: 50}
INFINITY = 1000000000


def _bit(row, col):
    return 1 << (col * H + row)


def _windows():
    windows = []
    for row in range(ROWS):
        for col in range(COLS):
            for d_row, d_col in ((0, 1), (1, 0), (1, 1), (-1, 1)):
                cells = [(row + k * d_row, col + k * d_col) for k in range(4)]
                if all(0 <= r < ROWS and 0 <= c < COLS for r, c in cells):
                    windows.append(sum(_bit(r, c) for r, c in cells))
    return windows


WINDOWS = _windows()
assert len(WINDOWS) == 69

try:
    popcount = int.bit_count
except AttributeError:          # Python < 3.10
    def popcount(bits):
        return bin(bits).count('1')


def from_board(board):
    """Handout board (row 0 bottom, ' '/'x'/'o') -> (o, x) bitboards."""
    o = x = 0
    for row in range(ROWS):
        for col in range(COLS):
            if board[row][col] == 'o':
                o |= _bit(row, col)
            elif board[row][col] == 'x':
                x |= _bit(row, col)
    return o, x


def from_rows(rows):
    """Fixture rows (6 strings of 7 cells, TOP row first, '.' empty) -> (o, x) bitboards;
    ValueError when they are not a board."""
    if len(rows) != ROWS or any(len(row) != COLS for row in rows):
        raise ValueError('a board is 6 rows of 7 cells')
    o = x = 0
    for top_index, line in enumerate(rows):
        for col, cell in enumerate(line):
            if cell == 'o':
                o |= _bit(ROWS - 1 - top_index, col)
            elif cell == 'x':
                x |= _bit(ROWS - 1 - top_index, col)
            elif cell != '.':
                raise ValueError("a cell is '.', 'x' or 'o', not %r" % cell)
    return o, x


def to_rows(o, x):
    """(o, x) -> fixture rows, top row first."""
    return [''.join('o' if o & _bit(row, col) else 'x' if x & _bit(row, col) else '.'
                    for col in range(COLS)) for row in reversed(range(ROWS))]


def height(o, x, col):
    """The row a piece dropped in ``col`` lands on (6 when the column is full)."""
    return popcount((o | x) & COLUMN[col])


def problems(o, x):
    """Why (o, x) is not a position with 'o' to move ([] if it is): a piece floating above
    an empty cell, #x - #o other than 0 or 1, four in a row already, a full board."""
    found = []
    for col in range(COLS):
        stack = ((o | x) & COLUMN[col]) >> (col * H)
        if stack & (stack + 1):
            found.append('column %d has a piece floating above an empty cell' % col)
    difference = popcount(x) - popcount(o)
    if difference not in (0, 1):
        found.append("with 'o' to move #x - #o must be 0 or 1, not %d" % difference)
    for mark, bits in (('x', x), ('o', o)):
        if won(bits):
            found.append('%r already has four in a row' % mark)
    if (o | x) == FULL:
        found.append('the board is full')
    return found


def won(bits):
    """Four in a row in ``bits`` (vertical, horizontal, both diagonals)."""
    for shift in (1, H, H - 1, H + 1):
        pairs = bits & (bits >> shift)
        if pairs & (pairs >> (2 * shift)):
            return True
    return False


def terminal(o, x):
    return won(o) or won(x) or (o | x) == FULL


def evaluate(o, x, o_to_move):
    """The canonical evaluation ('o' maximizes) of the position (o, x)."""
    if won(o):
        return WIN
    if won(x):
        return -WIN
    if (o | x) == FULL:
        return 0
    total = 0
    for window in WINDOWS:
        mine, theirs = o & window, x & window
        if mine:
            if not theirs:
                total += WEIGHT[popcount(mine)]
        elif theirs:
            total -= WEIGHT[popcount(theirs)]
    return total + (BONUS if o_to_move else -BONUS)


def moves(o, x):
    """(column, move bit) of every legal move, in the handout's order."""
    mask = o | x
    result = []
    for col in MOVE_ORDER:
        move = (mask + BOTTOM[col]) & COLUMN[col]
        if move:
            result.append((col, move))
    return result


class Search:
    """Depth-limited searches from one root position ('o' to move).

    Results of the plain-minimax quantities are memoized on
    (o, x, depth): they depend on nothing else, because the side to move
    follows from the piece count.  The children and the terminal test of a
    position are kept on (o, x): every search below visits the same positions.
    """

    def __init__(self, o, x):
        self.root = (o, x)
        self.root_parity = popcount(o | x) % 2
        self._values, self._leaves, self._nodes, self._static = {}, {}, {}, {}
        self._children, self._terminal = {}, {}

    def o_to_move(self, o, x):
        return popcount(o | x) % 2 == self.root_parity

    def static(self, o, x):
        key = (o, x)
        if key not in self._static:
            self._static[key] = evaluate(o, x, self.o_to_move(o, x))
        return self._static[key]

    def terminal(self, o, x):
        """:func:`terminal` of (o, x), kept: every search below asks it of the same positions."""
        key = (o, x)
        if key not in self._terminal:
            self._terminal[key] = terminal(o, x)
        return self._terminal[key]

    def children(self, o, x):
        """``[(column, o, x)]`` after each legal move, in the handout's order (kept)."""
        key = (o, x)
        if key not in self._children:
            if self.o_to_move(o, x):
                self._children[key] = [(col, o | move, x) for col, move in moves(o, x)]
            else:
                self._children[key] = [(col, o, x | move) for col, move in moves(o, x)]
        return self._children[key]

    def minimax(self, o, x, depth):
        """Depth-limited minimax value of (o, x)."""
        key = (o, x, depth)
        if key not in self._values:
            if depth == 0 or self.terminal(o, x):
                value = self.static(o, x)
            else:
                values = [self.minimax(co, cx, depth - 1)
                          for _, co, cx in self.children(o, x)]
                value = max(values) if self.o_to_move(o, x) else min(values)
            self._values[key] = value
        return self._values[key]

    def root_values(self, depth):
        """{column: minimax value after playing it} at the root."""
        o, x = self.root
        return {col: self.minimax(co, cx, depth - 1)
                for col, co, cx in self.children(o, x)}

    def minimax_leaves(self, o, x, depth):
        """Evaluations plain minimax makes below and at (o, x)."""
        key = (o, x, depth)
        if key not in self._leaves:
            if depth == 0 or self.terminal(o, x):
                self._leaves[key] = 1
            else:
                self._leaves[key] = sum(
                    self.minimax_leaves(co, cx, depth - 1)
                    for _, co, cx in self.children(o, x))
        return self._leaves[key]

    def minimax_nodes(self, o, x, depth):
        """Moves (MakeMove calls) plain minimax makes below (o, x)."""
        key = (o, x, depth)
        if key not in self._nodes:
            if depth == 0 or self.terminal(o, x):
                self._nodes[key] = 0
            else:
                self._nodes[key] = sum(
                    1 + self.minimax_nodes(co, cx, depth - 1)
                    for _, co, cx in self.children(o, x))
        return self._nodes[key]

    def alphabeta(self, depth):
        """(value, evaluations, moves made) of the sheet's alphabeta.

        Fail-soft, children in the handout's order, cut-off when
        beta <= alpha, started with the window (-10**9, 10**9).
        """
        counts = [0, 0]

        def search(o, x, depth, alpha, beta):
            if depth == 0 or self.terminal(o, x):
                counts[0] += 1
                return self.static(o, x)
            maximizing = self.o_to_move(o, x)
            value = -INFINITY if maximizing else INFINITY
            for _, co, cx in self.children(o, x):
                counts[1] += 1
                child = search(co, cx, depth - 1, alpha, beta)
                if maximizing:
                    value = max(value, child)
                    alpha = max(alpha, value)
                else:
                    value = min(value, child)
                    beta = min(beta, value)
                if beta <= alpha:
                    break
            return value

        value = search(self.root[0], self.root[1], depth, -INFINITY, INFINITY)
        return value, counts[0], counts[1]

    def proof_leaves(self, depth):
        """The fewest evaluations any correct depth-limited search makes from the root.

        The smallest proof tree over every order of moves and every way of
        cutting branches (Knuth and Moore's critical tree): one child of
        each position searched exactly, every other child only as far as
        the bound that rules it out.  Each position evaluated at depth 0
        counts 1; a finished position (four in a row, a full board) counts 0,
        since a search may score it without calling the evaluation.
        """
        at_least, at_most, exact = {}, {}, {}

        def bound(o, x, depth, value, lower):
            table = at_least if lower else at_most
            key = (o, x, depth, value)
            if key not in table:
                if depth == 0 or self.terminal(o, x):
                    static = self.static(o, x)
                    table[key] = (0 if self.terminal(o, x) else 1) \
                        if (static >= value if lower else static <= value) else INFINITY
                else:
                    costs = [bound(co, cx, depth - 1, value, lower)
                             for _, co, cx in self.children(o, x)]
                    one = self.o_to_move(o, x) == lower    # MAX proving >=, MIN proving <=
                    table[key] = min(costs) if one else sum(costs)
            return table[key]

        def proof(o, x, depth):
            key = (o, x, depth)
            if key not in exact:
                if depth == 0 or self.terminal(o, x):
                    exact[key] = 0 if self.terminal(o, x) else 1
                else:
                    value = self.minimax(o, x, depth)
                    lower = not self.o_to_move(o, x)   # the others need: MAX <= value, MIN >= value
                    children = self.children(o, x)
                    costs = [bound(co, cx, depth - 1, value, lower) for _, co, cx in children]
                    total = sum(costs)
                    exact[key] = min(proof(co, cx, depth - 1) + total - cost
                                     for (_, co, cx), cost in zip(children, costs)
                                     if self.minimax(co, cx, depth - 1) == value)
            return exact[key]

        return proof(self.root[0], self.root[1], depth)

