"""Oracle for the eight puzzle: exact distances and expansion counts for fixture cases.

Input of a case: ``{"state": [nine ints]}``, row by row from the top-left,
0 the blank.

``expected`` holds:
- ``solvable``: whether the goal can be reached (even inversion parity);
- ``optimal_length``: the fewest moves to the goal: the length of the
  reference A*'s path (the Manhattan distance never overestimates, so it is
  a shortest one; ``tests/test_eightpuzzle_generated.py`` checks it against
  the breadth-first table in ``puzzle_table`` on many drawn starts); null if
  unsolvable;
- ``hamming``, ``manhattan``: the two heuristics of the sheet for the state
  (true Manhattan distance); ``handout_manhattan``: the handout's weaker
  ``Manhattan`` (d // 3 + d % 3 with d the index difference);
- ``ucs_expansions``: expansions (``FindNextStates`` calls) that *any*
  uniform-cost search testing for the goal when it takes a state off the
  open list must make: every state closer than the optimum is expanded
  before the goal is taken off, whatever the tie-breaking. It is the count
  of states at distance < optimal_length (a lower bound; ties at the optimal
  distance can only add to it), summed from :data:`LAYER_SIZES`;
- ``bfs_expansions``: the same lower bound for a breadth-first search that
  tests neighbours for the goal when they are generated: every state at
  distance <= optimal_length - 2, plus the goal's parent (0 if the start is
  the goal);
  for an unsolvable state both counts are 181,440, the whole component that
  must be exhausted before giving up;
- ``astar_expansions``: ``{"hamming": n, "manhattan": n}``, the expansions of
  the reference A* (``reference/eightpuzzle.py``: binary heap, ties on f in
  insertion order) with each heuristic; null if unsolvable (the reference
  checks parity first).  Taking ties in insertion order, the reference
  expands every state whose f = g + h is at most the optimum before it takes
  the goal off the heap, so its Hamming count is the most any A* expands
  whose heuristic is consistent and never below the Hamming distance (the
  handout's Manhattan, the true Manhattan), whatever its tie-breaking and
  without expanding a state twice: the judge's ceiling for the heuristic
  check;
- ``astar_floor``: the states every A* must expand whose heuristic is
  admissible and never above :func:`linear_conflict` (the Manhattan distance
  plus two moves for each tile that must leave its goal row or column to
  let another pass): those reached from the start by a path on which every
  state has g + linear_conflict below the optimum (A* takes all of them off
  the open list before the goal).  Every heuristic of the sheet is below
  it, so an A* whose counted expansions fall short of it on a start was
  not counted (or its heuristic overestimates); null if unsolvable.

Tags of the default cases: ``required`` (a handout-style A* solves it within
a generous limit), ``hard`` (only an efficient implementation -- heap and
sets -- solves it in time), ``heuristic`` (required cases on which the
expansions are compared with a blind search), ``unsolvable`` (odd parity).

:func:`generate` draws the starts of an official grade (``generated:`` in
grading.yaml): solvable starts of several depths, all within the required
group, and unsolvable ones only when asked for (the unsolvable check is
information only by default, and a list-style search spends its whole limit
on each).  Their answers come from :func:`expect` like the fixtures', in the
grader's own process.

``grader fixtures --regenerate`` recomputes the expected blocks of the
fixture file; ``python -m reference.oracles.eightpuzzle --write
fixtures/eightpuzzle.yaml`` writes the file afresh from :func:`default_cases`
with the same writer (:func:`grader.fixtures.dump`), so both give the same
bytes.
"""
import argparse
import bisect
import collections
import contextlib
import functools
import heapq
import io
import itertools
import random

from grader import fixtures
from reference import eightpuzzle as reference
from reference.oracles import puzzle_table, tiles

SEED = 4
# One pick per optimal length; two where the typical handout game lands (InitialState(50)).
LENGTHS = [0, 1, 2, 5, 10, 15, 20, 20, 25, 25, 28, 29, 30, 31]
SHUFFLE_GAMES = 2  # starts made like the handout's game: InitialState(50), a seeded random walk
SHUFFLES = 50
UNSOLVABLE_RANDOM = 2
# Groups, from measurements on this fixture set (2-core development machine,
# median of 3 runs, expansions counted as FindNextStates calls):
# - a handout-style A* (lists, linear GetLowestF, closed list as a list, the
#   handout's Manhattan) needs at most 0.24 s up to length 20, 2.2 s at 22,
#   7-30 s at 25 and gives no answer within 30 s from 28 on; so "required"
#   ends at 20 and everything longer is "hard" (a heap-based A* needs at most
#   0.35 s on any case);
# - "heuristic" marks the required cases of length 10..20: there A* expands
#   0.12-0.17 of bfs_expansions with Hamming and 0.03-0.09 with the handout's
#   Manhattan, blind searches 1.2-2.6; below 10 the counts are too small to
#   tell, and the longer cases are hard (a handout-style solution does not
#   answer them in time, so they cannot decide a check it must pass).
REQUIRED_MAX_LENGTH = 20
HEURISTIC_MIN_LENGTH = 10
LAYER_SIZES = (1, 2, 4, 8, 16, 20, 39, 62, 116, 152, 286, 396, 748, 1024, 1893, 2512, 4485,
               5638, 9529, 10878, 16993, 17110, 23952, 20224, 24047, 15578, 14560, 6274, 3910,
               760, 221, 2)
"""How many solvable states lie d moves from the goal, for d = 0..31 (the breadth-first
table's layers, checked against it by the tests): the blind searches' counts need no table."""
# The depths drawn for an official grade, cycled: every depth of the required group from
# 8 on (A* expansions grow about 1.5 times a move), the longer ones first.  Measured on the
# 2-core development machine: the handout's list-style A* answers a start 20 moves from the
# goal in about 0.2 s, 18 in 0.02 s; drawing and answering the eight starts of a grade takes
# the grader 0.03-0.04 s (0.11-0.12 s with the reference's own A*, see counted_astar).
DRAWN_LENGTHS = (20, 12, 18, 15, 10, 19, 14, 17, 8, 16, 11, 13, 9)
DRAW_TRIES = 200


class _CountingPuzzle(reference.EightPuzzle):
    """The reference solver counting its expansions (calls of FindNextStates)."""

    def __init__(self, heuristic):
        super().__init__()
        self.expansions = 0
        self.heuristic = heuristic

    def FindNextStates(self, state):
        self.expansions += 1
        return super().FindNextStates(state)

    def Manhattan(self, state):  # Astar's heuristic_cost_estimate
        return self.heuristic(state)


def reference_expansions(state, heuristic):
    """(path, expansions) of the reference A* on ``state`` with ``heuristic``."""
    solver = _CountingPuzzle(heuristic)
    with contextlib.redirect_stdout(io.StringIO()):
        path = solver.Astar(list(state))
    return path, solver.expansions


def _tile_costs(cost):
    """``table[tile][position]``: what ``cost(tile, position)`` adds to a heuristic
    (0 for the blank)."""
    return [[0 if tile == tiles.BLANK else cost(tile, position) for position in range(9)]
            for tile in range(9)]


def _manhattan_cost(tile, position):
    goal = tiles.GOAL.index(tile)
    return abs(position // tiles.WIDTH - goal // tiles.WIDTH) + \
        abs(position % tiles.WIDTH - goal % tiles.WIDTH)


TILE_COSTS = {
    "manhattan": _tile_costs(_manhattan_cost),
    "hamming": _tile_costs(lambda tile, position: int(tiles.GOAL[position] != tile)),
}
"""The heuristics of the sheet as sums over the tiles (``tiles.city_block``, ``misplaced``)."""
GOAL_NUMBER = tiles.number(tiles.GOAL)


def counted_astar(state, heuristic):
    """``(moves, expansions)`` of the reference A* on ``state`` with the named heuristic
    (``None, 0`` for a start that cannot reach the goal: the reference checks parity first).

    The search of ``reference/eightpuzzle.py`` step for step -- a binary heap of
    (f, insertion order, state), a stale entry skipped when its state is closed,
    neighbours in ``FindNextStates``'s order and kept only on a smaller g -- on states
    written as numbers (:func:`tiles.number`, the blank's square beside it on the heap),
    with the number and the heuristic updated by the one tile each slide moves, so it
    makes the same expansions several times faster than the reference itself
    (:func:`reference_expansions`; tests/test_eightpuzzle_reference.py compares the
    two on every fixture start and on drawn ones).  Drawn starts are answered at
    grading time, in the grader's process, while the lanes run.
    """
    start = tuple(state)
    if not tiles.solvable(start):
        return None, 0
    costs = TILE_COSTS[heuristic]
    first = tiles.number(start)
    h = {first: sum(costs[tile][position] for position, tile in enumerate(start))}
    g = {first: 0}
    closed = set()
    order = itertools.count(1)
    heap = [(h[first], 0, first, start.index(tiles.BLANK))]
    expansions = 0
    while heap:
        _, _, current, blank = heapq.heappop(heap)
        if current in closed:
            continue
        if current == GOAL_NUMBER:
            return g[current], expansions
        closed.add(current)
        expansions += 1
        tentative = g[current] + 1
        for square in tiles.NEIGHBOURS[blank]:
            tile = current // tiles.PLACE[square] % 10
            neighbor = current + tile * (tiles.PLACE[blank] - tiles.PLACE[square])
            if neighbor in closed or tentative >= g.get(neighbor, tentative + 1):
                continue
            g[neighbor] = tentative
            estimate = h[current] - costs[tile][square] + costs[tile][blank]
            h[neighbor] = estimate
            heapq.heappush(heap, (tentative + estimate, next(order), neighbor, square))
    return None, expansions


def expect(input, options):
    """The expected mapping for one case (see the module docstring)."""
    state = tuple(input["state"])
    if not tiles.is_state(state):
        raise ValueError("state must hold each of 0..8 exactly once: {!r}".format(input["state"]))
    length = optimal_length(state)
    solvable = length is not None
    expected = {
        "solvable": solvable,
        "optimal_length": length,
        "hamming": tiles.misplaced(state),
        "manhattan": tiles.city_block(state),
        "handout_manhattan": tiles.handout_city_block(state),
    }
    if not solvable:
        expected.update(ucs_expansions=puzzle_table.SOLVABLE_STATES,
                        bfs_expansions=puzzle_table.SOLVABLE_STATES,
                        astar_expansions=None, astar_floor=None)
        return expected
    expected["ucs_expansions"] = states_closer_than(length)
    expected["bfs_expansions"] = states_closer_than(length - 1) + 1 if length else 0
    expected["astar_expansions"] = {
        "hamming": astar_expansions(state, "hamming"),
        "manhattan": astar_expansions(state, "manhattan"),
    }
    expected["astar_floor"] = astar_floor(state, length)
    return expected


def states_closer_than(d):
    """How many solvable states lie strictly fewer than ``d`` moves from the goal."""
    return sum(LAYER_SIZES[:max(d, 0)])


@functools.lru_cache(maxsize=4096)
def optimal_length(state):
    """Fewest moves from ``state`` (a tuple) to the goal, or None: the reference A*'s path."""
    if not tiles.solvable(state):
        return None
    return searched(state, "manhattan")[0]


@functools.lru_cache(maxsize=4096)
def searched(state, heuristic):
    """:func:`counted_astar` of ``state`` (a tuple), kept: a start's length and its
    Manhattan expansions come from the same search, and a drawn start is searched for its
    length when it is drawn."""
    return counted_astar(state, heuristic)


def _increasing(sequence):
    """Length of the longest strictly increasing subsequence of ``sequence``."""
    tails = []
    for item in sequence:
        at = bisect.bisect_left(tails, item)
        tails[at:at + 1] = [item]
    return len(tails)


HOME_ROW = tuple(tiles.GOAL.index(tile) // tiles.WIDTH for tile in range(9))
HOME_COLUMN = tuple(tiles.GOAL.index(tile) % tiles.WIDTH for tile in range(9))
"""The goal row and column of each tile."""


def linear_conflict(state):
    """The Manhattan distance plus two moves per tile that must leave its goal line.

    In a row, the tiles whose goal is that row must end in the order of
    their goal columns; all but the longest run already in order must step
    out of the row and back (two moves the Manhattan distance does not
    count), and the same for columns.  It never overestimates the moves
    left (Hansson, Mayer and Yung, 1992).
    """
    total = tiles.city_block(state)
    side = tiles.WIDTH
    for line in range(side):
        in_row = [HOME_COLUMN[tile] for tile in state[line * side:(line + 1) * side]
                  if tile != tiles.BLANK and HOME_ROW[tile] == line]
        in_column = [HOME_ROW[tile] for tile in state[line::side]
                     if tile != tiles.BLANK and HOME_COLUMN[tile] == line]
        total += 2 * (len(in_row) - _increasing(in_row))
        total += 2 * (len(in_column) - _increasing(in_column))
    return total


def astar_floor(state, length):
    """States every A* with an admissible heuristic no larger than linear_conflict expands.

    Breadth-first from ``state``, keeping only states whose depth plus
    :func:`linear_conflict` is below ``length`` (the optimum): each is
    reached by a path of such states, and A* with an admissible heuristic
    takes every state of such a path off the open list before the goal
    (f = g + h stays below the optimum along it).
    """
    start = tuple(state)
    if linear_conflict(start) >= length:
        return 0
    depth = {start: 0}
    frontier = collections.deque([start])
    count = 0
    while frontier:
        current = frontier.popleft()
        count += 1
        for neighbor in tiles.slides(current):
            if neighbor not in depth and depth[current] + 1 + linear_conflict(neighbor) < length:
                depth[neighbor] = depth[current] + 1
                frontier.append(neighbor)
    return count


@functools.cache
def astar_expansions(state, heuristic):
    """Expansions of the reference A* on ``state`` (a tuple) with the named heuristic.

    Cached: the count is deterministic, and regenerating and verifying the
    fixture file in one process would otherwise repeat the longest searches.
    """
    return searched(state, heuristic)[1]


def generate(rng, count, options=None):
    """``count`` starts for one submission, drawn with ``rng`` (inputs and tags only).

    Solvable starts of several depths, cycling through ``lengths`` (default
    :data:`DRAWN_LENGTHS`, all within the required group; those from
    :data:`HEURISTIC_MIN_LENGTH` moves on also measure the heuristic):
    each a random walk from the goal whose true distance, found by the
    reference A*, is the depth wanted.  With ``unsolvable: n`` in the
    options, the last ``n`` of the ``count`` are random permutations of odd
    parity.  No start is drawn twice.
    """
    options = options or {}
    lengths = [int(n) for n in options.get("lengths", DRAWN_LENGTHS)]
    if not lengths or min(lengths) < 0 or max(lengths) > REQUIRED_MAX_LENGTH:
        raise ValueError(f"generated lengths must lie in 0..{REQUIRED_MAX_LENGTH}: {lengths}")
    unsolvable = max(0, min(count, int(options.get("unsolvable", 0))))
    cases, seen = [], set()
    while len(cases) < count - unsolvable:
        length = lengths[len(cases) % len(lengths)]
        state = _drawn(rng, length, seen)
        seen.add(state)
        cases.append({"input": {"state": list(state)}, "tags": _tags(length)})
    while len(cases) < count:
        state = list(range(9))
        rng.shuffle(state)
        if not tiles.solvable(state) and tuple(state) not in seen:
            seen.add(tuple(state))
            cases.append({"input": {"state": state}, "tags": _tags(None)})
    return cases


def _drawn(rng, length, seen):
    """A start exactly ``length`` moves from the goal: the end of a random walk that gets there.

    Each try walks from the goal without undoing the last slide, up to eight
    slides more than ``length`` (walks fold back on themselves), and keeps
    the first state from slide ``length`` on whose true distance is ``length``.
    """
    for _ in range(DRAW_TRIES):
        state, previous = tiles.GOAL, None
        for step in range(1, length + rng.randrange(1, 9)):
            after = rng.choice([s for s in tiles.slides(state) if s != previous])
            state, previous = after, state
            if step >= length and tiles.city_block(state) <= length and state not in seen \
                    and optimal_length(state) == length:
                return state
    raise RuntimeError(f"no start {length} moves from the goal found in {DRAW_TRIES} walks")


def tags(input):
    """The tags of a drawn start that did not come from :func:`generate` (a start of the
    pool, ``grader fixtures --select``): by its distance from the goal, as there."""
    return _tags(optimal_length(tuple(input["state"])))


def _tags(length):
    if length is None:
        return ["unsolvable"]
    if length > REQUIRED_MAX_LENGTH:
        return ["hard"]
    tags = ["required"]
    if length >= HEURISTIC_MIN_LENGTH:
        tags.append("heuristic")
    return tags


def _shuffled(rng, shuffles):
    """A random walk of ``shuffles`` slides from the goal, as the handout's InitialState makes."""
    state = tiles.GOAL
    for _ in range(shuffles):
        state = rng.choice(tiles.slides(state))
    return state


def default_cases(options):
    """The seeded case list: picks per optimal length, handout-like games, unsolvable states."""
    rng = random.Random(SEED)
    layers = puzzle_table.layers()
    cases = []
    seen = {}
    picked = set()
    for length in LENGTHS:
        seen[length] = seen.get(length, 0) + 1
        state = rng.choice([s for s in layers[length] if s not in picked])
        picked.add(state)
        suffix = "" if LENGTHS.count(length) == 1 else "-" + "abcdefgh"[seen[length] - 1]
        cases.append({
            "name": f"length-{length:02d}{suffix}",
            "source": f"generated: seeded pick (seed {SEED}) among the states {length} moves "
                      f"from the goal ({len(layers[length])} of them)",
            "tags": _tags(length),
            "input": {"state": list(state)},
        })
    for game in range(1, SHUFFLE_GAMES + 1):
        state = _shuffled(rng, SHUFFLES)
        cases.append({
            "name": f"shuffled-game-{game}",
            "source": f"generated: {SHUFFLES} random slides from the goal like the handout's "
                      f"InitialState({SHUFFLES}), seed {SEED}",
            "tags": _tags(puzzle_table.distance(state)),
            "input": {"state": list(state)},
        })
    cases.append({
        "name": "unsolvable-swapped-7-8",
        "source": "classic: the goal with tiles 7 and 8 swapped (odd parity)",
        "tags": _tags(None),
        "input": {"state": [1, 2, 3, 4, 5, 6, 8, 7, 0]},
    })
    for index in range(1, UNSOLVABLE_RANDOM + 1):
        while True:
            state = list(range(9))
            rng.shuffle(state)
            if not tiles.solvable(state):
                break
        cases.append({
            "name": f"unsolvable-random-{index}",
            "source": f"generated: seeded random permutation with odd parity (seed {SEED})",
            "tags": _tags(None),
            "input": {"state": state},
        })
    return cases


def fixture_cases(options=None):
    """The default cases with their expected values, as the fixture file holds them."""
    options = options or {}
    cases = []
    for case in default_cases(options):
        case = dict(case)
        case["expected"] = expect(case["input"], options)
        cases.append(case)
    return cases


def write(path, options=None):
    """Write the fixture file from the default cases, with the writer of `grader fixtures`."""
    fixtures.dump(path, "eightpuzzle", "reference/oracles/eightpuzzle.py", fixture_cases(options))


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Write the eight-puzzle fixture file from the default cases.")
    parser.add_argument("--write", metavar="PATH", required=True, help="file to write")
    args = parser.parse_args(argv)
    write(args.write)


if __name__ == "__main__":
    main()
