"""Eight-puzzle trials: ``EightPuzzle().Astar(state)`` on many starts.

The space (181,440 solvable starts) is too large to run every variant on all of it:
:func:`space` draws starts at every depth the graded group uses (8 to 20 moves from the
goal), seeded, from the oracle's breadth-first layers.

What the graded checks accept: the path (returned, or rebuilt from the ``camefrom`` that
``ReconstructPath`` was given) runs from the start to the goal by single slides, with
the optimal number of moves (``validity``, ``optimality``); ``Manhattan`` and ``Hamming``
give the sheet's values on the start; and, from ten moves on (``heuristic``), the
expansions (calls of ``FindNextStates``) are at most half of a blind search's fewest and
at most the reference A*'s with the Hamming distance (plus two), and no state is expanded
twice beyond 5 % of the expansions.  These are the judge's parameters of grading.yaml.
"""
import random

from reference.oracles import eightpuzzle as oracle
from reference.oracles import puzzle_table, tiles

SOLUTION = 'eightpuzzle.py'
"""The reference solution the variants are made from (in the reference folder)."""
EXHAUSTIVE = False
LIMIT = 1.0
"""CPU seconds a variant may spend on one start: the reference needs milliseconds, the
handout's list style at most 0.3 s (the grader allows 60 units, 2-3 s, on the development
machine; a variant slower than this but within the grader's limit is not told apart by
time alone: its time-outs here are no killers)."""
FAR_LIMIT = 30.0
"""CPU seconds a variant with no other killer is given on its slow starts: more than ten
times the grader's limit, so a start it does not answer in them is a time-out on any
machine (a search that never stops; one exhausting every state with a heap and a set
answers in 2-4 s)."""
BUDGET = 900
"""Wall seconds a variant may spend on the whole space (the handout's list style needs
about 0.05 s of CPU a start)."""
GRADED_TAGS = ('required',)
"""The fixture cases whose checks carry points by default (hard and unsolvable: none)."""
LENGTHS = range(8, 21)
HEURISTIC_FROM = 10
MARGIN, CEILING, REPEATS = 0.5, 1.0, 0.05


PER_LENGTH = 160
"""Starts drawn at each depth (all of a depth that has fewer: 116 at 8 moves, 152 at 9).  A
missing better-path test shows on about 1 start in 150 from 14 moves on (the tie among
equal f values must break the wrong way): 40 a depth found it on 1 start of 520, 160 on
several, so every grade can meet a killer of it not seen before."""


def space(per_length=PER_LENGTH, seed=33):
    """``per_length`` distinct solvable starts at each depth of :data:`LENGTHS` (all when
    the depth has fewer), seeded, in a seeded order (the depths mixed, so a variant wrong
    only from ten moves on fails early)."""
    rng = random.Random(seed)
    layers = puzzle_table.layers()
    inputs = []
    for length in LENGTHS:
        layer = layers[length]
        for state in rng.sample(layer, min(per_length, len(layer))):
            inputs.append({'state': list(state)})
    rng.shuffle(inputs)
    return inputs


def cost(input):
    """How much a search of ``input`` costs, roughly: its distance from the goal."""
    return puzzle_table.distance(input['state'])


def _path(result, rebuilt):
    if isinstance(result, (list, tuple)) and result:
        return result
    return rebuilt


def answer(module, input):
    """``[path as lists, expansions, distinct expanded, Manhattan, Hamming]``."""
    puzzle = module.EightPuzzle()
    expanded = []
    find, rebuild = puzzle.FindNextStates, getattr(puzzle, 'ReconstructPath', None)
    rebuilt = []

    def counted(state):
        expanded.append(tuple(state))
        return find(state)

    def reconstruct(camefrom, current):
        path, key = [list(current)], puzzle.ListToString(current)
        while key in camefrom and len(path) < 1000:
            path.append(list(camefrom[key]))
            key = puzzle.ListToString(camefrom[key])
        rebuilt[:] = path[::-1]
        return rebuild(camefrom, current)

    puzzle.FindNextStates = counted
    if rebuild is not None and hasattr(puzzle, 'ListToString'):
        puzzle.ReconstructPath = reconstruct
    result = puzzle.Astar(list(input['state']))
    path = _path(result, rebuilt)
    try:
        states = [[int(t) for t in s] for s in path] if path else []
    except (TypeError, ValueError):
        states = repr(path)
    fresh = module.EightPuzzle()
    return [states, len(expanded), len(set(expanded)),
            fresh.Manhattan(list(input['state'])), fresh.Hamming(list(input['state']))]


def _chain(states, start):
    if not isinstance(states, list) or not states:
        return False
    if tuple(states[0]) != tuple(start) or tuple(states[-1]) != tiles.GOAL:
        return False
    return all(tuple(b) in tiles.slides(tuple(a)) for a, b in zip(states, states[1:]))


def verdict(input, expected, answer):
    """'' when the checks accept ``answer``, else what is wrong."""
    if not isinstance(answer, list):
        return answer
    states, expansions, distinct, manhattan, hamming = answer
    if not _chain(states, input['state']):
        return 'no valid path'
    if len(states) - 1 != expected['optimal_length']:
        return 'path too long'
    if manhattan not in (expected['manhattan'], expected['handout_manhattan']) or \
            hamming != expected['hamming']:
        return 'named heuristic wrong'
    if expected['optimal_length'] >= HEURISTIC_FROM:
        if expansions > MARGIN * expected['bfs_expansions'] or \
                expansions > CEILING * expected['astar_expansions']['hamming'] + 2:
            return 'too many expansions'
        if expansions - distinct > REPEATS * expansions:
            return 'states expanded again'
    return ''


def expect(input):
    return oracle.expect(input, {})
