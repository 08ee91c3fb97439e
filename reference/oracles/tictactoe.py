"""Oracle for tic-tac-toe fixture cases: exact game values by full minimax.

``expect(input, options)`` takes a case input ``{board, maximizing, player}``
(board as three rows, top row first, '-' empty) and returns:

- ``terminal``: the position is already decided (a line is complete or the
  board is full); then ``value`` is its score and ``best_moves`` is empty.
- ``value``: the minimax value from the maximizing side's point of view.
- ``best_moves``: every move (keypad index 0-8) that achieves that value for
  ``player``, sorted.
- ``move_values``: the value reached by each legal move (for feedback).
- ``minimax_nodes``: calls plain minimax makes when it recurses into terminal
  children (every position of the game tree below and including the root).
- ``minimax_nodes_inline``: calls plain minimax makes when it scores terminal
  children inline, before recursing (only non-terminal positions are entered).
- ``alphabeta_nodes``: calls the reference alpha-beta (reference/tictactoe.py)
  makes, for documenting the pruning margin.
- ``proof_nodes``: the fewest positions with moves left that any correct
  search must enter to know the value -- the smallest proof tree, over
  every order of moves and every way of cutting branches (Knuth and
  Moore's critical tree).  A search that scores finished positions inline
  enters only these; a count of search calls below this was not made by a
  search (the grader reads it as "could not be counted").
"""
from functools import lru_cache

from reference import tictactoe as ref

LINES = tuple(tuple(range(start, start + 3)) for start in (0, 3, 6)) + \
    tuple((col, col + 3, col + 6) for col in range(3)) + ((0, 4, 8), (2, 4, 6))
"""The eight lines of three (keypad indices, 0 bottom-left): rows, columns, diagonals."""


def board_from_rows(rows):
    """Three rows, top first -> keypad-indexed list (index 0 bottom-left)."""
    top, middle, bottom = rows
    return list(bottom) + list(middle) + list(top)


def winner(board):
    for a, b, c in LINES:
        if board[a] != '-' and board[a] == board[b] == board[c]:
            return board[a]
    return None


def other(mark):
    return 'O' if mark == 'X' else 'X'


@lru_cache(maxsize=None)
def solve(cells, to_move, max_mark):
    """(value for max_mark, best moves, nodes recursive, nodes inline)."""
    board = list(cells)
    won = winner(board)
    if won is not None:
        return (1 if won == max_mark else -1), (), 1, 0
    if '-' not in board:
        return 0, (), 1, 0
    children = []
    nodes, inline = 1, 1
    for move in range(9):
        if board[move] != '-':
            continue
        board[move] = to_move
        value, _, n, m = solve(''.join(board), other(to_move), max_mark)
        board[move] = '-'
        children.append((move, value))
        nodes += n
        inline += m
    pick = max if to_move == max_mark else min
    best = pick(v for _, v in children)
    return best, tuple(m for m, v in children if v == best), nodes, inline


def _children(cells, to_move):
    board = list(cells)
    for move in range(9):
        if board[move] == '-':
            board[move] = to_move
            yield ''.join(board)
            board[move] = '-'


def _finished(cells, max_mark):
    """The score of a finished position for ``max_mark``, else None."""
    won = winner(list(cells))
    if won is not None:
        return 1 if won == max_mark else -1
    return 0 if '-' not in cells else None


INFINITE = float('inf')


@lru_cache(maxsize=None)
def proof_at_least(cells, to_move, max_mark, bound):
    """Fewest positions to enter to prove the value is at least ``bound``.

    Every value lies in -1..+1, so "at least -1" needs no search at all.
    """
    if bound <= -1:
        return 0
    score = _finished(cells, max_mark)
    if score is not None:
        return 0 if score >= bound else INFINITE
    after = other(to_move)
    costs = [proof_at_least(c, after, max_mark, bound) for c in _children(cells, to_move)]
    return 1 + (min(costs) if to_move == max_mark else sum(costs))


@lru_cache(maxsize=None)
def proof_at_most(cells, to_move, max_mark, bound):
    """Fewest positions to enter to prove the value is at most ``bound`` (+1 needs no search)."""
    if bound >= 1:
        return 0
    score = _finished(cells, max_mark)
    if score is not None:
        return 0 if score <= bound else INFINITE
    after = other(to_move)
    costs = [proof_at_most(c, after, max_mark, bound) for c in _children(cells, to_move)]
    return 1 + (sum(costs) if to_move == max_mark else min(costs))


@lru_cache(maxsize=None)
def proof_nodes(cells, to_move, max_mark):
    """Fewest positions to enter to prove the exact value (0 for a finished position).

    One child is searched exactly (its value is the position's); every
    other child needs only the bound that rules it out.
    """
    if _finished(cells, max_mark) is not None:
        return 0
    value = solve(cells, to_move, max_mark)[0]
    if value in (-1, 1):    # the value is an end of the range: one side of the proof is free
        return (proof_at_least if value == 1 else proof_at_most)(cells, to_move, max_mark, value)
    after = other(to_move)
    bound = proof_at_most if to_move == max_mark else proof_at_least
    children = list(_children(cells, to_move))
    costs = [bound(c, after, max_mark, value) for c in children]
    total = sum(costs)
    return 1 + min(proof_nodes(c, after, max_mark) + total - cost
                   for c, cost in zip(children, costs)
                   if solve(c, after, max_mark)[0] == value)


def move_values(board, player, max_mark):
    """The value of the position after each legal move of ``player``."""
    values = {}
    for move in range(9):
        if board[move] == '-':
            after = board[:move] + [player] + board[move + 1:]
            values[str(move)] = solve(''.join(after), other(player), max_mark)[0]
    return values


def count_alphabeta(board, maximizing, player):
    """Number of Minimax calls the reference alpha-beta makes."""
    calls = 0
    original = ref.Minimax

    def counted(*args, **kwargs):
        nonlocal calls
        calls += 1
        return original(*args, **kwargs)

    ref.Minimax = counted
    try:
        counted(list(board), maximizing, player)
    finally:
        ref.Minimax = original
    return calls


def expect(input, options=None):
    board = board_from_rows(input['board'])
    player, maximizing = input['player'], input['maximizing']
    max_mark = player if maximizing else other(player)
    value, best, nodes, inline = solve(''.join(board), player, max_mark)
    terminal = not best
    return {
        'terminal': terminal,
        'value': value,
        'best_moves': list(best),
        'move_values': {} if terminal else move_values(board, player, max_mark),
        'minimax_nodes': nodes,
        'minimax_nodes_inline': inline,
        'alphabeta_nodes': count_alphabeta(board, maximizing, player),
        'proof_nodes': proof_nodes(''.join(board), player, max_mark),
    }


def case(name, source, rows, player, maximizing=True, tags=('required',)):
    return {'name': name, 'source': source, 'tags': list(tags),
            'input': {'board': list(rows), 'player': player,
                      'maximizing': maximizing}}


def default_cases(options=None):
    """The fixture positions: seed 000's exercises plus a spread of others."""
    return [
        case('max-despair', "seed 000, Max's despair: X (Max) to move",
             ['O-O', 'X--', 'XO-'], 'X'),
        case('min-after-block', "seed 000, Max blocked top-middle; O (Min) to move",
             ['OXO', 'X--', 'XO-'], 'O', maximizing=False),
        case('best-of-three', "seed 000, best out of three; O (Min) to move",
             ['OXO', 'X-X', '-O-'], 'O', maximizing=False),
        case('o-max-win-now', 'O maximizes and wins at once',
             ['OO-', 'XX-', 'X--'], 'O'),
        case('o-max-must-block', 'O maximizes and must block',
             ['X--', '-X-', 'O--'], 'O'),
        case('x-min-to-move', "X to move as the minimizer (maximizingplayer=False)",
             ['X-O', '-O-', '---'], 'X', maximizing=False),
        case('x-to-move-corners', 'X to move, corners taken',
             ['X--', '-O-', 'O-X'], 'X'),
        case('middle-game-x', 'middle game, X to move',
             ['XO-', '-X-', '--O'], 'X'),
        case('one-move-left', 'one empty cell left', ['XOX', 'XOO', 'OX-'], 'X'),
        case('two-moves-left', 'two empty cells, Min to move',
             ['XOX', 'OO-', 'X-X'], 'O', maximizing=False),
        case('corner-one-mark', 'one X in a corner; measures pruning',
             ['---', '---', 'X--'], 'O', tags=('required', 'pruning')),
        case('centre-one-mark', 'one O in the centre; measures pruning',
             ['---', '-O-', '---'], 'X', tags=('required', 'pruning')),
        case('edge-one-mark-min', 'one X on an edge, O to move as minimizer; measures pruning',
             ['---', '---', '-X-'], 'O', maximizing=False, tags=('required', 'pruning')),
        case('two-marks', 'two marks placed; measures pruning',
             ['---', '-X-', 'O--'], 'X', tags=('required', 'pruning')),
        case('two-marks-o-max', 'two marks, O maximizes; measures pruning',
             ['---', '---', 'XO-'], 'X', maximizing=False, tags=('required', 'pruning')),
        case('three-marks-o-max', 'three marks, O maximizes',
             ['X--', '-O-', '--X'], 'O'),
        case('terminal-x-won', 'already decided: X has the top row, O to move',
             ['XXX', 'OO-', '---'], 'O', tags=('terminal',)),
        case('terminal-full-draw', 'already decided: a full board, no line',
             ['XOX', 'XOO', 'OXX'], 'O', tags=('terminal',)),
    ]


if __name__ == '__main__':
    for c in default_cases():
        print(c['name'], expect(c['input']))


def generate(rng, count, options=None):
    """``count`` positions for one submission, drawn with ``rng``.

    Positions are reached by random legal play from the empty board, so
    they are legal and reachable; none is already decided.  The first two
    (when ``count`` allows) are lost for the side to move whatever it plays,
    once with the maximizer to move and once with the minimizer: there no
    move improves on a best value started at the worst value, which is where
    a search that starts from -1 or +1 keeps no move.  The rest are spread
    over the game's phases (one to seven marks, cycling), whichever mark
    started, either mark to move and either side maximizing.  Positions with
    one or two marks also measure pruning.
    """
    cases, seen = [], set()
    for maximizing in (True, False)[:count]:
        while True:
            board, mover = _random_position(rng, rng.randrange(3, 7))
            if board is None:
                continue
            cells = ''.join(board)
            top = mover if maximizing else other(mover)
            lost = -1 if maximizing else 1
            values = move_values(board, mover, top).values()
            if (cells, mover) not in seen and values and all(v == lost for v in values):
                break
        seen.add((cells, mover))
        cases.append(_generated(board, mover, maximizing, ['required']))
    while len(cases) < count:
        marks = 1 + len(cases) % 7
        board, mover = _random_position(rng, marks)
        if board is None or (''.join(board), mover) in seen:
            continue
        seen.add((''.join(board), mover))
        tags = ['required', 'pruning'] if marks <= 2 else ['required']
        cases.append(_generated(board, mover, rng.random() < 0.5, tags))
    return cases


def tags(input):
    """The tags of a drawn position that did not come from :func:`generate` (a position of
    the pool, ``grader fixtures --select``): those it would have had there."""
    marks = sum(3 - row.count('-') for row in input['board'])
    return ['required', 'pruning'] if marks <= 2 else ['required']


def _random_position(rng, marks):
    """``(board, mark to move)`` after ``marks`` random moves, or ``(None, None)`` if decided."""
    board, mover = ['-'] * 9, rng.choice('XO')
    for _ in range(marks):
        move = rng.choice([i for i in range(9) if board[i] == '-'])
        board[move] = mover
        mover = other(mover)
    if winner(board) is not None or '-' not in board:
        return None, None
    return board, mover


def _generated(board, mover, maximizing, tags):
    cells = ''.join(board)
    return {'input': {'board': [cells[6:9], cells[3:6], cells[0:3]], 'player': mover,
                      'maximizing': maximizing}, 'tags': tags}
