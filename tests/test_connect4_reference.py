"""Connect four: fixture file, oracle, canonical evaluation and reference agree."""
import copy
import functools
import json
import pathlib
import random

import jsonschema
import pytest
import yaml

from grader.exercises.connect4 import rules
from gradertest import read_yaml
from reference import connect4 as reference
from reference.oracles import c4bitboard
from reference.oracles import connect4 as oracle

ROOT = pathlib.Path(__file__).resolve().parents[1]
FIXTURE = ROOT / 'fixtures' / 'connect4.yaml'
SCHEMA = ROOT / 'grader' / 'exercises' / 'connect4' / 'fixtures.schema.json'
SUBMISSIONS = ROOT / 'tests' / 'submissions' / 'connect4'
CHECKS = {'values', 'moves', 'pruning', 'timeouts', 'balance', 'evaluation', 'plays_well'}

CASES = read_yaml(FIXTURE)['cases']


def case_id(case):
    return case['name']


# ---------------------------------------------------------------- fixture file

def test_fixture_file_matches_schema():
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(
        yaml.safe_load(FIXTURE.read_text()))


def test_case_names_are_unique():
    names = [case['name'] for case in CASES]
    assert len(names) == len(set(names))


def test_regenerating_reproduces_the_fixture_file():
    """The oracle's own writer and `grader fixtures --regenerate` give the same cases."""
    assert yaml.safe_load(oracle.dump(oracle.fixture())) == yaml.safe_load(FIXTURE.read_text())


@pytest.mark.parametrize('case', CASES, ids=case_id)
def test_case_is_a_legal_position_with_o_to_move(case):
    board = rules.parse_board(case['input']['board'])
    assert rules.position_problems(board) == []
    assert rules.board_rows(board) == case['input']['board']


def test_fixture_covers_every_depth_and_few_deep_cases():
    depths = [case['input']['depth'] for case in CASES]
    assert set(depths) == {1, 2, 3, 4, 5, 6}
    assert depths.count(6) <= 3
    for case in CASES:
        if 'pruning' in case['tags']:
            assert case['input']['depth'] >= 4
            assert case['expected']['minimax_leaves'] >= 1000


def test_position_problems_reject_illegal_positions():
    floating = rules.parse_board(['.......'] * 4 + ['...x...', '.......'])
    too_many_o = rules.parse_board(['.......'] * 5 + ['oo.x...'])
    won = rules.parse_board(['.......'] * 5 + ['xxxxooo'])
    assert rules.position_problems(floating)
    assert rules.position_problems(too_many_o)
    assert rules.position_problems(won)
    with pytest.raises(ValueError):
        oracle.expect({'board': rules.board_rows(too_many_o), 'depth': 1})


# ---------------------------------------------------------------- reference

class Counting(reference.ConnectFour):
    """The reference with its evaluations and moves counted."""

    def __init__(self):
        super().__init__()
        self.leaves = self.made = 0

    def evaluation(self, board):
        self.leaves += 1
        return super().evaluation(board)

    def MakeMove(self, board, col, player, row):
        self.made += 1
        return super().MakeMove(board, col, player, row)


def search(case, method):
    board = rules.parse_board(case['input']['board'])
    game = Counting()
    game.moves = rules.count_pieces(board)
    work = copy.deepcopy(board)
    if method == 'alphabeta':
        result = game.alphabetapruning(work, case['input']['depth'], 'o',
                                       -1000000000, 1000000000)
    else:
        result = game.minimax(work, case['input']['depth'], 'o')
    assert work == board and game.moves == rules.count_pieces(board)
    return result, game


@pytest.mark.parametrize('case', CASES, ids=case_id)
def test_reference_alphabeta_agrees_with_the_oracle(case):
    (value, column), game = search(case, 'alphabeta')
    expected = case['expected']
    assert value == expected['value']
    assert column in expected['best_moves']
    assert game.leaves == expected['alphabeta_leaves']
    assert game.made == expected['alphabeta_nodes']


@pytest.mark.parametrize(
    'case', [c for c in CASES if c['expected']['minimax_leaves'] <= 5000],
    ids=case_id)
def test_reference_minimax_agrees_with_the_oracle(case):
    (value, column), game = search(case, 'minimax')
    expected = case['expected']
    assert value == expected['value']
    assert column in expected['best_moves']
    assert game.leaves == expected['minimax_leaves']
    assert game.made == expected['minimax_nodes']


# ---------------------------------------------------------------- evaluation

def sheet_evaluation(board, o_to_move):
    """The sheet's rules written out directly, cell by cell."""
    def line(row, col, d_row, d_col):
        cells = []
        for k in range(4):
            r, c = row + k * d_row, col + k * d_col
            if not (0 <= r < 6 and 0 <= c < 7):
                return None
            cells.append(board[r][c])
        return cells

    lines = [line(r, c, dr, dc) for r in range(6) for c in range(7)
             for dr, dc in ((0, 1), (1, 0), (1, 1), (-1, 1))]
    lines = [cells for cells in lines if cells is not None]
    assert len(lines) == 69
    if ['o'] * 4 in lines:
        return 512
    if ['x'] * 4 in lines:
        return -512
    if all(board[r][c] != ' ' for r in range(6) for c in range(7)):
        return 0
    score = 0
    for cells in lines:
        o, x = cells.count('o'), cells.count('x')
        if o and not x:
            score += {1: 1, 2: 10, 3: 50}[o]
        if x and not o:
            score -= {1: 1, 2: 10, 3: 50}[x]
    return score + (16 if o_to_move else -16)


def random_positions(count, seed=2018):
    """Seeded random games cut at random lengths, or at a win."""
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        board = [[' '] * 7 for _ in range(6)]
        mark = rng.choice('xo')
        for _ in range(rng.randint(0, 42)):
            moves = rules.legal_moves(board)
            if not moves:
                break
            col = rng.choice(moves)
            board[rules.legal_row(board, col)][col] = mark
            mark = rules.other(mark)
            if rules.is_winning(board, 'x') or rules.is_winning(board, 'o'):
                break
        positions.append(board)
    return positions


@functools.lru_cache(maxsize=None)
def positions():
    """400 seeded random positions (made once, when a test first asks: not while the suite
    is collected)."""
    return random_positions(400)


def test_random_positions_include_wins_and_open_positions():
    assert any(rules.is_winning(b, 'o') for b in positions())
    assert any(rules.is_winning(b, 'x') for b in positions())
    assert sum(rules.static_value(b) not in (512, -512, 0)
               for b in positions()) > 150


@pytest.mark.parametrize('o_to_move', [True, False])
def test_canonical_evaluation_follows_the_sheet(o_to_move):
    for board in positions() + [full_draw_board()]:
        assert rules.static_value(board, o_to_move) == \
            sheet_evaluation(board, o_to_move)


@pytest.mark.parametrize('o_to_move', [True, False])
def test_bitboard_evaluation_follows_the_sheet(o_to_move):
    for board in positions() + [full_draw_board()]:
        o, x = c4bitboard.from_board(board)
        assert c4bitboard.evaluate(o, x, o_to_move) == \
            sheet_evaluation(board, o_to_move)


def test_canonical_evaluation_takes_the_side_to_move_from_the_root():
    root = rules.parse_board(['.......'] * 5 + ['...x...'])
    evaluate = rules.canonical_evaluation(root)
    assert evaluate(root) == rules.static_value(root, True)
    child = copy.deepcopy(root)
    child[0][2] = 'o'
    assert evaluate(child) == rules.static_value(child, False)
    child[1][3] = 'x'
    assert evaluate(child) == rules.static_value(child, True)


def test_reference_evaluation_is_the_canonical_one():
    game = reference.ConnectFour()
    for board in positions() + [full_draw_board()]:
        game.moves = rules.count_pieces(board)
        game.turn = 0
        assert game.evaluation(board) == rules.static_value(board, True)
        game.turn = 'x'
        assert game.evaluation(board) == rules.static_value(board, False)


def test_fixture_evaluation_is_the_canonical_one():
    for case in CASES:
        board = rules.parse_board(case['input']['board'])
        assert case['expected']['evaluation'] == rules.static_value(board)


def full_draw_board():
    """A full board without four in a row (columns in pairs xxooxxo...)."""
    rows = ['xxooxxo', 'ooxxoox', 'xxooxxo', 'ooxxoox', 'xxooxxo', 'ooxxoox']
    board = rules.parse_board(rows)
    assert not rules.is_winning(board, 'x') and not rules.is_winning(board, 'o')
    return board


def test_render_board_draws_top_row_first_with_column_numbers():
    board = rules.parse_board(['.......'] * 5 + ['x.....o'])
    text = rules.render_board(board).splitlines()
    assert text[-2] == '|x . . . . . o|'
    assert text[-1] == ' 0 1 2 3 4 5 6'
    assert len(text) == 7


# ---------------------------------------------------------------- submissions

def test_verdicts_name_every_example_submission():
    verdicts = yaml.safe_load((SUBMISSIONS / 'verdicts.yaml').read_text())
    files = {path.name for path in SUBMISSIONS.glob('*.py')}
    files.add('../../../student_template/connect4.py')   # the template itself is graded
    assert set(verdicts) == files
    for verdict in verdicts.values():
        assert set(verdict['fails']) <= CHECKS
        assert verdict['description']


def test_the_student_template_is_graded():
    verdicts = yaml.safe_load((SUBMISSIONS / 'verdicts.yaml').read_text())
    template = verdicts['../../../student_template/connect4.py']
    assert (SUBMISSIONS / '../../../student_template/connect4.py').resolve() == \
        ROOT / 'student_template' / 'connect4.py'
    assert template['score'] == 0
