"""Connect four trials: ``ConnectFour().alphabetapruning(board, depth, 'o', ...)`` on many
positions.

Connect four's positions are far too many to run every variant on all of them:
:func:`space` draws quiet positions (nobody has four in a row) from seeded random games,
as the oracle draws them at grading time (:func:`reference.oracles.connect4.quiet_playout`),
'o' to move, at every piece count the graded fixtures use (2 to 40), at the depths drawn
positions are searched at (1 to 4, as the oracle's ``generate``) and fewer at depth 5, as
the public fixtures have them.  Depth 6 (three public cases) is left out: a search there
costs ten times more, and what only it tells apart (a search that does not prune runs
past its time) the public cases already show in every grade.

A variant is searched as the probe searches it (``grader/exercises/connect4/probe.py``): a
fresh ``ConnectFour()`` whose ``moves`` counts the pieces, its ``evaluation`` replaced by
the sheet's (here the oracle's bitboard evaluation, 'o' to move when an even number of
pieces was added since the root), ``alphabetapruning(board, depth, 'o', -10**9, 10**9)``
on a copy of the board; ``minimax(board, depth, 'o')`` when ``alphabetapruning`` is the
placeholder (it returns None at depth 1).

What the graded checks accept (``values``, ``moves``, ``balance`` of the judge): the
depth-limited minimax value, a column among the optimal ones, and the board and
``self.moves`` as they were.
"""
import random

from reference.oracles import c4bitboard as bb
from reference.oracles import connect4 as oracle

SOLUTION = 'connect4.py'
"""The reference solution the variants are made from (in the reference folder)."""
EXHAUSTIVE = False
LIMIT = 2.0
"""CPU seconds a variant may spend on one position: the reference needs at most a few
hundredths at depth 4 (the grader allows 20 units, about 2 s, on the development
machine)."""
FAR_LIMIT = 20.0
"""CPU seconds a variant with no other killer is given on its slow positions: ten times the
grader's limit, so a position it does not answer in them is a time-out on any machine."""
SLOW_TRIES = 3
"""Time-outs after which a variant's run ends: each costs the whole limit, and a search
that does not stop at its depth (the time-outs here) runs past it on most positions."""
BUDGET = 300
"""Wall seconds a variant may spend on the whole space."""
POOL_COST = 7 ** 4
"""The pool leaves out a variant's killers that cost more than a depth-4 search of seven
columns (most depth-5 positions) when it has cheaper ones: an official grade answers
every killer it draws with the oracle too, and a depth-5 proof costs it ten times more."""
GRADED_TAGS = ('required',)
"""The fixture cases whose checks carry points (every connect four case)."""
PIECES = range(2, 41)
DEPTHS = {1: 5, 2: 5, 3: 5, 4: 5, 5: 2}
"""Positions drawn at each piece count of :data:`PIECES`, by depth."""
WINDOW = 1000000000
EMPTY = ' '


def space(seed=33):
    """Distinct quiet positions, 'o' to move, at each piece count of :data:`PIECES` and
    each depth of :data:`DEPTHS` (as many as it says), drawn with ``seed``; in a seeded
    order (piece counts and depths mixed, so a variant wrong only on some of them fails
    early)."""
    rng = random.Random(seed)
    inputs, seen = [], set()
    for pieces in PIECES:
        for depth, per_depth in DEPTHS.items():
            drawn = 0
            while drawn < per_depth:
                first = rng.choice((oracle.COMPUTER, oracle.HUMAN))
                if (pieces % 2 == 1) != (first == oracle.HUMAN):
                    first = oracle.other(first)     # 'o' to move after ``pieces``
                try:
                    o, x = oracle.quiet_playout(rng.randrange(1 << 30), pieces, first)
                except ValueError:
                    continue
                rows = bb.to_rows(o, x)
                if bb.problems(o, x) or (tuple(rows), depth) in seen:
                    continue
                seen.add((tuple(rows), depth))
                inputs.append({'board': rows, 'depth': depth})
                drawn += 1
    rng.shuffle(inputs)
    return inputs


def cost(input):
    """How much a search of ``input`` costs, roughly: the moves it could try, to the power
    of its depth."""
    o, x = bb.from_rows(input['board'])
    return len(bb.moves(o, x)) ** input['depth']


def sheet_evaluation(root_pieces):
    """The sheet's evaluation of a handout board, 'o' to move when an even number of pieces
    was added since a root of ``root_pieces`` (the oracle's bitboards, not the judge's)."""
    def evaluation(board, *args, **kwargs):
        o, x = bb.from_board(board)
        return bb.evaluate(o, x, (bb.popcount(o | x) - root_pieces) % 2 == 0)
    return evaluation


def handout_board(rows):
    """Fixture rows (top first, '.' empty) as a handout board (row 0 at the bottom)."""
    return [[EMPTY if cell == '.' else cell for cell in row] for row in reversed(rows)]


def new_game(module, board):
    game = module.ConnectFour()
    object.__setattr__(game, 'moves', sum(cell != EMPTY for row in board for cell in row))
    object.__setattr__(game, 'evaluation', sheet_evaluation(game.moves))
    return game


def placeholder(module, board):
    """True when ``alphabetapruning`` is missing or returns None at depth 1 (the probe
    then grades ``minimax``)."""
    game = new_game(module, board)
    if not callable(getattr(game, 'alphabetapruning', None)):
        return True
    try:
        return game.alphabetapruning([list(r) for r in board], 1, 'o', -WINDOW, WINDOW) is None
    except Exception:  # noqa: BLE001 - implemented, if broken: graded as it is
        return False


def answer(module, input):
    """``[value, column, board and moves restored]`` of the variant's graded search."""
    board = handout_board(input['board'])
    game = new_game(module, board)
    before, moves = [list(r) for r in board], game.moves
    work = [list(r) for r in board]
    if placeholder(module, board):
        result = game.minimax(work, input['depth'], 'o')
    else:
        result = game.alphabetapruning(work, input['depth'], 'o', -WINDOW, WINDOW)
    value, move = (list(result) + [None, None])[:2] if isinstance(result, (tuple, list)) \
        else (result, None)
    number = isinstance(value, int) and not isinstance(value, bool)
    move = move if isinstance(move, int) and not isinstance(move, bool) else repr(move)
    restored = work == before and getattr(game, 'moves', None) == moves
    return [value if number else repr(value), move, restored]


def expect(input):
    """What the checks compare with: the depth-limited value and the optimal columns."""
    o, x = bb.from_rows(input['board'])
    values = bb.Search(o, x).root_values(input['depth'])
    value = max(values.values())
    return {'value': value, 'best_moves': sorted(c for c, v in values.items() if v == value)}


def verdict(input, expected, answer):
    """'' when the checks accept ``answer``, else what is wrong."""
    if not isinstance(answer, list):
        return answer
    value, move, restored = answer
    if value != expected['value']:
        return 'wrong value'
    if move not in expected['best_moves']:
        return 'wrong move'
    if not restored:
        return 'board not restored'
    return ''
