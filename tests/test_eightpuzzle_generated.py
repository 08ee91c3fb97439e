"""Eight-puzzle starts drawn at grading time, and the bounds the judge takes from the oracle.

The drawn starts and their answers come from ``reference/oracles/eightpuzzle.py``
(the reference A*); here they are checked against an independent oracle, the
breadth-first table of all 181,440 states, on many seeds.  The floor and the
ceiling the heuristic check uses are checked against A* searches written here,
with several heuristics and tie-breakings.  Everything runs in-process: it is
instructor code.
"""
import heapq
import itertools
import random

import pytest

from grader.exercises.eightpuzzle import puzzle
from reference.oracles import eightpuzzle as oracle
from reference.oracles import puzzle_table

SEEDS = range(30)


@pytest.fixture(scope="module")
def drawn():
    """seed -> the drawn cases of one official grade (the default options)."""
    return {seed: oracle.generate(random.Random(seed), 8, {}) for seed in SEEDS}


def test_layer_sizes_are_the_tables():
    assert list(oracle.LAYER_SIZES) == [len(layer) for layer in puzzle_table.layers()]
    for d in (0, 1, 10, 20, 32):
        assert oracle.states_closer_than(d) == puzzle_table.states_closer_than(d)


def test_drawn_starts_are_solvable_at_the_depths_asked(drawn):
    lengths = oracle.DRAWN_LENGTHS
    for seed, cases in drawn.items():
        states = [tuple(case["input"]["state"]) for case in cases]
        assert len(set(states)) == len(states), seed
        for index, (case, state) in enumerate(zip(cases, states)):
            assert puzzle.is_state(state) and puzzle.is_solvable(state), (seed, state)
            assert puzzle_table.distance(state) == lengths[index % len(lengths)], (seed, state)
            # grading.yaml: every drawn start is required; from 10 moves on it also
            # measures the heuristic.
            length = lengths[index % len(lengths)]
            assert length <= 20
            assert case["tags"] == (["required", "heuristic"] if length >= 10 else ["required"])


def test_the_answers_of_drawn_starts_agree_with_the_table(drawn):
    for seed, cases in drawn.items():
        for case in cases:
            expected = oracle.expect(case["input"], {})
            length = puzzle_table.distance(case["input"]["state"])
            assert expected["solvable"] and expected["optimal_length"] == length, seed
            assert expected["ucs_expansions"] == puzzle_table.states_closer_than(length)
            assert expected["bfs_expansions"] == puzzle_table.states_closer_than(length - 1) + 1


def test_the_same_seed_draws_the_same_starts_and_another_seed_others(drawn):
    assert oracle.generate(random.Random(3), 8, {}) == drawn[3]
    assert drawn[3] != drawn[4]


def test_unsolvable_starts_only_when_asked():
    cases = oracle.generate(random.Random(1), 6, {"unsolvable": 2, "lengths": [10, 12]})
    assert [case["tags"] for case in cases[-2:]] == [["unsolvable"], ["unsolvable"]]
    for case in cases[-2:]:
        assert not puzzle.is_solvable(case["input"]["state"])
        assert oracle.expect(case["input"], {})["optimal_length"] is None
    assert [puzzle_table.distance(c["input"]["state"]) for c in cases[:4]] == [10, 12, 10, 12]
    with pytest.raises(ValueError):
        oracle.generate(random.Random(1), 2, {"lengths": [25]})


# --- the floor and the ceiling of the heuristic check ------------------------

def astar(start, heuristic, ties, expanded=None):
    """Expansions of an A* on tuples that expands each state once and stops when the goal
    is taken off the heap; ``ties`` orders equal f: first-in, last-in, by state, deepest.
    The states it expands are added to ``expanded``."""
    order = itertools.count()
    rank = {"fifo": lambda s, g: next(order), "lifo": lambda s, g: -next(order),
            "state": lambda s, g: s, "deep": lambda s, g: (-g, next(order))}[ties]
    start = tuple(start)
    gscore, closed, expansions = {start: 0}, set(), 0
    heap = [(heuristic(start), rank(start, 0), start)]
    while heap:
        _, _, current = heapq.heappop(heap)
        if current in closed:
            continue
        if current == puzzle.GOAL:
            return expansions
        closed.add(current)
        expansions += 1
        if expanded is not None:
            expanded.add(current)
        for neighbor in puzzle.successors(current):
            g = gscore[current] + 1
            if neighbor not in closed and g < gscore.get(neighbor, 99):
                gscore[neighbor] = g
                heapq.heappush(heap, (g + heuristic(neighbor), rank(neighbor, g), neighbor))
    return None


def sample_starts(count=24):
    rng = random.Random(99)
    cases = oracle.generate(rng, count, {"lengths": [10, 12, 14, 16, 18, 20]})
    return [tuple(case["input"]["state"]) for case in cases]


def test_linear_conflicts_never_overestimate_and_never_fall_below_manhattan():
    rng = random.Random(7)
    for state in rng.sample(sorted(puzzle_table.distances()), 20000):
        assert (puzzle.manhattan(state) <= oracle.linear_conflict(state)
                <= puzzle_table.distance(state))
    assert oracle.linear_conflict((3, 2, 1, 4, 5, 6, 7, 8, 0)) == 4 + 4  # 3 and 1 must leave


def test_every_a_star_with_a_heuristic_of_the_sheet_meets_the_floor_and_the_ceiling():
    """...and expands only states of the region the judge allows (g + Hamming <= optimum)."""
    heuristics = {"manhattan": puzzle.manhattan, "handout": puzzle.handout_manhattan,
                  "hamming": puzzle.hamming, "linear conflict": oracle.linear_conflict}
    for state in sample_starts():
        expected = oracle.expect({"state": list(state)}, {})
        floor, ceiling = expected["astar_floor"], expected["astar_expansions"]["hamming"]
        region = puzzle.within_bound(state, expected["optimal_length"])
        assert len(region) >= ceiling + 1    # the reference expands all it reaches before the goal
        for (name, heuristic), ties in itertools.product(heuristics.items(),
                                                         ("fifo", "lifo", "state", "deep")):
            expanded = set()
            expansions = astar(state, heuristic, ties, expanded)
            assert floor <= expansions <= ceiling, (state, name, ties, floor, expansions, ceiling)
            assert expanded <= region, (state, name, ties)


def test_a_blind_search_expands_states_outside_the_region():
    for state in sample_starts(6):
        region = puzzle.within_bound(state, puzzle_table.distance(state))
        expanded = set()
        astar(state, lambda s: 0, "fifo", expanded)
        assert len(expanded - region) > len(expanded) // 2


def test_the_judge_s_region_on_numbers_is_the_breadth_first_region():
    """puzzle.hamming_region (what the judge asks) is within_bound with the Hamming distance,
    on optimal and looser bounds, unsolvable starts and a start above its bound too."""
    rng = random.Random(7)
    starts = list(sample_starts(6)) + [(1, 2, 3, 4, 5, 6, 8, 7, 0), puzzle.GOAL]
    for _ in range(4):
        state = list(range(9))
        rng.shuffle(state)
        starts.append(tuple(state))
    for state in starts:
        for bound in (puzzle.hamming(state) - 1, puzzle.hamming(state), 12, 17):
            region = puzzle.hamming_region(state, bound)
            assert region == {puzzle.as_number(s) for s in puzzle.within_bound(state, bound)}, \
                (state, bound)


def test_a_floor_above_the_path_on_most_long_starts():
    """What makes a table walked along the path fail: A* must expand more than the path."""
    above = [oracle.expect({"state": list(s)}, {})["astar_floor"] > puzzle_table.distance(s) + 1
             for s in sample_starts() if puzzle_table.distance(s) >= 18]
    assert sum(above) >= len(above) // 2
