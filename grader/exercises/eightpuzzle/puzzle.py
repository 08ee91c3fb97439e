"""The eight puzzle as plain data: states, slides, parity, distances, drawing.

Standard library only, so the same helpers serve the sandboxed child (which
instruments a student's module) and the trusted parent (which judges the
observations and writes feedback).

A *state* is a sequence of nine ints, a permutation of 0..8 read row by row
from the top-left corner; 0 is the blank. A *move* is the offset the blank
travels by, one of +1 (right), -1 (left), +3 (down), -3 (up), the same
offsets the handout's ``LegalMoves`` uses.
"""

GOAL = (1, 2, 3, 4, 5, 6, 7, 8, 0)
SIDE = 3
OFFSETS = (1, -1, 3, -3)
BLANK = 0
PLACE = tuple(10 ** (8 - square) for square in range(9))
"""``PLACE[square]``: what a tile on ``square`` adds to :func:`as_number` per unit of its
number (the place value of its digit)."""


def is_state(value):
    """True if ``value`` is a list or tuple holding each of 0..8 exactly once."""
    return (isinstance(value, (list, tuple)) and len(value) == 9
            and all(type(tile) is int for tile in value)
            and sorted(value) == list(range(9)))


def legal_moves(position):
    """Offsets the blank may travel by from ``position`` (index 0..8)."""
    row, col = divmod(position, SIDE)
    moves = []
    if col < SIDE - 1:
        moves.append(1)
    if col > 0:
        moves.append(-1)
    if row < SIDE - 1:
        moves.append(3)
    if row > 0:
        moves.append(-3)
    return moves


def apply_move(state, move):
    """The state (a tuple) after the blank travels by ``move``; ValueError if illegal."""
    blank = state.index(BLANK)
    if move not in legal_moves(blank):
        raise ValueError(f"the blank at {blank} cannot move by {move:+d}")
    tiles = list(state)
    tiles[blank], tiles[blank + move] = tiles[blank + move], tiles[blank]
    return tuple(tiles)


SLIDES = tuple(tuple(blank + move for move in legal_moves(blank)) for blank in range(9))
"""``SLIDES[blank]``: the squares the blank on ``blank`` may travel to, in the order of
``OFFSETS``."""


def successors(state):
    """All states one slide away, in the order of ``OFFSETS``."""
    blank = state.index(BLANK)
    return [apply_move(state, move) for move in legal_moves(blank)]


def is_single_slide(before, after):
    """True if ``after`` follows from ``before`` by sliding one tile into the blank."""
    return tuple(after) in successors(tuple(before))


def inversions(state):
    """Number of tile pairs (blank left out) that appear in the wrong order."""
    tiles = [tile for tile in state if tile != BLANK]
    return sum(1 for i in range(len(tiles)) for j in range(i + 1, len(tiles))
               if tiles[i] > tiles[j])


def is_solvable(state):
    """True if ``state`` can reach ``GOAL``.

    On a board of odd width a slide never changes the parity of the
    inversion count, and the goal has none, so exactly the states with an
    even count are solvable (half of the 9! permutations).
    """
    return inversions(state) % 2 == 0


def hamming(state):
    """Tiles (blank left out) not on their goal square."""
    return sum(1 for tile, target in zip(state, GOAL) if tile != BLANK and tile != target)


def manhattan(state):
    """Sum over tiles (blank left out) of rows plus columns to their goal square."""
    total = 0
    for position, tile in enumerate(state):
        if tile != BLANK:
            row, col = divmod(position, SIDE)
            goal_row, goal_col = divmod(GOAL.index(tile), SIDE)
            total += abs(row - goal_row) + abs(col - goal_col)
    return total


def handout_manhattan(state):
    """The handout's ``Manhattan``: with d = |goal index - index|, adds d // 3 + d % 3.

    It never exceeds the true Manhattan distance (so it is admissible) but is
    smaller whenever a tile must cross a row boundary sideways.
    """
    total = 0
    for position, tile in enumerate(state):
        if tile != BLANK:
            d = abs(GOAL.index(tile) - position)
            total += d // SIDE + d % SIDE
    return total


def render(state, blank="."):
    """The state as three lines of text, e.g. ``"1 2 3\\n4 . 6\\n7 5 8"``."""
    cells = [blank if tile == BLANK else str(tile) for tile in state]
    return "\n".join(" ".join(cells[row * SIDE:(row + 1) * SIDE]) for row in range(SIDE))


def render_side_by_side(states, captions=None, gap="   ", blank="."):
    """Several states drawn next to each other, optionally with a caption above each."""
    grids = [render(state, blank).split("\n") for state in states]
    width = 2 * SIDE - 1
    if captions is not None:
        width = max([width] + [len(caption) for caption in captions])
    lines = []
    if captions is not None:
        lines.append(gap.join(caption.ljust(width) for caption in captions).rstrip())
    for row in range(SIDE):
        lines.append(gap.join(grid[row].ljust(width) for grid in grids).rstrip())
    return "\n".join(lines)


_FRAME = " \t[](),|'\""
_BLANKS = "._"


def _digits(line):
    """The tiles of a printed line (blank as 0, '.' or '_'), or None if it is not a row of tiles."""
    text = "".join(ch for ch in line if ch not in _FRAME)
    text = "".join("0" if ch in _BLANKS else ch for ch in text)
    return [int(ch) for ch in text] if text.isdigit() and text.isascii() else None


def printed_states(text):
    """The states found in printed text, in order.

    A state is either three consecutive lines of three tiles each (``123``,
    ``1 2 3``, ``[1, 2, 3]``) or one line of nine tiles; a line of anything
    else ends a grid. Groups that are not a permutation of 0..8 are skipped.
    """
    states, rows = [], []
    for line in text.splitlines():
        tiles = _digits(line)
        if tiles is not None and len(tiles) == 9:
            rows = []
            if is_state(tiles):
                states.append(tuple(tiles))
            continue
        if tiles is None or len(tiles) != SIDE:
            rows = []
            continue
        rows.append(tiles)
        if len(rows) == SIDE:
            state = rows[0] + rows[1] + rows[2]
            rows = []
            if is_state(state):
                states.append(tuple(state))
    return states


def printed_path(text, start):
    """The path a search printed: from the last ``start`` before the last goal, to that goal.

    Debugging output printed before the path (expanded states, the start)
    is left out this way. None if no state was printed.
    """
    states = printed_states(text)
    if not states:
        return None
    start = tuple(start)
    end = max((i for i, s in enumerate(states) if s == GOAL), default=len(states) - 1)
    begin = max((i for i, s in enumerate(states[:end + 1]) if s == start), default=0)
    return states[begin:end + 1]


def as_number(state):
    """The state as one int, its tiles read as the digits of a number (``123456780``)."""
    number = 0
    for tile in state:
        number = number * 10 + tile
    return number


def from_number(number):
    """The state (a tuple) that :func:`as_number` wrote as ``number``."""
    return tuple(int(digit) for digit in str(number).zfill(9))


def within_bound(start, bound, heuristic=hamming):
    """Every state ``s`` with g(s) + heuristic(s) <= ``bound``, g the moves from ``start``.

    Breadth-first from ``start``, not going past a state above the bound.  For a consistent
    heuristic (Hamming, Manhattan: a slide changes them by at most one) g + h never falls
    along a shortest path, so this finds every such state.  When ``bound`` is the optimum,
    these are the only states an A* whose heuristic is consistent and at least ``heuristic``
    ever expands.
    """
    start = tuple(start)
    if heuristic(start) > bound:
        return set()
    depth = {start: 0}
    frontier = [start]
    while frontier:
        following = []
        for state in frontier:
            moves = depth[state] + 1
            for neighbor in successors(state):
                if neighbor not in depth and moves + heuristic(neighbor) <= bound:
                    depth[neighbor] = moves
                    following.append(neighbor)
        frontier = following
    return set(depth)


def hamming_region(start, bound):
    """:func:`within_bound` of ``start`` and ``bound`` with the Hamming distance, each state as
    :func:`as_number` writes it (a frozenset of ints).

    The same breadth-first search, on numbers: a slide moves one tile, so the next number
    and the next Hamming distance follow from that tile alone (no tuple is built), several
    times faster.  The judge asks it for the region of every start it checks.
    """
    start = tuple(start)
    distance = hamming(start)
    if distance > bound:
        return frozenset()
    number = as_number(start)
    seen = {number}
    frontier = [(number, start.index(BLANK), distance)]
    moves = 0
    while frontier:
        moves += 1
        following = []
        for number, blank, distance in frontier:
            for square in SLIDES[blank]:
                tile = number // PLACE[square] % 10
                neighbor = number + tile * (PLACE[blank] - PLACE[square])
                if neighbor in seen:
                    continue
                after = distance + (tile != GOAL[blank]) - (tile != GOAL[square])
                if moves + after <= bound:
                    seen.add(neighbor)
                    following.append((neighbor, square, after))
        frontier = following
    return frozenset(seen)
