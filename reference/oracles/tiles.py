"""The eight puzzle as the answer key sees it: the goal, slides, parity and the sheet's heuristics.

Written for the oracle alone and sharing no code with the judge's
``grader/exercises/eightpuzzle/puzzle.py``, so a mistake in either shows as a
disagreement (``tests/test_rules_against_oracles.py`` compares the two on many
random states).  A state is a tuple of nine ints read row by row from the
top-left corner, 0 the blank.  The slides are listed in the handout's order
of ``LegalMoves``: the blank travels right, left, down, up.
"""
GOAL = (1, 2, 3, 4, 5, 6, 7, 8, 0)
BLANK = 0
WIDTH = 3

_STEPS = ((0, 1), (0, -1), (1, 0), (-1, 0))
"""(row, column) steps of the blank, in the handout's order: +1, -1, +3, -3."""

_HOME = {tile: divmod(index, WIDTH) for index, tile in enumerate(GOAL)}
"""Where each tile belongs, as (row, column)."""


def _neighbours(square):
    row, col = divmod(square, WIDTH)
    return tuple((row + d_row) * WIDTH + col + d_col for d_row, d_col in _STEPS
                 if 0 <= row + d_row < WIDTH and 0 <= col + d_col < WIDTH)


NEIGHBOURS = tuple(_neighbours(square) for square in range(WIDTH * WIDTH))
"""``NEIGHBOURS[square]``: the squares the blank at ``square`` may move to, in order."""


PLACE = tuple(10 ** (WIDTH * WIDTH - 1 - square) for square in range(WIDTH * WIDTH))
"""``PLACE[square]``: the place value of ``square``'s digit in :func:`number`."""


def number(state):
    """The state as one int, its tiles the digits read row by row (the goal: 123456780)."""
    return sum(tile * PLACE[square] for square, tile in enumerate(state))


def is_state(value):
    """A list or tuple holding each of 0..8 once (ints, not bools)."""
    if not isinstance(value, (list, tuple)) or len(value) != 9:
        return False
    return all(type(tile) is int for tile in value) and set(value) == set(range(9))


def slides(state):
    """The states one slide away (tuples), in the handout's order."""
    blank = state.index(BLANK)
    found = []
    for square in NEIGHBOURS[blank]:
        tiles = list(state)
        tiles[blank], tiles[square] = tiles[square], BLANK
        found.append(tuple(tiles))
    return found


def solvable(state):
    """Whether the goal can be reached: an even number of inverted tile pairs (merge count)."""
    tiles = [tile for tile in state if tile != BLANK]
    inverted = 0
    for later, tile in enumerate(tiles):
        inverted += sum(1 for earlier in tiles[:later] if earlier > tile)
    return inverted % 2 == 0


def misplaced(state):
    """The sheet's Hamming distance: tiles (the blank left out) off their goal square."""
    return sum(1 for index, tile in enumerate(state)
               if tile != BLANK and divmod(index, WIDTH) != _HOME[tile])


def city_block(state):
    """The sheet's Manhattan distance: rows plus columns from each tile to its goal square."""
    total = 0
    for index, tile in enumerate(state):
        if tile != BLANK:
            row, col = divmod(index, WIDTH)
            total += abs(row - _HOME[tile][0]) + abs(col - _HOME[tile][1])
    return total


def handout_city_block(state):
    """The handout's ``Manhattan``: with d the distance between a tile's index and its goal
    index in the flat list, each tile adds d // 3 + d % 3."""
    total = 0
    for index, tile in enumerate(state):
        if tile != BLANK:
            home = _HOME[tile][0] * WIDTH + _HOME[tile][1]
            total += sum(divmod(abs(home - index), WIDTH))
    return total
