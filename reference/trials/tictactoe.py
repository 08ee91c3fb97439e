"""Tic-tac-toe trials: ``Minimax(board, maximizingplayer, player)`` on every position.

The position space is finite: :func:`space` lists every position reachable by legal
play from the empty board (either mark starting) that is not decided yet, with the mark
to move (9,040 of them) and either side maximizing: 18,080 inputs.  A variant that
answers all of them as the reference does is equivalent to it, by exhaustion.

What the graded checks accept (``values``, ``moves``, ``robustness`` of the judge): a
pair whose value is the position's, whose move is one of the optimal moves, and a board
put back as it was.
"""
import random

from reference.oracles import tictactoe as oracle

SOLUTION = 'tictactoe.py'
"""The reference solution the variants are made from (in the reference folder)."""
EXHAUSTIVE = True
"""The space holds every input: agreeing with the reference on all of it is a proof."""
LIMIT = 2.0
"""CPU seconds a variant may spend on one position (the grader allows about 40 units,
3-4 s, on the development machine)."""
BUDGET = 300
GRADED_TAGS = ('required', 'terminal')
"""The fixture cases a grade meets (a decided one is judged worth no points)."""
"""Wall seconds a variant may spend on the whole space."""


def space(seed=33):
    """Every input of the finite position space, the cheapest first (in a seeded order
    among equals), so the first positions that catch a variant are cheap and varied."""
    seen, stack = set(), [('-' * 9, 'X'), ('-' * 9, 'O')]
    while stack:
        cells, mover = stack.pop()
        if (cells, mover) in seen:
            continue
        seen.add((cells, mover))
        if oracle.winner(list(cells)) or '-' not in cells:
            continue
        for move in range(9):
            if cells[move] == '-':
                stack.append((cells[:move] + mover + cells[move + 1:], oracle.other(mover)))
    inputs = []
    for cells, mover in sorted(seen):
        if oracle.winner(list(cells)) is None and '-' in cells:
            for maximizing in (True, False):
                inputs.append({'board': [cells[6:9], cells[3:6], cells[0:3]],
                               'player': mover, 'maximizing': maximizing})
    random.Random(seed).shuffle(inputs)
    inputs.sort(key=cost)
    return inputs


def cost(input):
    """How much a search of ``input`` costs, roughly: its empty cells (fewer is cheaper)."""
    return sum(row.count('-') for row in input['board'])


def answer(module, input):
    """``[value, move, board restored]`` of the variant's ``Minimax`` on ``input``."""
    board = oracle.board_from_rows(input['board'])
    before = list(board)
    result = module.Minimax(board, input['maximizing'], input['player'])
    value, move = (list(result) + [None, None])[:2] if isinstance(result, (tuple, list)) \
        else (result, None)
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    move = move if isinstance(move, int) and not isinstance(move, bool) else repr(move)
    return [value if number else repr(value), move, board == before]


def expect(input):
    """What the checks compare with: the position's value and its optimal moves."""
    player, maximizing = input['player'], input['maximizing']
    max_mark = player if maximizing else oracle.other(player)
    cells = ''.join(oracle.board_from_rows(input['board']))
    value, best, _, _ = oracle.solve(cells, player, max_mark)
    return {'value': value, 'best_moves': list(best)}


def verdict(input, expected, answer):
    """'' when the checks accept ``answer``, else what is wrong."""
    if not isinstance(answer, list):
        return answer
    value, move, restored = answer
    if not expected['best_moves']:
        return ''               # a decided position: only 'terminal' looks, worth no points
    if value != expected['value']:
        return 'wrong value'
    if move not in expected['best_moves']:
        return 'wrong move'
    if not restored:
        return 'board not restored'
    return ''
