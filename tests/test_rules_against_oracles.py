"""The judges' rules against the answer key's own, on many random positions, routes and boards.

The oracles in ``reference/oracles/`` compute every expected answer with code of their
own (``c4bitboard``, ``tiles``, ``trams``, the tic-tac-toe oracle's lines): nothing is
shared with the rules the judges read boards, draw feedback and check routes with
(``grader/exercises/connect4/rules.py``, ``eightpuzzle/puzzle.py``, ``travel/network.py``,
``tictactoe/board.py``).  So a mistake in either shows here as a disagreement, instead of
being made twice, once in the expected answer and once in the verdict.  Each property is
checked on examples hypothesis draws (the same ones every run).
"""
import functools
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.contract import Case
from grader.exercises.connect4 import rules
from grader.exercises.eightpuzzle import puzzle
from grader.exercises.tictactoe import board as ttt_board
from grader.exercises.tictactoe import judge as ttt_judge
from grader.exercises.travel import network as tram
from gradertest import ROOT
from reference.oracles import c4bitboard, tiles, trams
from reference.oracles import tictactoe as ttt_oracle

SETTINGS = settings(max_examples=150, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
CITIES = {
    'small': (ROOT / 'fixtures/travel/network.json', ROOT / 'fixtures/travel/lines.json'),
    'large': (ROOT / 'fixtures/travel/large/network.json',
              ROOT / 'fixtures/travel/large/lines.json'),
}


# ---------------------------------------------------------------- connect four

def c4_playout(seed, pieces):
    """A random game of up to ``pieces`` moves (it may end in four in a row or a full board),
    as the judge's board."""
    rng = random.Random(seed)
    board = [[rules.EMPTY] * rules.COLS for _ in range(rules.ROWS)]
    mark = rng.choice(rules.MARKS)
    for _ in range(pieces):
        open_columns = [col for col in range(rules.COLS)
                        if board[rules.ROWS - 1][col] == rules.EMPTY]
        if not open_columns or rules.is_winning(board, rules.other(mark)):
            break
        col = rng.choice(open_columns)
        board[rules.legal_row(board, col)][col] = mark
        mark = rules.other(mark)
    return board


c4_boards = st.builds(c4_playout, st.integers(0, 2 ** 32), st.integers(0, 42))


def c4_cells(seed):
    """Any assignment of ' ', 'x', 'o' to the 42 cells (most are no game's position)."""
    rng = random.Random(seed)
    return [[rng.choice((rules.EMPTY, rules.EMPTY, rules.HUMAN, rules.COMPUTER))
             for _ in range(rules.COLS)] for _ in range(rules.ROWS)]


@SETTINGS
@given(c4_boards)
def test_connect4_boards_read_and_write_alike(board):
    rows = rules.board_rows(board)
    o, x = c4bitboard.from_rows(rows)
    assert c4bitboard.to_rows(o, x) == rows
    assert (o, x) == c4bitboard.from_board(rules.parse_board(rows))


@SETTINGS
@given(c4_boards)
def test_connect4_legal_moves_terminal_tests_and_evaluation_agree(board):
    o, x = c4bitboard.from_board(board)
    assert rules.legal_moves(board) == [col for col, _ in c4bitboard.moves(o, x)]
    for col in range(rules.COLS):
        assert rules.legal_row(board, col) in (c4bitboard.height(o, x, col), -1)
    assert rules.is_winning(board, rules.COMPUTER) == c4bitboard.won(o)
    assert rules.is_winning(board, rules.HUMAN) == c4bitboard.won(x)
    assert rules.is_full(board) == ((o | x) == c4bitboard.FULL)
    for o_to_move in (True, False):
        assert rules.static_value(board, o_to_move) == c4bitboard.evaluate(o, x, o_to_move)


@SETTINGS
@given(st.one_of(c4_boards, st.builds(c4_cells, st.integers(0, 2 ** 32))))
def test_connect4_positions_are_refused_alike(board):
    """The judge and the oracle refuse the same boards as positions with 'o' to move."""
    o, x = c4bitboard.from_board(board)
    assert bool(rules.position_problems(board)) == bool(c4bitboard.problems(o, x))


@SETTINGS
@given(c4_boards, st.integers(0, 6))
def test_connect4_evaluation_during_a_search_takes_the_side_from_the_root(board, added):
    """The evaluation the probe puts in the student's object, at a position ``added`` pieces
    below the root, is the oracle's with the side to move found the same way."""
    evaluation = rules.canonical_evaluation(board)
    deeper = [list(row) for row in board]
    mark, placed = rules.COMPUTER, 0
    for col in range(rules.COLS):
        row = rules.legal_row(deeper, col)
        if placed < added and row != -1:
            deeper[row][col] = mark
            mark, placed = rules.other(mark), placed + 1
    o, x = c4bitboard.from_board(deeper)
    assert evaluation(deeper) == c4bitboard.evaluate(o, x, placed % 2 == 0)


# ---------------------------------------------------------------- eight puzzle

permutations = st.permutations(range(9)).map(tuple)


@SETTINGS
@given(permutations)
def test_eightpuzzle_moves_parity_and_heuristics_agree(state):
    assert puzzle.successors(state) == tiles.slides(state)
    blank = state.index(0)
    assert [blank + move for move in puzzle.legal_moves(blank)] == list(tiles.NEIGHBOURS[blank])
    assert puzzle.is_solvable(state) == tiles.solvable(state)
    assert puzzle.hamming(state) == tiles.misplaced(state)
    assert puzzle.manhattan(state) == tiles.city_block(state)
    assert puzzle.handout_manhattan(state) == tiles.handout_city_block(state)
    assert puzzle.is_state(state) and tiles.is_state(state)
    assert puzzle.as_number(state) == tiles.number(state)    # the counter's states, the oracle's


@SETTINGS
@given(st.lists(st.one_of(st.integers(-1, 9), st.booleans()), min_size=7, max_size=10))
def test_eightpuzzle_what_is_a_state_agrees(value):
    assert puzzle.is_state(value) == tiles.is_state(value)


def test_eightpuzzle_goal_agrees():
    assert puzzle.GOAL == tiles.GOAL and puzzle.BLANK == tiles.BLANK


# ---------------------------------------------------------------- route planner

@functools.lru_cache(maxsize=None)
def readers(city):
    """The judge's network and the oracle's, read from the same files (once)."""
    files = CITIES[city]
    return tram.Network.from_files(*files), trams.City(*(trams.read(f) for f in files))


@pytest.fixture(params=sorted(CITIES))
def two_readers(request):
    return readers(request.param)


def test_travel_speed_and_stops_agree(two_readers):
    judge_net, oracle_net = two_readers
    assert tram.MAX_TRAM_SPEED == trams.TOP_SPEED
    assert sorted(judge_net.stops) == sorted(oracle_net.stops)
    for code in judge_net.stops:
        assert judge_net.neighbors(code) == oracle_net.neighbors(code)


def test_travel_transition_times_agree_on_every_edge(two_readers):
    """Every edge of the city, leaving at random times of day (seeded)."""
    judge_net, oracle_net = two_readers
    rng = random.Random(33)
    for code in sorted(judge_net.stops):
        for dest in judge_net.neighbors(code):
            for minute in [rng.randrange(24 * 60) for _ in range(4)] + [0, 9]:
                assert judge_net.fastest_transition(code, dest, minute) == \
                    oracle_net.fastest_transition(code, dest, minute), (code, dest, minute)


def test_travel_heuristics_agree(two_readers):
    judge_net, oracle_net = two_readers
    codes = sorted(judge_net.stops)
    rng = random.Random(33)
    for _ in range(2000):
        a, b = rng.choice(codes), rng.choice(codes)
        assert judge_net.heuristic(a, b) == oracle_net.heuristic(a, b), (a, b)


def test_travel_the_oracles_routes_pass_the_judges_route_check(two_readers):
    """Routes the oracle finds, from random stops at random minutes, follow the judge's
    transition rule hop by hop."""
    from reference.oracles import tdijkstra
    judge_net, oracle_net = two_readers
    codes = sorted(judge_net.stops)
    rng = random.Random(33)
    for _ in range(20):
        start, goal, departure = rng.choice(codes), rng.choice(codes), rng.randrange(10)
        hops, _ = tdijkstra.dijkstra(oracle_net, start, goal, departure)
        if hops is not None:
            assert tram.check_route(judge_net, hops, start, goal, departure) == []


# ---------------------------------------------------------------- tic-tac-toe

def ttt_position(seed):
    """A position of a random game (finished or not) and the side to move."""
    rng = random.Random(seed)
    cells, mark = ['-'] * 9, rng.choice('XO')
    for _ in range(rng.randrange(9)):
        if ttt_oracle.winner(cells):
            break
        cells[rng.choice([i for i in range(9) if cells[i] == '-'])] = mark
        mark = ttt_oracle.other(mark)
    rows = [''.join(cells[6:9]), ''.join(cells[3:6]), ''.join(cells[0:3])]
    return rows, mark, rng.random() < 0.5


@SETTINGS
@given(st.builds(ttt_position, st.integers(0, 2 ** 32)))
def test_tictactoe_boards_and_turned_answers_agree(drawn):
    """The judge reads boards as the oracle does, and the answers it derives for a turned
    board (moves turned, the value kept) are the oracle's own answers on that board."""
    rows, player, maximizing = drawn
    assert ttt_board.from_rows(rows) == ttt_oracle.board_from_rows(rows)
    fields = ('value', 'best_moves', 'move_values', 'terminal')
    inputs = {'board': rows, 'player': player, 'maximizing': maximizing}
    expected = ttt_oracle.expect(inputs)
    case = Case(name='drawn', input=inputs, expected=expected)
    turned = ttt_judge.turned_case(case, 1)
    answer = ttt_oracle.expect(turned.input)
    assert {f: turned.expected[f] for f in fields} == {f: answer[f] for f in fields}
