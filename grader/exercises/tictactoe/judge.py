"""Tic-tac-toe judge: runs in the parent and decides every check.

Checks (points come from grading.yaml):

- ``values``: the returned ``bestvalue`` equals the position's value.
- ``moves``: ``bestmove`` is legal and reaches the optimal value (any optimal
  move is accepted).
- ``robustness``: the call returned a well-formed ``(int, int)`` pair, did not
  raise or exit, and left the board as it found it -- on a case whose value
  is also right.
- ``timeouts``: the call finished within its calibrated limit, with the right
  value.
- ``pruning``: on positions with one or two marks, the number of search
  calls (calls of the student's recursive functions; helpers called at each
  node are not counted, see :mod:`grader.child.counting`) is at most
  ``margin`` times the size of the game tree, which is what plain minimax
  makes when it enters terminal positions.  Plain minimax that scores
  terminal children inline makes about 0.53 of that, and alpha-beta
  0.03-0.2 (two functions per level at most), so the margin 0.35 separates
  them.  Only on cases whose value is right and whose board was restored.
  Positions with three marks have trees too small to tell.
- ``terminal``: positions already decided.  The game never asks for a move
  there, and solutions that test ``IsWinning`` before recursing are correct
  yet cannot see a finished game at the root, so this is information only by
  default.
"""
from grader.exercises import base
from grader.exercises.tictactoe import board as boards

OBSERVATION = {
    'type': 'object',
    'required': ['result', 'board_after', 'nodes'],
    'properties': {
        'result': {'type': 'object'},
        'board_after': {'type': ['array', 'null'], 'items': {'enum': ['X', 'O', '-', '?']},
                        'minItems': 9, 'maxItems': 9},
        'nodes': {'type': ['object', 'null'], 'properties': {
            'traced': {'type': 'integer', 'minimum': 0},
            'all_calls': {'type': 'integer', 'minimum': 0},
            'recursive': {'type': 'array', 'items': {'type': 'string'}},
            'intact': {'type': 'boolean'},
            'reps': {'type': 'array', 'items': {'type': 'integer', 'minimum': 0}},
        }, 'required': ['traced', 'all_calls', 'intact', 'reps']},
    },
}


def signed(value):
    return f'{value:+d}' if value else '0'


def read_answer(observation):
    """``(value, move, problem)`` from the plain result; problem is a sentence."""
    result = observation['result']
    if result.get('shape') == 'single':
        item = result['item']
        if item['kind'] == 'none':
            return None, None, ('returned None instead of the pair (bestvalue, bestmove): '
                                'is Minimax still the template placeholder, or is a return '
                                'statement missing on some path?')
        if item['kind'] == 'int':
            return None, None, (f'returned only a number ({item["value"]}); Minimax must '
                                'return the pair (bestvalue, bestmove)')
        return None, None, f'returned a {item.get("type", item["kind"])} instead of (bestvalue, bestmove)'
    items = result.get('items', [])
    if result.get('length') != 2:
        return None, None, (f'returned a sequence of {result.get("length")} items; '
                            'expected the pair (bestvalue, bestmove)')
    value_item, move_item = items
    if value_item['kind'] != 'int':
        what = value_item.get('type', value_item['kind'])
        return None, None, f'returned a {what} as bestvalue, not a plain number'
    value = value_item['value']
    move = move_item['value'] if move_item['kind'] == 'int' else None
    return value, move, None


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

    def requests(self, case, settings):
        payload = {
            'board': boards.from_rows(case.input['board']),
            'maximizing': case.input['maximizing'],
            'player': case.input['player'],
            'count': 'pruning' in case.tags,
        }
        return [base.Request(payload)]

    def judge(self, case, replies, settings):
        reply, = replies
        board = boards.from_rows(case.input['board'])
        expected = case.expected
        side = 'maximizer' if case.input['maximizing'] else 'minimizer'
        call = (f"Minimax(board, {case.input['maximizing']}, '{case.input['player']}') "
                f"-- {case.input['player']} to move as the {side}")
        picture = boards.draw(board)

        def outcome(check, passed, message, returned='', cause='', measured=None):
            lines = [call, picture]
            if returned:
                lines.append(f'returned: {returned}')
            if not passed and not case.hidden and check != 'pruning':
                best = ', '.join(map(str, expected['best_moves'])) or 'none (the game is over)'
                lines.append(f"expected: value {signed(expected['value'])}; optimal moves: {best}")
            if cause:
                lines.append(cause)
            return base.Outcome(check, case.name, passed, message,
                                '\n'.join(lines) if not passed else '', measured or {})

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
        returned = self._returned(obs)
        if problem:
            return [outcome(c, False, problem, returned) for c in checks]

        value_ok = value == expected['value']
        results = []
        for check in checks:
            if check in ('values', 'terminal'):
                if value_ok:
                    results.append(outcome(check, True, f'value {signed(value)}'))
                else:
                    changed = self._board_change(board, obs.get('board_after'))
                    cause = ('The board was left changed, so later moves were searched on a wrong '
                             'position: undo every move you try.' if changed
                             else self._value_cause(value, expected))
                    results.append(outcome(check, False,
                                           f"value {signed(value)}, expected {signed(expected['value'])}"
                                           if not case.hidden else f'value {signed(value)} is not right',
                                           returned, cause))
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
                                           returned))
                else:
                    results.append(outcome(check, True, 'well-formed, board restored'))
            elif check == 'timeouts':
                seconds = f'{reply.seconds:.2f} s of {reply.limit:.2f} s of CPU time'
                results.append(outcome(check, value_ok,
                                       seconds if value_ok else f'{seconds}, but the value is wrong',
                                       returned))
            elif check == 'pruning':
                restored = not self._board_change(board, obs.get('board_after'))
                results.append(self._judge_pruning(case, obs, value_ok, restored, settings,
                                                   returned, outcome))
        return results

    # -- helpers ---------------------------------------------------------
    @staticmethod
    def _returned(obs):
        result = obs['result']
        if result.get('shape') != 'sequence':
            item = result.get('item', {})
            if item.get('kind') == 'none':
                return 'None'
            return str(item.get('value', item.get('type', item.get('kind'))))
        parts = []
        for item in result['items']:
            parts.append(str(item['value']) if 'value' in item else item.get('type', item['kind']))
        return '(' + ', '.join(parts) + ')'

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
                           'Keep track of the move that produced the best value.')
        if board[move] != '-':
            return outcome('moves', False, f'bestmove {move} is an occupied cell', returned,
                           'The move must be an empty cell of the board.')
        if move in expected['best_moves']:
            return outcome('moves', True, f'move {move}')
        if case.hidden:
            return outcome('moves', False, f'move {move} is not optimal', returned)
        reached = expected['move_values'].get(str(move))
        return outcome('moves', False,
                       f"move {move} reaches value {signed(reached)}, not {signed(expected['value'])}",
                       returned, 'Update bestmove exactly when a child improves the best value.')

    @staticmethod
    def _judge_pruning(case, obs, value_ok, restored, settings, returned, outcome):
        nodes = obs.get('nodes') or {}
        inline = case.expected['minimax_nodes_inline']
        full = case.expected['minimax_nodes']
        margin = settings.check_param('pruning', 'margin', 0.35)
        traced = nodes.get('traced', 0)
        measured = {'nodes': traced,
                    'minimax_nodes_inline': inline, 'minimax_nodes': full,
                    'ratio': round(traced / full, 4) if full else None}
        tampered = []
        if not nodes.get('intact', False):
            tampered.append('the counting instrument was changed during the search')
        if tampered:
            measured['tampered'] = True
            return outcome('pruning', False, 'measurement tampered: ' + '; '.join(tampered),
                           returned, measured=measured)
        summary = (f'{traced} search calls; plain minimax makes {full} (entering terminal '
                   f'positions) or {inline} (scoring them inline): ratio {traced / full:.3f}')
        if not value_ok or not restored:
            why = 'the value is wrong' if not value_ok else 'the board was left changed'
            return outcome('pruning', False, f'{summary}, but {why}', returned,
                           measured=measured)
        if traced <= margin * full:
            return outcome('pruning', True, summary, measured=measured)
        return outcome('pruning', False, summary + f' (above {margin:g}: no pruning)',
                       returned, 'Alpha-beta returns as soon as alpha >= beta; '
                       'pass alpha and beta down to every recursive call.', measured=measured)

    def facts(self, outcomes, settings):
        pruning = [o for o in outcomes if o.check == 'pruning']
        ratios = [o.measured['ratio'] for o in pruning if o.measured.get('ratio') is not None]
        facts = {
            'prunes': bool(pruning) and all(o.passed for o in pruning),
            'tampered': any(o.measured.get('tampered') for o in pruning),
            'nodes': {o.case: o.measured.get('nodes') for o in pruning},
        }
        if ratios:
            ratios.sort()
            facts['node_ratio_median'] = ratios[len(ratios) // 2]
        return facts


EXERCISE = TicTacToe()
