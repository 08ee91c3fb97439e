"""Positions drawn at grading time for the two games, checked on many seeds.

Every drawn tic-tac-toe and connect-four position must be legal, reachable
and undecided; over many seeds they must cover the game's phases, both
sides and both roles; and the answers the oracle gives them must agree with
an independent search: the handout-style reference solutions
(``reference/tictactoe.py``, ``reference/connect4.py``), which share no code
with the oracles (``reference/oracles/``).  The same seed draws the same
positions through the engine's entry point, and another seed others.
"""
import copy
import functools
import random
from collections import Counter

import pytest

from grader import generated
from grader.exercises.connect4 import rules
from reference import connect4 as reference_c4
from reference import tictactoe as reference_ttt
from reference.oracles import connect4 as c4_oracle
from reference.oracles import tictactoe as ttt_oracle

TTT_SEEDS = range(40)
TTT_PER_SEED = 14
C4_SEEDS = range(12)
C4_PER_SEED = 8
TTT_COUNT = len(TTT_SEEDS) * TTT_PER_SEED
C4_COUNT = len(C4_SEEDS) * C4_PER_SEED


@functools.lru_cache(maxsize=None)
def ttt():
    """The tic-tac-toe positions drawn with every seed (drawn once, when a test first asks:
    not while the suite is collected)."""
    drawn = []
    for seed in TTT_SEEDS:
        drawn += ttt_oracle.generate(random.Random(seed), TTT_PER_SEED)
    assert len(drawn) == TTT_COUNT
    return drawn


@functools.lru_cache(maxsize=None)
def c4():
    """The connect-four positions drawn with every seed (drawn once, as :func:`ttt`)."""
    drawn = []
    for seed in C4_SEEDS:
        drawn += c4_oracle.generate(random.Random(seed), C4_PER_SEED)
    assert len(drawn) == C4_COUNT
    return drawn


# -------------------------------------------------------------- tic-tac-toe

def cells_of(rows):
    """The handout's board list (index 0 bottom-left) of fixture rows (top row first)."""
    return list(rows[2] + rows[1] + rows[0])


@pytest.mark.parametrize('index', range(0, TTT_COUNT, 7))
def test_a_drawn_tic_tac_toe_position_is_legal_reachable_and_open(index):
    position = ttt()[index]['input']
    board = cells_of(position['board'])
    mover = position['player']
    waiting = 'O' if mover == 'X' else 'X'
    # Marks alternate: the side to move has as many marks as the other, or one fewer.
    assert board.count(waiting) - board.count(mover) in (0, 1), position
    assert ttt_oracle.winner(board) is None and '-' in board, position


def test_drawn_tic_tac_toe_positions_cover_the_game():
    marks = Counter(9 - cells_of(c['input']['board']).count('-') for c in ttt())
    assert set(marks) >= set(range(1, 8)), marks
    assert {c['input']['player'] for c in ttt()} == {'X', 'O'}
    assert {c['input']['maximizing'] for c in ttt()} == {True, False}
    assert sum('pruning' in c['tags'] for c in ttt()) >= len(TTT_SEEDS)
    # Each seed's first two are lost whatever the side to move plays, once per role.
    for start in range(0, TTT_COUNT, TTT_PER_SEED):
        first, second = ttt()[start]['input'], ttt()[start + 1]['input']
        assert (first['maximizing'], second['maximizing']) == (True, False)
        for position, lost in ((first, -1), (second, 1)):
            expected = ttt_oracle.expect(position)
            assert expected['value'] == lost
            assert set(expected['move_values'].values()) == {lost}


@pytest.mark.parametrize('index', range(0, TTT_COUNT, 5))
def test_the_oracle_agrees_with_the_handout_search_on_drawn_positions(index):
    position = ttt()[index]['input']
    expected = ttt_oracle.expect(position)
    board = cells_of(position['board'])
    value, move = reference_ttt.Minimax(list(board), position['maximizing'], position['player'])
    assert value == expected['value'], position
    assert move in expected['best_moves'], position


# -------------------------------------------------------------- connect four

@pytest.mark.parametrize('index', range(0, C4_COUNT, 4))
def test_a_drawn_connect_four_position_is_legal_and_open_with_o_to_move(index):
    board = rules.parse_board(c4()[index]['input']['board'])
    assert rules.position_problems(board) == [], c4()[index]
    assert not rules.is_winning(board, 'o') and not rules.is_winning(board, 'x')
    assert rules.legal_moves(board)


def test_drawn_connect_four_positions_cover_the_game():
    depths = Counter(c['input']['depth'] for c in c4())
    assert set(depths) == {1, 2, 3, 4}, depths
    pieces = [rules.count_pieces(rules.parse_board(c['input']['board'])) for c in c4()]
    assert min(pieces) <= 6 and max(pieces) >= 20, pieces
    assert any('pruning' in c['tags'] for c in c4())


@pytest.mark.parametrize('index', range(0, C4_COUNT, 3))
def test_the_oracle_agrees_with_the_handout_alphabeta_on_drawn_positions(index):
    position = c4()[index]['input']
    expected = c4_oracle.expect(position)
    board = rules.parse_board(position['board'])
    game = reference_c4.ConnectFour()
    game.moves = rules.count_pieces(board)
    work = copy.deepcopy(board)
    value, column = game.alphabetapruning(work, position['depth'], 'o', -10 ** 9, 10 ** 9)
    assert work == board
    assert value == expected['value'], position
    assert column in expected['best_moves'], position


# -------------------------------------------------------------- the engine's draw

@pytest.mark.parametrize('exercise', ['tictactoe', 'connect4'])
def test_the_same_seed_draws_the_same_positions_and_another_seed_others(policy, exercise):
    seed = generated.seed_for(policy.course, exercise, 'a' * 64)
    first = [case.input for case in generated.draw(policy, exercise, seed)]
    again = [case.input for case in generated.draw(policy, exercise, seed)]
    other = [case.input for case in generated.draw(policy, exercise,
                                                    generated.seed_for(policy.course, exercise,
                                                                       'b' * 64))]
    settings = policy.exercises[exercise].generated
    assert first == again and len(first) >= settings['count']
    assert len(first) == settings['count'] or settings.get('killers')   # the pool's come after
    assert first != other
