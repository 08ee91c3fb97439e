"""Tic-tac-toe judge: runs in the parent and decides every check.

Checks (points come from grading.yaml):

- ``values``: the returned ``bestvalue`` equals the position's value.  A
  bare value (no move) still earns this check; the moves check then says
  what is missing.
- ``moves``: ``bestmove`` is legal and reaches the optimal value (any optimal
  move is accepted).
- ``robustness``: the call returned a well-formed ``(int, int)`` pair, did not
  raise or exit, and left the board as it found it -- on a case whose value
  is also right.
- ``timeouts``: the call finished within its calibrated limit, with the right
  value.
- ``pruning``: on positions with one or two marks, the search calls (calls of
  the submission's recursive functions, :mod:`grader.child.counting`) are at
  most ``margin`` times the game tree (plain minimax entering finished
  positions); plain minimax that scores finished children inline makes
  about 0.53 of that, alpha-beta 0.03-0.2.  Only on cases whose value is
  right and whose board was restored, and only when the counts are
  confirmed (below).
- ``terminal``: positions already decided.  The game never asks for a move
  there, and solutions that test ``IsWinning`` before recursing are correct
  yet cannot see a finished game at the root, so this is information only by
  default.

Across cases (:meth:`TicTacToe.review`), the counts are confirmed by the CPU
time measured outside the submission (:mod:`grader.judging.evidence`): every
count at least the position's smallest proof tree, the same count when a
position is searched again, a steady time per counted call, and counts that
change when the two-mark positions are turned (the derived cases
``<name>-turned-1..3``; a search that remembers positions, or a count scaled
from an unpruned search, does the same work however the board is turned).
Unconfirmed counts earn no "prunes".  And answers count only where the
submission's own search ran: confirmed counts, or, for a search that cannot
be counted (on another thread, iterative, a generator), CPU time on the
one- and two-mark positions that no look-up spends; otherwise every answer
check fails with "answered without a search".
"""
import math

from grader.exercises import base
from grader.exercises.tictactoe import board as boards
from grader.judging import evidence, shapes

OBSERVATION = {
    'type': 'object',
    'required': ['result', 'board_after', 'nodes'],
    'properties': {
        'result': shapes.PLAIN_SEQUENCE,
        'board_after': shapes.board(9, 'XO-?'),
        'nodes': {'type': ['object', 'null'], 'properties': {
            'traced': shapes.COUNT,
            'all_calls': shapes.COUNT,
            'recursive': {'type': 'array', 'items': shapes.NAME, 'maxItems': 20},
            'intact': {'type': 'boolean'},
            'reps': {'type': 'array', 'items': shapes.COUNT, 'maxItems': 64},
        }, 'required': ['traced', 'all_calls', 'intact', 'reps'], 'additionalProperties': False},
    },
    'additionalProperties': False,
}

BASELINES = 3
"""Requests of each kind (one run; :data:`MAX_REPS` runs on a position with one empty cell),
timed for what a counted case costs besides the search."""
WORK_NODES = 3000
"""A counted case is searched again until the reference alpha-beta would have made this many
calls (at most :data:`MAX_REPS` times), so its CPU time is well above what a case costs besides."""
MAX_REPS = 8
SEARCH_FLOOR_UNITS = 0.02
"""CPU time per search, in calibration units, below which a position whose smallest proof
tree has :data:`HEAVY` positions or more was not searched: plain minimax from one mark takes
about 1 unit, the reference alpha-beta 0.1-0.3, an iterative alpha-beta more; a look-up
about 0.0001.  Only a search that cannot be counted (iterative, a generator, on another
thread) needs this: counted calls that the CPU time confirms show a search by themselves."""
HEAVY = 150


def signed(value):
    return f'{value:+d}' if value else '0'


def read_answer(observation):
    """``(value, move, problem)`` from the plain result.

    ``problem`` is a sentence when the answer is not a (value, move) pair;
    ``value`` is still set when it is a bare number (partial credit).
    """
    result = observation['result']
    if result['shape'] == 'single':
        item = result['item']
        if item['kind'] == 'none':
            return None, None, ('returned None instead of the pair (bestvalue, bestmove): '
                                'is Minimax still the template placeholder, or is a return '
                                'statement missing on some path?')
        if item['kind'] == 'int':
            return item['value'], None, (f'returned only a number ({item["value"]}); Minimax '
                                         'must return the pair (bestvalue, bestmove)')
        return None, None, f'returned a {item.get("type", item["kind"])} instead of (bestvalue, bestmove)'
    items = result['items']
    if result['length'] != 2 or len(items) != 2:
        return None, None, (f'returned a sequence of {result["length"]} items; '
                            'expected the pair (bestvalue, bestmove)')
    value_item, move_item = items
    if value_item['kind'] != 'int':
        what = value_item.get('type', value_item['kind'])
        return None, None, f'returned a {what} as bestvalue, not a plain number'
    move = move_item['value'] if move_item['kind'] == 'int' else None
    return value_item['value'], move, None


def returned_text(obs):
    result = obs['result']
    if result['shape'] != 'sequence':
        item = result['item']
        if item['kind'] == 'none':
            return 'None'
        return str(item.get('value', item.get('type', item['kind'])))
    parts = [str(item['value']) if 'value' in item else item.get('type', item['kind'])
             for item in result['items']]
    return '(' + ', '.join(parts) + ')'


def turned_case(case, turns):
    """``case`` with its board turned ``turns`` quarters; the same value, moves turned too."""
    rows, expected = case.input['board'], dict(case.expected)
    move_of = list(range(9))
    for _ in range(turns):
        rows = boards.turn_rows(rows)
        move_of = [boards.turned(m) for m in move_of]
    expected['best_moves'] = sorted(move_of[m] for m in case.expected['best_moves'])
    expected['move_values'] = {str(move_of[int(m)]): v
                               for m, v in case.expected['move_values'].items()}
    return base.Case(name=f'{case.name}-turned-{turns}', input=dict(case.input, board=rows),
                     expected=expected, source=f'{case.source} (the board turned)',
                     tags=case.tags, hidden=case.hidden, file=case.file,
                     generated=case.generated, group=case.name)


class TicTacToe(base.Exercise):
    name = 'tictactoe'
    title = 'Tic-tac-toe: minimax and alpha-beta'
    files = ('tictactoe.py',)
    probe = 'grader.exercises.tictactoe.probe'
    observation_schema = OBSERVATION
    checks = (
        base.Check('values', 'bestvalue is the value of the position', 1.0),
        base.Check('moves', 'bestmove is legal and optimal', 1.0),
        base.Check('robustness', 'a well-formed answer, no crash, board restored', 0.25),
        base.Check('timeouts', 'every position answered within its time limit', 0.25),
        base.Check('pruning', 'the search prunes (node counts against plain minimax)', 0.0),
        base.Check('terminal', 'positions already decided (information only)', 0.0),
    )

    # -- cases and requests ------------------------------------------------
    def extra_cases(self, cases, settings):
        """Baselines, and the two-mark pruning positions turned three times."""
        extra = [base.Case(name=f'baseline-{i + 1}', input={'reps': reps}, expected={},
                           tags=('baseline',))
                 for i, reps in enumerate([1] * BASELINES + [MAX_REPS] * BASELINES)]
        for case in cases:
            if 'pruning' in case.tags and not case.hidden and \
                    sum(row.count('-') for row in case.input['board']) == 7:
                case.group = case.name
                extra += [turned_case(case, turns) for turns in (1, 2, 3)]
        return extra

    def requests(self, case, settings):
        if 'baseline' in case.tags:     # one empty cell: next to no search at all
            return [base.Request({'board': ['X', 'O', 'X', 'X', 'O', 'O', 'O', 'X', '-'],
                                  'maximizing': True, 'player': 'X', 'count': True,
                                  'reps': case.input['reps']}, runs=case.input['reps'])]
        payload = {
            'board': boards.from_rows(case.input['board']),
            'maximizing': case.input['maximizing'],
            'player': case.input['player'],
            'count': 'terminal' not in case.tags,
            'reps': 1,
        }
        if 'pruning' in case.tags:
            reference = max(1, case.expected.get('alphabeta_nodes', WORK_NODES))
            payload['reps'] = max(1, min(MAX_REPS, math.ceil(WORK_NODES / reference)))
        return [base.Request(payload, runs=payload['reps'])]

    # -- one case -------------------------------------------------------------
    def judge(self, case, replies, settings):
        reply, = replies
        if 'baseline' in case.tags:
            return [base.Outcome('_baseline', case.name, reply.ok, reply.error,
                                 measured={'cpu': reply.cpu, 'runs': case.input['reps']})]
        board = boards.from_rows(case.input['board'])
        expected = case.expected
        side = 'maximizer' if case.input['maximizing'] else 'minimizer'
        call = (f"Minimax(board, {case.input['maximizing']}, '{case.input['player']}') "
                f"-- {case.input['player']} to move as the {side}")
        picture = boards.draw(board)

        def outcome(check, passed, message, returned='', cause='', measured=None, kind=''):
            lines = [call, picture]
            if returned:
                lines.append(f'returned: {returned}')
            if not passed and check != 'pruning':
                best = ', '.join(map(str, expected['best_moves'])) or 'none (the game is over)'
                lines.append(f"expected: value {signed(expected['value'])}; optimal moves: {best}")
            if cause:
                lines.append(cause)
            return base.Outcome(check, case.name, passed, message,
                                '\n'.join(lines) if not passed else '', measured or {}, kind)

        if 'terminal' in case.tags:
            checks = ['terminal']
        else:
            checks = ['values', 'moves', 'robustness', 'timeouts']
            if 'pruning' in case.tags:
                checks.append('pruning')

        if not reply.ok:
            reason = base.failure_message(reply)
            cause = ('It may be an endless loop, or a search that never reaches a finished game.'
                     if reply.status == 'timeout' else '')
            return [outcome(c, False, reason, cause=cause) for c in checks]

        obs = reply.observation
        value, move, problem = read_answer(obs)
        returned = returned_text(obs)
        if problem and value is None:
            return [outcome(c, False, problem, returned) for c in checks]

        value_ok = value == expected['value']
        results = []
        for check in checks:
            if check in ('values', 'terminal'):
                results.append(self._judge_value(case, board, obs, value, value_ok, returned,
                                                 outcome, check))
            elif problem:       # a bare value: the rest needs the pair
                results.append(outcome(check, False, problem, returned, kind='wrong move'))
            elif check == 'moves':
                results.append(self._judge_move(case, board, move, returned, outcome))
            elif check == 'robustness':
                changed = self._board_change(board, obs.get('board_after'))
                if changed:
                    results.append(outcome(check, False, f'left the board changed ({changed})',
                                           returned, 'Undo every move you try before returning '
                                           '(or search on a copy of the board).'))
                elif not value_ok:
                    results.append(outcome(check, False, 'well-formed, but the value is wrong',
                                           returned, kind='wrong value'))
                else:
                    results.append(outcome(check, True, 'well-formed, board restored'))
            elif check == 'timeouts':
                seconds = f'{reply.seconds:.2f} s of {reply.limit:.2f} s of CPU time'
                results.append(outcome(check, value_ok,
                                       seconds if value_ok else f'{seconds}, but the value is wrong',
                                       returned, kind='' if value_ok else 'wrong value'))
            elif check == 'pruning':
                restored = not self._board_change(board, obs.get('board_after'))
                results.append(self._judge_pruning(case, obs, reply, value_ok, restored, settings,
                                                   returned, outcome))
        return results

    def _judge_value(self, case, board, obs, value, value_ok, returned, outcome, check):
        expected = case.expected
        if value_ok:
            nodes = obs.get('nodes') or {}
            return outcome(check, True, f'value {signed(value)}', measured={
                'searched': nodes.get('traced', 0) >= max(1, expected.get('proof_nodes', 1))
                if nodes else None})
        changed = self._board_change(board, obs.get('board_after'))
        cause = ('The board was left changed, so later moves were searched on a wrong '
                 'position: undo every move you try.' if changed
                 else self._value_cause(value, expected))
        return outcome(check, False, f"value {signed(value)}, expected {signed(expected['value'])}",
                       returned, cause, kind='wrong value')

    @staticmethod
    def _value_cause(value, expected):
        if value == -expected['value'] and value != 0:
            return ('The sign is flipped: values are from the maximizer\'s point of view, '
                    'so check who maximizes and that max and min alternate.')
        if value not in (-1, 0, 1):
            return 'Values must be +1, 0 or -1; the initial best value may have leaked out.'
        return 'Check the terminal scores and that each level takes max or min by turn.'

    @staticmethod
    def _board_change(before, after):
        if after is None:
            return 'it is no longer a list of 9 marks'
        diffs = [f"cell {i}: '{b}' -> '{a}'" for i, (b, a) in enumerate(zip(before, after)) if a != b]
        return ', '.join(diffs[:3]) + (' ...' if len(diffs) > 3 else '')

    @staticmethod
    def _judge_move(case, board, move, returned, outcome):
        expected = case.expected
        if move is None or not 0 <= move <= 8:
            return outcome('moves', False, f'bestmove {move!r} is not a cell index 0-8', returned,
                           'Keep track of the move that produced the best value.',
                           kind='wrong move')
        if board[move] != '-':
            return outcome('moves', False, f'bestmove {move} is an occupied cell', returned,
                           'The move must be an empty cell of the board.', kind='wrong move')
        if move in expected['best_moves']:
            return outcome('moves', True, f'move {move}')
        reached = expected['move_values'].get(str(move))
        return outcome('moves', False,
                       f"move {move} reaches value {signed(reached)}, not {signed(expected['value'])}",
                       returned, 'Update bestmove exactly when a child improves the best value.',
                       kind='wrong move')

    @staticmethod
    def _judge_pruning(case, obs, reply, value_ok, restored, settings, returned, outcome):
        nodes = obs.get('nodes') or {'traced': 0, 'reps': [], 'intact': True}
        inline = case.expected['minimax_nodes_inline']
        full = case.expected['minimax_nodes']
        margin = settings.check_param('pruning', 'margin', 0.35)
        traced = nodes['traced']
        measured = {'nodes': traced, 'minimax_nodes_inline': inline, 'minimax_nodes': full,
                    'ratio': round(traced / full, 4) if full else None,
                    'counts': list(nodes['reps']) or [traced], 'cpu': reply.cpu,
                    'floor': case.expected.get('proof_nodes', 1), 'group': case.group,
                    'hidden': case.hidden}
        if not nodes.get('intact', False):
            measured['tampered'] = True
            return outcome('pruning', False, 'measurement tampered: the counting instrument '
                           'was changed during the search', returned, measured=measured,
                           kind='not measured')
        summary = (f'{traced} search calls; plain minimax makes {full} (entering terminal '
                   f'positions) or {inline} (scoring them inline): ratio {traced / full:.3f}')
        if not value_ok or not restored:
            why = 'the value is wrong' if not value_ok else 'the board was left changed'
            return outcome('pruning', False, f'{summary}, but {why}', returned,
                           measured=measured, kind='wrong value')
        if traced <= margin * full:
            return outcome('pruning', True, summary, measured=measured)
        return outcome('pruning', False, summary + f' (above {margin:g}: no pruning)',
                       returned, 'Alpha-beta returns as soon as alpha >= beta; '
                       'pass alpha and beta down to every recursive call.', measured=measured)

    # -- across cases -------------------------------------------------------
    def review(self, outcomes, settings, context):
        """Confirm the counts with the CPU time, and require a search behind the answers."""
        pruning = [o for o in outcomes if o.check == 'pruning' and 'counts' in o.measured]
        baseline = [(o.measured['runs'], o.measured['cpu']) for o in outcomes
                    if o.check == '_baseline' and o.passed]
        # Counts are held to the proof tree only where the search found the value: a
        # wrong search may well explore less.
        samples = [evidence.Sample(o.case, o.measured['counts'], o.measured['cpu'],
                                   o.measured['floor'], o.measured['group'],
                                   hidden=o.measured.get('hidden', False))
                   for o in pruning if o.kind != 'wrong value']
        found = evidence.confirm(samples, baseline)
        facts = {'evidence': {'status': found.status, 'reason': found.reason,
                              'seconds_per_call': found.seconds_per_unit,
                              'spread': found.spread},
                 'tampered': any(o.measured.get('tampered') for o in pruning)}
        if not found.confirmed:
            for o in pruning:
                if o.passed:
                    o.passed, o.kind = False, 'not measured'
                    o.message = f'could not be counted: {found.reason}'
        costs = evidence.overhead(baseline)
        heavy = [evidence.work(evidence.Sample(o.case, o.measured['counts'], o.measured['cpu']),
                               costs) for o in pruning if o.measured['floor'] >= HEAVY]
        unit = context.get('unit') or 0.0
        # A search ran when some right answer came with at least its proof tree's count of
        # search calls, or (a search that cannot be counted) when the one-mark positions
        # took the CPU time of a search.
        counted = any(o.measured.get('searched') for o in outcomes if o.check == 'values')
        searched = counted or found.confirmed or \
            evidence.searched_by_time(heavy, SEARCH_FLOOR_UNITS * unit)
        facts['searched'] = searched
        if heavy and not searched:
            for o in outcomes:
                if o.passed and o.check in ('values', 'moves', 'robustness', 'timeouts'):
                    o.passed, o.kind = False, 'no search'
                    o.message = ('answered without a search: neither counted search calls nor '
                                 'the CPU time of the one-mark positions show one '
                                 '(a table of answers earns nothing)')
        prunes = [o for o in outcomes if o.check == 'pruning']
        facts['prunes'] = bool(prunes) and all(o.passed for o in prunes)
        return outcomes, facts

    def facts(self, outcomes, settings):
        pruning = [o for o in outcomes if o.check == 'pruning' and o.measured]
        ratios = sorted(o.measured['ratio'] for o in pruning if o.measured.get('ratio') is not None)
        facts = {'nodes': {o.case: o.measured.get('nodes') for o in pruning}}
        if ratios:
            facts['node_ratio_median'] = ratios[len(ratios) // 2]
        return facts


EXERCISE = TicTacToe()
