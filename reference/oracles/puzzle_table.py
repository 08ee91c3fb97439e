"""Exact eight-puzzle distances: a breadth-first search over every solvable state.

``distances()`` maps each of the 181,440 states that can reach the goal
(tuples of nine ints, 0 the blank) to its optimal number of moves. The table
is built once per process (about a second) and then shared. Slides are
reversible, so a search outward from the goal gives the distance *to* the
goal.
"""
import collections
import functools

from reference.oracles.tiles import GOAL, slides

SOLVABLE_STATES = 181440  # 9! / 2


@functools.lru_cache(maxsize=1)
def distances():
    """Dict state tuple -> optimal number of moves to the goal (breadth-first from the goal)."""
    distance = {GOAL: 0}
    frontier = collections.deque([GOAL])
    while frontier:
        state = frontier.popleft()
        next_distance = distance[state] + 1
        for neighbor in slides(state):
            if neighbor not in distance:
                distance[neighbor] = next_distance
                frontier.append(neighbor)
    return distance


@functools.lru_cache(maxsize=1)
def layers():
    """List indexed by distance d of the states at distance d, each layer sorted."""
    by_distance = collections.defaultdict(list)
    for state, d in distances().items():
        by_distance[d].append(state)
    return [sorted(by_distance[d]) for d in range(max(by_distance) + 1)]


def distance(state):
    """Optimal number of moves from ``state`` to the goal, or None if it cannot reach it."""
    return distances().get(tuple(state))


def states_closer_than(d):
    """How many solvable states lie strictly fewer than ``d`` moves from the goal."""
    return sum(len(layer) for layer in layers()[:max(d, 0)])
