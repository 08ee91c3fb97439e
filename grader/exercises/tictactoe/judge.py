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
  the submission's recursive functions, :mod:`grader.child.tally`) are at
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
from grader.judging import answers, evidence, feedback, review, shapes, tallies
from grader.judging.feedback import signed

OBSERVATION = {
    'type': 'object',
    'required': ['result', 'board_after'],
    'properties': {
        'result': shapes.PLAIN_SEQUENCE,
        'board_after': shapes.board(9, 'XO-?'),
    },
    'additionalProperties': False,
}

BASELINES = 5
"""Requests that call nothing of the submission (no run), timed for what a counted case costs
besides the search.  They look like the pruning cases to the submission's code: the same time
limit, a drawn request id, and an input it cannot read before its module has run (held by the
counter); so no work it does can be aimed at them."""
WORK_NODES = 3000
"""A counted case is searched again until the reference alpha-beta would have made this many
calls (at most :data:`MAX_REPS` times), so its CPU time is well above what a case costs besides."""
MAX_REPS = 8
WORK_SECONDS = 0.02
"""... and only while its runs so far took less than this (CPU seconds; at least two runs):
about what the reference's repeats take, so a search far slower than alpha-beta (plain minimax
from two marks takes about 0.03 s a run) is run twice, not :data:`MAX_REPS` times.  Its time
limit covers those two runs (:mod:`grader.child.runs`)."""
SEARCH_FLOOR_UNITS = 0.05
"""CPU time per search, in calibration units, below which a position whose smallest proof
tree has :data:`HEAVY` positions or more was not searched: plain minimax from one mark takes
about 1 unit, the reference alpha-beta 0.1-0.3, an iterative alpha-beta more; a look-up
about 0.0001, but a case's CPU time varies by a few milliseconds on a busy machine (0.02
units let a look-up through under load).  Only a search that cannot be counted (iterative,
a generator, on another thread) needs this: counted calls that the CPU time confirms show
a search by themselves."""
HEAVY = 150
FRAMES_PER_PLY, LEAF_FRAMES = 6, 16
"""See :func:`deepest`."""
TREE_FACTOR, TREE_SLACK = 20, 50
"""The most search calls a search of a position may count: the game tree (every position
entered once) times :data:`TREE_FACTOR`, for recursive helpers called at each node (a line
check that calls itself once per cell), plus :data:`TREE_SLACK`.  More is a count made
apart from the search."""
PROVEN = 3
"""Once a submission's search is counted, each answer on a position whose smallest proof tree
has this many positions or more must come with at least that many calls of its own (every
position the search enters is a call of one of its functions, the root included)."""


ANSWER_CHECKS = ('values', 'moves', 'robustness', 'timeouts')
PAIR_WORDS = {
    'none': ('returned None instead of the pair (bestvalue, bestmove): is Minimax still the '
             'template placeholder, or is a return statement missing on some path?'),
    'number': ('returned only a number ({detail}); Minimax must return the pair '
               '(bestvalue, bestmove)'),
    'other': 'returned a {detail} instead of (bestvalue, bestmove)',
    'length': 'returned a sequence of {detail} items; expected the pair (bestvalue, bestmove)',
    'value': 'returned a {detail} as bestvalue, not a plain number',
}
"""What is wrong with the returned pair, in the words of the handout's ``Minimax``."""
NO_SEARCH = ('answered without a search: neither counted search calls nor the CPU time of the '
             'one-mark positions show one (a table of answers earns nothing)')


TAINTED = ("the submission changed the grader's own code in the case process: a request that "
           'calls nothing of the submission ran its code, so no answer or count is believed')
BEYOND = ('counted more search calls than the whole game tree of a position has positions: '
          'those calls were made apart from the search, so no answer or count is believed')
NO_SEARCH_HERE = ('answered without a search: this answer came with fewer counted search calls '
                  'than any correct search of the position makes, though the search was '
                  'counted on other positions (a table of answers earns nothing)')


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
        extra = review.baseline_cases(BASELINES)
        for case in cases:
            if 'pruning' in case.tags and not case.hidden and \
                    sum(row.count('-') for row in case.input['board']) == 7:
                case.group = case.name
                extra += [turned_case(case, turns) for turns in (1, 2, 3)]
        return extra

    def requests(self, case, settings):
        if 'baseline' in case.tags:     # no run: what a pruning case costs besides its search
            return [base.Request({'board': ['-'] * 9, 'maximizing': True, 'player': 'X',
                                  'count': True, 'reps': 0}, runs=2)]
        payload = {
            'board': boards.from_rows(case.input['board']),
            'maximizing': case.input['maximizing'],
            'player': case.input['player'],
            'count': 'terminal' not in case.tags,
            'reps': 1,
        }
        if 'pruning' in case.tags:
            payload['reps'] = repeats(case)
            payload.update(at_least=2, work=WORK_SECONDS)
        return [base.Request(payload, runs=min(payload['reps'], 2))]

    # -- one case -------------------------------------------------------------
    def judge(self, case, replies, settings):
        reply, = replies
        if 'baseline' in case.tags:
            return [review.baseline_outcome(case, reply, runs=0,
                                            tainted=tallies.ran_submission(reply))]
        if 'terminal' in case.tags:
            checks = ['terminal']
        else:
            checks = list(ANSWER_CHECKS) + (['pruning'] if 'pruning' in case.tags else [])
        board = boards.from_rows(case.input['board'])
        note = case_note(case, board)
        if not reply.ok:
            return note.fail_reply(checks, reply, timeout_cause=(
                'It may be an endless loop, or a search that never reaches a finished game.'))
        answer = Answer(case, board, reply, note)
        if answer.problem and answer.value is None:
            return note.fail(checks, answer.problem, returned=answer.returned)
        judges = {'values': judge_value, 'terminal': judge_value, 'moves': judge_move,
                  'robustness': judge_robustness, 'timeouts': judge_time,
                  'pruning': judge_pruning}
        if answer.problem:       # a bare value: the value is judged, the rest needs the pair
            judges = dict(dict.fromkeys(checks, judge_bare_value), values=judge_value,
                          terminal=judge_value)
        return [judges[check](check, answer, settings) for check in checks]

    # -- across cases -------------------------------------------------------
    def review(self, outcomes, settings, context):
        """Confirm the counts with the CPU time, and require a search behind the answers."""
        pruning = [o for o in outcomes if o.check == 'pruning' and 'counts' in o.measured]
        baseline = review.baselines(outcomes)
        # Counts are held to the proof tree only where the search found the value: a
        # wrong search may well explore less.
        samples = [evidence.Sample(o.case, o.measured['counts'], o.measured['cpu'],
                                   o.measured['floor'], o.measured['group'],
                                   hidden=o.measured.get('hidden', False))
                   for o in pruning if o.kind != 'wrong value']
        found = evidence.confirm(samples, baseline)
        facts = dict(review.evidence_facts(found, 'call'),
                     tampered=review.tampered(pruning, 'pruning'))
        if not found.confirmed:
            review.withdraw_uncounted(pruning, 'pruning', found.reason)
        heavy = review.search_works([evidence.Sample(o.case, o.measured['counts'],
                                                     o.measured['cpu'])
                                     for o in pruning if o.measured['floor'] >= HEAVY], baseline)
        unit = context.get('unit') or 0.0
        answered = [o for o in outcomes if o.check == 'values' and o.passed]
        voided = void_all(outcomes, answered)
        if voided:
            facts.update(tampered=True, searched=False, prunes=False)
            review.withdraw_unsearched(outcomes, ANSWER_CHECKS + ('pruning',), voided)
            return outcomes, facts
        # A search that can be counted shows its proof tree on every position it answers:
        # an answer without it (a table, with the search counted on some other position)
        # earns nothing.  One that cannot be counted at all shows a search by its CPU time.
        counted = any(o.measured.get('searched') for o in answered)
        searched = counted or evidence.searched_by_time(heavy, SEARCH_FLOOR_UNITS * unit,
                                                        baseline)
        facts['searched'] = searched
        if counted:
            fixed, _ = evidence.overhead(baseline)
            unproven = {o.case for o in answered if not o.measured.get('shown', True) and not (
                o.measured.get('voided') and (o.measured['proof'] < HEAVY or o.measured['cpu']
                                              - fixed >= SEARCH_FLOOR_UNITS * unit))}
            review.withdraw_unsearched([o for o in outcomes if o.case in unproven],
                                       ANSWER_CHECKS, NO_SEARCH_HERE)
        elif heavy and not searched:
            review.withdraw_unsearched(outcomes, ANSWER_CHECKS, NO_SEARCH)
        prunes = [o for o in outcomes if o.check == 'pruning']
        facts['prunes'] = bool(prunes) and all(o.passed for o in prunes)
        return outcomes, facts

    def facts(self, outcomes, settings):
        pruning = [o for o in outcomes if o.check == 'pruning' and o.measured]
        facts = {'nodes': {o.case: o.measured.get('nodes') for o in pruning}}
        ratio = review.median((o.measured.get('ratio') for o in pruning), 4)
        if ratio is not None:
            facts['node_ratio_median'] = ratio
        return facts


def void_all(outcomes, answered):
    """Why nothing measured in the case processes can be believed, or '': a baseline (which
    calls nothing of the submission) ran its code, so the grader's code there was changed;
    or a count beyond any search of the position was made apart from the search."""
    if any(o.measured.get('tainted') for o in outcomes if o.check == review.BASELINE):
        return TAINTED
    if any(o.measured.get('beyond') for o in answered):
        return BEYOND
    return ''


def repeats(case):
    """The most runs of a pruning case's search (:data:`WORK_NODES`, :data:`MAX_REPS`)."""
    reference = max(1, case.expected.get('alphabeta_nodes', WORK_NODES))
    return max(1, min(MAX_REPS, math.ceil(WORK_NODES / reference)))


def case_note(case, board):
    """The feedback block of a case: the call, the board, the value and the optimal moves."""
    side = 'maximizer' if case.input['maximizing'] else 'minimizer'
    call = (f"Minimax(board, {case.input['maximizing']}, '{case.input['player']}') "
            f"-- {case.input['player']} to move as the {side}")
    best = ', '.join(map(str, case.expected['best_moves'])) or 'none (the game is over)'
    return feedback.Note(case, [call, boards.draw(board)],
                         f"expected: value {signed(case.expected['value'])}; optimal moves: {best}",
                         no_expected=('pruning',))


class Answer:
    """What one call returned, read once for every check of the case."""

    def __init__(self, case, board, reply, note):
        self.case, self.board, self.reply, self.note = case, board, reply, note
        self.obs = reply.observation
        pair = answers.read_pair(self.obs['result'])
        self.value, self.move, self.problem = pair.value, pair.move, pair.sentence(PAIR_WORDS)
        self.returned = answers.returned_text(self.obs['result'], answers.type_text)
        self.value_ok = self.value == case.expected['value']
        self.changed = board_change(board, self.obs.get('board_after'))

    def outcome(self, check, passed, message, cause='', **details):
        """A verdict with what was returned shown (when it failed)."""
        return self.note.outcome(check, passed, message, self.returned, cause, **details)


def board_change(before, after):
    """What the search left changed on the board ('' when it was restored)."""
    if after is None:
        return 'it is no longer a list of 9 marks'
    diffs = [f"cell {i}: '{b}' -> '{a}'" for i, (b, a) in enumerate(zip(before, after)) if a != b]
    return ', '.join(diffs[:3]) + (' ...' if len(diffs) > 3 else '')


def judge_value(check, answer, settings):
    """``values`` (and ``terminal``): the returned value is the position's."""
    value, expected = answer.value, answer.case.expected
    if answer.value_ok:
        nodes = tallies.counted(answer.reply) if answer.reply.tally else None
        proof = expected.get('proof_nodes', 1)
        sound = nodes is not None and nodes.intact and nodes.depth <= deepest(answer.board)
        return answer.note.outcome(check, True, f'value {signed(value)}', measured={
            'searched': sound and nodes.traced >= max(1, proof) if nodes else None,
            # every position of the proof tree is a call of some function of the search
            # (a shallow search of mutually recursive functions may call none of them twice)
            'shown': proof < PROVEN or (sound and bool(nodes.calls) and nodes.calls[0] >= proof),
            # counts the submission made untrustworthy (a hook, a thread): its CPU time decides
            'voided': nodes is not None and not nodes.intact, 'proof': proof,
            'cpu': answer.reply.cpu,
            # no search calls itself more often than the whole game tree has positions
            'beyond': bool(nodes) and nodes.traced > TREE_FACTOR * expected['minimax_nodes']
            + TREE_SLACK})
    cause = ('The board was left changed, so later moves were searched on a wrong '
             'position: undo every move you try.' if answer.changed
             else value_cause(value, expected))
    detail = f"value {signed(value)}, expected {signed(expected['value'])}"
    return answer.outcome(check, False, detail, cause, kind='wrong value')


def deepest(board):
    """The deepest stack of Python frames a search of ``board`` may need: a few frames a ply
    (the search's functions, a comprehension, a lambda) and a few for the leaf's helpers.
    A count replayed by a chain of calls goes far deeper."""
    return FRAMES_PER_PLY * (board.count('-') + 1) + LEAF_FRAMES


def value_cause(value, expected):
    if value == -expected['value'] and value != 0:
        return ('The sign is flipped: values are from the maximizer\'s point of view, '
                'so check who maximizes and that max and min alternate.')
    if value not in (-1, 0, 1):
        return 'Values must be +1, 0 or -1; the initial best value may have leaked out.'
    return 'Check the terminal scores and that each level takes max or min by turn.'


def judge_bare_value(check, answer, settings):
    """A check that needs the pair (value, move) when only a value came back."""
    return answer.outcome(check, False, answer.problem, kind='wrong move')


def judge_move(check, answer, settings):
    """``moves``: a legal move that reaches the position's value."""
    move, expected = answer.move, answer.case.expected
    if move is None or not 0 <= move <= 8:
        return answer.outcome(check, False, f'bestmove {move!r} is not a cell index 0-8',
                              'Keep track of the move that produced the best value.',
                              kind='wrong move')
    if answer.board[move] != '-':
        return answer.outcome(check, False, f'bestmove {move} is an occupied cell',
                              'The move must be an empty cell of the board.', kind='wrong move')
    if move in expected['best_moves']:
        return answer.note.outcome(check, True, f'move {move}')
    reached = expected['move_values'].get(str(move))
    detail = f"move {move} reaches value {signed(reached)}, not {signed(expected['value'])}"
    return answer.outcome(check, False, detail,
                          'Update bestmove exactly when a child improves the best value.',
                          kind='wrong move')


def judge_robustness(check, answer, settings):
    """``robustness``: a well-formed pair, the board restored, on a right value."""
    if answer.changed:
        return answer.outcome(check, False, f'left the board changed ({answer.changed})',
                              'Undo every move you try before returning '
                              '(or search on a copy of the board).')
    if not answer.value_ok:
        return answer.outcome(check, False, 'well-formed, but the value is wrong',
                              kind='wrong value')
    return answer.note.outcome(check, True, 'well-formed, board restored')


def judge_time(check, answer, settings):
    """``timeouts``: within the CPU time limit, with the right value."""
    ok = answer.value_ok
    return answer.note.timed(check, answer.reply, ok, 'the value is wrong',
                             returned=answer.returned, kind='' if ok else 'wrong value')


def judge_pruning(check, answer, settings):
    """``pruning``: confirmed search calls well below plain minimax's, on a right answer."""
    case = answer.case
    nodes = tallies.counted(answer.reply)
    inline = case.expected['minimax_nodes_inline']
    full = case.expected['minimax_nodes']
    margin = settings.check_param('pruning', 'margin', 0.35)
    traced = nodes.traced
    measured = {'nodes': traced, 'minimax_nodes_inline': inline, 'minimax_nodes': full,
                'ratio': round(traced / full, 4) if full else None,
                'counts': list(nodes.reps) or [traced], 'cpu': answer.reply.cpu,
                'floor': case.expected.get('proof_nodes', 1), 'group': case.group,
                'hidden': case.hidden}
    if not nodes.intact:
        return answer.note.tampered(check, f'the search could not be counted: {nodes.problem}',
                                    measured, returned=answer.returned)
    most = repeats(case)
    if not min(2, most) <= len(nodes.reps) <= most:
        return answer.note.tampered(check, f"the search was run {len(nodes.reps)} times, "
                                    f'where the grader asks for {min(2, most)} to {most}',
                                    measured, returned=answer.returned)
    summary = (f'{traced} search calls; plain minimax makes {full} (entering terminal '
               f'positions) or {inline} (scoring them inline): ratio {traced / full:.3f}')
    if not answer.value_ok or answer.changed:
        why = 'the value is wrong' if not answer.value_ok else 'the board was left changed'
        return answer.outcome(check, False, f'{summary}, but {why}', measured=measured,
                              kind='wrong value')
    if traced <= margin * full:
        return answer.note.outcome(check, True, summary, measured=measured)
    return answer.outcome(check, False, summary + f' (above {margin:g}: no pruning)',
                          'Alpha-beta returns as soon as alpha >= beta; '
                          'pass alpha and beta down to every recursive call.', measured=measured)


EXERCISE = TicTacToe()
