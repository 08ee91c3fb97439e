"""Oracle for the eight puzzle: exact distances and expansion counts for fixture cases.

Input of a case: ``{"state": [nine ints]}``, row by row from the top-left,
0 the blank.

``expected`` holds:
- ``solvable``: whether the goal can be reached (even inversion parity);
- ``optimal_length``: the fewest moves to the goal, from the breadth-first
  table in ``puzzle_table`` (null if unsolvable);
- ``hamming``, ``manhattan``: the two heuristics of the sheet for the state
  (true Manhattan distance); ``handout_manhattan``: the handout's weaker
  ``Manhattan`` (d // 3 + d % 3 with d the index difference);
- ``ucs_expansions``: expansions (``FindNextStates`` calls) that *any*
  uniform-cost search testing for the goal when it takes a state off the
  open list must make: every state closer than the optimum is expanded
  before the goal is taken off, whatever the tie-breaking. It is the count
  of states at distance < optimal_length (a lower bound; ties at the optimal
  distance can only add to it);
- ``bfs_expansions``: the same lower bound for a breadth-first search that
  tests neighbours for the goal when they are generated: every state at
  distance <= optimal_length - 2, plus the goal's parent (0 if the start is
  the goal);
  for an unsolvable state both counts are 181,440, the whole component that
  must be exhausted before giving up;
- ``astar_expansions``: ``{"hamming": n, "manhattan": n}``, the expansions of
  the reference A* (``reference/eightpuzzle.py``: binary heap, ties on f in
  insertion order) with each heuristic; for documentation and calibration;
  null if unsolvable (the reference checks parity first).

Tags of the default cases: ``required`` (a handout-style A* solves it within
a generous limit), ``hard`` (only an efficient implementation -- heap and
sets -- solves it in time), ``heuristic`` (required cases on which the
expansions are compared with a blind search), ``unsolvable`` (odd parity).

``grader fixtures --regenerate`` recomputes the expected blocks of the
fixture file; ``python -m reference.oracles.eightpuzzle --write
fixtures/eightpuzzle.yaml`` writes the file afresh from :func:`default_cases`
with the same writer (:func:`grader.fixtures.dump`), so both give the same
bytes.
"""
import argparse
import contextlib
import functools
import io
import random

from grader import fixtures
from grader.exercises.eightpuzzle import puzzle
from reference import eightpuzzle as reference
from reference.oracles import puzzle_table

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


def expect(input, options):
    """The expected mapping for one case (see the module docstring)."""
    state = tuple(input["state"])
    if not puzzle.is_state(state):
        raise ValueError("state must hold each of 0..8 exactly once: {!r}".format(input["state"]))
    length = puzzle_table.distance(state)
    solvable = length is not None
    expected = {
        "solvable": solvable,
        "optimal_length": length,
        "hamming": puzzle.hamming(state),
        "manhattan": puzzle.manhattan(state),
        "handout_manhattan": puzzle.handout_manhattan(state),
    }
    if not solvable:
        expected.update(ucs_expansions=puzzle_table.SOLVABLE_STATES,
                        bfs_expansions=puzzle_table.SOLVABLE_STATES,
                        astar_expansions=None)
        return expected
    expected["ucs_expansions"] = puzzle_table.states_closer_than(length)
    expected["bfs_expansions"] = puzzle_table.states_closer_than(length - 1) + 1 if length else 0
    expected["astar_expansions"] = {
        "hamming": astar_expansions(state, "hamming"),
        "manhattan": astar_expansions(state, "manhattan"),
    }
    return expected


@functools.cache
def astar_expansions(state, heuristic):
    """Expansions of the reference A* on ``state`` (a tuple) with the named heuristic.

    Cached: the count is deterministic, and regenerating and verifying the
    fixture file in one process would otherwise repeat the longest searches.
    """
    return reference_expansions(state, getattr(puzzle, heuristic))[1]


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
    state = puzzle.GOAL
    for _ in range(shuffles):
        state = rng.choice(puzzle.successors(state))
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
            if not puzzle.is_solvable(state):
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
    parser = argparse.ArgumentParser(description="Write the eight-puzzle fixture file from the default cases.")
    parser.add_argument("--write", metavar="PATH", required=True, help="file to write")
    args = parser.parse_args(argv)
    write(args.write)


if __name__ == "__main__":
    main()
