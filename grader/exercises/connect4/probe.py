"""Connect four probe: runs in the sandboxed child, next to the student module.

Every request builds a fresh ``ConnectFour()`` and sets ``moves`` to the
number of pieces on the board, as the handout's game would have it.

Requests (from the judge)::

    {"task": "search", "entry": "alphabetapruning" | "minimax",
     "fallback": bool, "board": [6 rows, top first, '.' empty],
     "depth": int, "count": bool, "reps": int, "at_least": int, "work": seconds}
    {"task": "evaluate", "board": [...]}
    {"task": "evaluations", "boards": [[...], ...]}
    {"task": "game", "seed": int, "depth": int, "first": "o" | "x"}

``search`` replaces ``evaluation`` on the instance by the canonical one
(:func:`rules.canonical_evaluation`, counted) and calls
``alphabetapruning(board, depth, 'o', -1000000000, 1000000000)`` or
``minimax(board, depth, 'o')`` on a copy of the board.  ``fallback`` marks
the ``minimax`` request the judge sends only once the reply of
``alphabetapruning`` showed the empty placeholder: the decision is the
parent's, and here it runs as any search, no code of the submission called
outside the counted run once the input is given (which would void its
counts).  Observation::

    {"task": "search", "entry": str, "missing": bool,
     "result": <plain_sequence>, "board_after": [6 rows] | null,
     "moves_before": int, "moves_after": <plain>}

(no clock: the parent reads the case's CPU time from outside its process)

Nothing is counted here: with ``count``, each run of the search goes through the
counter's trampoline (:func:`grader.child.tally.search`) and the injected evaluation is
:func:`leaf_evaluation`, whose frames the C counter tallies as leaves; the search's own
calls (its nodes) and any call of the grader's rules made outside a leaf evaluation are
tallied there too (:data:`LEAF`, :data:`OWNED`), and the runner reads the tally from the
stopped process.

``evaluate`` calls the student's own ``evaluation`` on the position ('o' to
move): ``{"task": "evaluate", "value": <plain>}``.  ``evaluations`` does
the same for each board in turn, each on a fresh ``ConnectFour()``:
``{"task": "evaluations", "values": [{"value": <plain>} | {"error": str,
"kind": str}]}``, an exception of the student's code the error of its own
board only (anything that ends the call, such as ``sys.exit``, ends it for
every board: the parent then asks for each alone).

``game`` plays one game of the student's ``searchingfunction(board, depth,
'o')`` (their own evaluation) against a seeded one-ply greedy 'x':
``{"task": "game", "outcome": "win" | "loss" | "draw", "reason": str,
"columns": [int], "board": [6 rows]}``.
"""
import functools
import random

from grader.child import channel, tally, values
from grader.child.runs import runs
from grader.exercises.connect4 import rules

ENTRIES = ('alphabetapruning', 'minimax')
WINDOW = 1000000000
CELLS = (rules.EMPTY, rules.HUMAN, rules.COMPUTER)
COUNTED = True
"""Searches run through the C counter's trampoline: the runner has the counter watch the case."""


def leaf_evaluation(evaluate, board, *args, **kwargs):
    """The evaluation a search finds on its instance: the sheet's, one leaf a call."""
    return evaluate(board)


LEAF = leaf_evaluation.__code__
"""Frames of this code are the search's leaf evaluations (counted in C)."""
OWNED = (rules,)
"""The grader's game rules, this probe's functions besides: a search that calls any of them
but through :data:`SANCTIONED` (to score leaves without the counted evaluation, say) is not
counted."""


def load(module, options, ctx):
    """Whether the module defines ``ConnectFour`` with one of the searches."""
    cls = module.__dict__.get('ConnectFour')
    found = [name for name in ENTRIES
             if isinstance(cls, type) and callable(getattr(cls, name, None))]
    return {'entry': 'ConnectFour.alphabetapruning or ConnectFour.minimax',
            'defined': bool(found), 'entries': found}


def handle(module, payload, options, ctx):
    task = payload.get('task', 'search')
    if task == 'evaluate':
        return {'task': 'evaluate', 'value': values.plain(evaluate(module, payload))}
    if task == 'evaluations':
        return {'task': 'evaluations',
                'values': [evaluated(module, board, ctx) for board in payload['boards']]}
    if task == 'game':
        return dict(play(module, payload), task='game')
    return search(module, payload, ctx, count=bool(payload.get('count', True)))


def direct_call(module, payload, options):
    """The student call of :func:`handle` without instrumentation: the raw result."""
    task = payload.get('task', 'search')
    if task == 'evaluate':
        return evaluate(module, payload)
    if task == 'evaluations':
        return [evaluate(module, {'board': board}) for board in payload['boards']]
    if task == 'game':
        return play(module, payload)
    board = rules.parse_board(payload['board'])
    # The grade sends the fallback only after the placeholder's reply; replayed here without
    # that reply, the request looks at the placeholder itself.
    if payload.get('fallback') and not placeholder(module, board):
        return None
    game = new_game(module, board)
    object.__setattr__(game, 'evaluation', rules.canonical_evaluation(board))
    return call(game, payload['entry'], rules.copy_board(board), payload['depth'])


# ---------------------------------------------------------------- search

def new_game(module, board):
    """A fresh ``ConnectFour()`` whose ``moves`` counts the pieces on ``board``."""
    game = module.__dict__['ConnectFour']()
    object.__setattr__(game, 'moves', rules.count_pieces(board))
    return game


def call(game, entry, board, depth):
    if entry == 'alphabetapruning':
        return game.alphabetapruning(board, depth, rules.COMPUTER, -WINDOW, WINDOW)
    return game.minimax(board, depth, rules.COMPUTER)


def placeholder(module, board):
    """True when ``alphabetapruning`` is missing or returns None at depth 1 (for
    :func:`direct_call`, which replays every request of a grade without the replies that
    decide whether the fallback is sent)."""
    game = new_game(module, board)
    if not callable(getattr(game, 'alphabetapruning', None)):
        return True
    object.__setattr__(game, 'evaluation', rules.canonical_evaluation(board))
    try:
        return call(game, 'alphabetapruning', rules.copy_board(board), 1) is None
    except Exception:  # noqa: BLE001 - implemented, if broken: graded as it is
        return False


def search(module, payload, ctx, count=True):
    """One search request; with ``reps`` (default 1) the search runs that many times (with
    ``work``, as long as that budget of CPU time lasts: :mod:`grader.child.runs`), each
    on a fresh ``ConnectFour()`` and board (the answer and what is left on the board are
    the first run's; the counts of each run are the C counter's).  ``reps`` 0 calls
    nothing: the parent times such a request to learn what a case costs besides the search.
    """
    board = rules.parse_board(payload['board'])
    entry = payload['entry']
    observation = {'task': 'search', 'entry': entry, 'missing': False,
                   'result': values.plain_sequence(None), 'board_after': None,
                   'moves_before': rules.count_pieces(board),
                   'moves_after': values.plain(None)}
    if int(payload.get('reps', 1)) <= 0:
        return observation
    for rep in runs(payload):
        # The game is made inside the run: every call of the submission's code, its
        # constructor's too, is then in the counter's sight.
        ran = tally.search(one_search, module, board, entry, payload['depth']) if count \
            else one_search(module, board, entry, payload['depth'], count=False)
        if ran is None:
            observation['missing'] = True
            return observation
        if rep:
            continue
        game, work, result = ran
        observation.update(result=values.plain_sequence(result), board_after=read_rows(work),
                           moves_after=values.plain(read_attribute(game, 'moves')))
    return observation


def one_search(module, board, entry, depth, count=True):
    """A fresh game, its evaluation the sheet's (:func:`leaf_evaluation` when counted), and
    ``entry`` on a copy of ``board``: ``(game, board searched, result)``; None when the game
    has no such method."""
    game = new_game(module, board)
    if not callable(getattr(game, entry, None)):
        return None
    work = rules.copy_board(board)
    evaluate = rules.canonical_evaluation(board)
    object.__setattr__(game, 'evaluation',
                       functools.partial(leaf_evaluation, evaluate) if count else evaluate)
    return game, work, call(game, entry, work, depth)


def read_attribute(obj, name):
    try:
        return object.__getattribute__(obj, name)
    except Exception:  # noqa: BLE001 - deleted or hidden: reported as missing
        return None


def read_rows(board):
    """A handout board as fixture rows ('?' for a foreign cell), or None."""
    rows, n = values.items(board, rules.ROWS + 1)
    if rows is None or n != rules.ROWS:
        return None
    cells = [values.plain_str_list(row, rules.COLS, CELLS) for row in rows]
    if any(row is None for row in cells):
        return None
    return [''.join(rules.FIXTURE_EMPTY if cell == rules.EMPTY else cell for cell in row)
            for row in reversed(cells)]


# ---------------------------------------------------------------- evaluation

def evaluate(module, payload):
    """The student's own evaluation of the position, 'o' to move."""
    board = rules.parse_board(payload['board'])
    return new_game(module, board).evaluation(rules.copy_board(board))


def evaluated(module, board, ctx):
    """One board of an ``evaluations`` request: ``{"value": <plain>}``, or the exception the
    student's code raised for it as ``{"error", "kind"}``."""
    try:
        return {'value': values.plain(evaluate(module, {'board': board}))}
    except Exception as exc:  # noqa: BLE001 - the student's failure on this board is data
        kind, text = channel.describe(exc, ctx.student_files)
        return {'error': text, 'kind': kind}


# ---------------------------------------------------------------- games

def greedy_move(board, rng):
    """The one-ply greedy 'x': the column whose position the sheet scores lowest."""
    scored = {}
    for col in rules.legal_moves(board):
        child = rules.copy_board(board)
        child[rules.legal_row(child, col)][col] = rules.HUMAN
        scored[col] = rules.static_value(child, o_to_move=True)
    best = min(scored.values())
    return rng.choice(sorted(col for col, value in scored.items() if value == best))


def student_move(before, after):
    """The column 'o' played from ``before`` to ``after``, or a reason it is not a move."""
    if after is None:
        return None, 'the board is no longer 6 rows of 7 cells'
    old = rules.board_rows(before)
    changed = [(5 - r, c) for r in range(rules.ROWS) for c in range(rules.COLS)
               if old[r][c] != after[r][c]]
    if len(changed) != 1:
        return None, f'{len(changed)} cells changed in one move'
    row, col = changed[0]
    if after[5 - row][col] != rules.COMPUTER:
        return None, f"cell (row {row}, column {col}) became {after[5 - row][col]!r}, not 'o'"
    if rules.legal_row(before, col) != row:
        return None, f'a piece in column {col} landed on row {row}, not on top of the column'
    return col, ''


def play(module, payload):
    """One game: the student's ``searchingfunction`` ('o') against greedy 'x'."""
    rng = random.Random(payload['seed'])
    depth = payload['depth']
    board = [[rules.EMPTY] * rules.COLS for _ in range(rules.ROWS)]
    game = module.__dict__['ConnectFour']()
    mark = payload.get('first', rules.COMPUTER)
    columns = []
    while True:
        if mark == rules.COMPUTER:
            work = rules.copy_board(board)
            object.__setattr__(game, 'moves', rules.count_pieces(board))
            returned = game.searchingfunction(work, depth, rules.COMPUTER)
            after = read_rows(returned) or read_rows(work)
            col, reason = student_move(board, after)
            if col is None:
                return {'outcome': 'loss', 'reason': 'illegal move: ' + reason,
                        'columns': columns, 'board': rules.board_rows(board)}
        else:
            col = greedy_move(board, rng)
        board[rules.legal_row(board, col)][col] = mark
        columns.append(col)
        if rules.is_winning(board, mark):
            outcome = 'win' if mark == rules.COMPUTER else 'loss'
            return {'outcome': outcome, 'reason': f'{mark!r} has four in a row',
                    'columns': columns, 'board': rules.board_rows(board)}
        if rules.is_full(board):
            return {'outcome': 'draw', 'reason': 'the board is full',
                    'columns': columns, 'board': rules.board_rows(board)}
        mark = rules.other(mark)


SANCTIONED = frozenset({leaf_evaluation.__code__, one_search.__code__})
"""The grader's code a counted run goes through: the grader's code under these is its own."""
