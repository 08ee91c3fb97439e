"""Connect four judge: runs in the parent and decides every check.

The search is graded with the sheet's evaluation put in place of the
student's (:func:`rules.canonical_evaluation`), so a kept diagonal bug or
tuned weights change only the ``evaluation`` check.  Each case sends three
requests: ``alphabetapruning`` under the alpha-beta time limit; ``minimax``
under its own limit, run only when ``alphabetapruning`` is the empty
placeholder.  The reply of the entry point graded is judged; which one it
was is a fact.  The student's own ``evaluation`` of every position is asked
for in one request per kind of case (public; hidden or drawn), each
position in turn (:func:`evaluation_cases`): a call per position would
cost a process each for a check worth no points.  When that request fails
as a whole (a time-out, an exit), every position is asked for again alone.

Checks (points come from grading.yaml):

- ``values``: the returned value equals the depth-limited minimax value.
- ``moves``: the returned column is legal and one of the optimal columns.
- ``timeouts``: the call finished within its calibrated limit, with the
  right answer.
- ``balance``: the board and ``self.moves`` are the same after the call as
  before, on a case whose answer is right.
- ``pruning``: on cases tagged ``pruning`` (depth 4-6, at least 1000
  minimax leaves), the leaf evaluations (calls of the injected evaluation)
  are at most ``margin`` times plain minimax's, on a case whose answer is
  right.  MakeMove calls (or whole-board copies) against minimax's are
  reported beside it, and decide when the search never calls
  ``self.evaluation``.  Measured: correct alpha-beta with the handout's
  move order 0.02-0.17 of minimax's leaves, with columns tried left to
  right up to 0.42; a search that does not prune 1.0.  Margin 0.5.
- ``evaluation``: the student's own evaluation of the case position equals
  the sheet's (information only by default).
- ``plays_well``: off unless ``games`` > 0; the student's
  ``searchingfunction`` with their own evaluation plays seeded games
  against a one-ply greedy 'x' from the positions of cases tagged
  ``games``, and may lose at most ``max_losses`` of them.
"""
import math

from grader.exercises import base
from grader.exercises.connect4 import rules
from grader.judging import answers, evidence, feedback, review, shapes, tallies
from grader.judging.feedback import signed
from grader.sandbox import protocol
from grader.sandbox.session import Reply

PLAIN = shapes.PLAIN_ITEM
MAX_EVALUATIONS = 10000
"""Positions one ``evaluations`` reply may answer."""
ROWS = {'type': ['array', 'null'], 'minItems': 6, 'maxItems': 6,
        'items': {'type': 'string', 'pattern': '^[.xo?]{7}$'}}
COUNT = shapes.COUNT

OBSERVATION = {
    'type': 'object',
    'required': ['task'],
    'oneOf': [
        {'properties': {
            'task': {'const': 'search'},
            'entry': {'enum': ['alphabetapruning', 'minimax']},
            'missing': {'type': 'boolean'},
            'result': shapes.PLAIN_SEQUENCE,
            'board_after': ROWS, 'moves_before': COUNT, 'moves_after': PLAIN},
         'required': ['entry', 'missing', 'result', 'board_after', 'moves_before',
                      'moves_after'],
         'additionalProperties': False},
        {'properties': {'task': {'const': 'evaluate'}, 'value': PLAIN},
         'required': ['value'], 'additionalProperties': False},
        {'properties': {
            'task': {'const': 'evaluations'},
            'values': {'type': 'array', 'maxItems': MAX_EVALUATIONS, 'items': {'oneOf': [
                {'properties': {'value': PLAIN}, 'required': ['value'],
                 'additionalProperties': False},
                {'properties': {'error': shapes.TEXT,
                                'kind': {'enum': list(protocol.FAILURE_KINDS)}},
                 'required': ['error', 'kind'], 'additionalProperties': False}]}}},
         'required': ['values'], 'additionalProperties': False},
        {'properties': {
            'task': {'const': 'game'},
            'outcome': {'enum': ['win', 'loss', 'draw']},
            'reason': shapes.TEXT,
            'columns': {'type': 'array', 'items': {'type': 'integer', 'minimum': 0,
                                                   'maximum': 6}, 'maxItems': 42},
            'board': ROWS},
         'required': ['outcome', 'reason', 'columns', 'board'], 'additionalProperties': False},
    ],
}

BASELINES = 2
"""Search requests of each kind (one run; :data:`MAX_REPS` runs at depth 1), timed for what a
counted case costs besides the search."""
WORK_LEAVES = 800
"""A counted case is searched again until the reference alpha-beta would have evaluated this
many leaves (at most :data:`MAX_REPS` times), so its CPU time stands well above the rest."""
MAX_REPS = 6
WORK_SECONDS = 0.03
"""... and only while its runs so far took less than this (CPU seconds; at least two runs):
about what the reference's repeats take, so a search far slower than alpha-beta is run
twice, not :data:`MAX_REPS` times.  Its time limit covers those two runs
(:mod:`grader.child.runs`)."""
EVIDENCE_SPREAD = 6.0
"""How far the CPU time per counted leaf may vary between cases: an honest alpha-beta
measured up to 4.7 times under the load of two busy cores (4 failed it once)."""
MIRRORED = 3
"""Public pruning cases whose board is also graded mirrored (left and right swapped)."""
SEARCH_FLOOR_UNITS = 0.003
"""CPU time per search, in calibration units, below which a counted position was not
searched: the reference alpha-beta takes 0.05-2 units on the pruning cases, a look-up
about 0.0001."""


EVALUATIONS = 'evaluations'
"""The tag of a case that asks for the student's own evaluation of many positions."""


def evaluation_cases(cases):
    """One case asking for the evaluation of every position of the public cases, and one for
    the hidden and drawn ones (a public feedback never shows what a hidden position made the
    submission say); none for a kind without positions.

    The input lists ``items``, each case as data (:func:`evaluation_item_case` makes it
    again), in order; the judge gives each its own ``evaluation`` outcome, under that case's
    name.
    """
    found = []
    for hidden, label in ((False, 'evaluations'), (True, 'evaluations-hidden')):
        items = [{'name': c.name, 'board': list(c.input['board']), 'input': dict(c.input),
                  'expected': dict(c.expected), 'source': c.source, 'tags': list(c.tags),
                  'hidden': c.hidden, 'file': c.file, 'generated': c.generated,
                  'group': c.group}
                 for c in cases if 'baseline' not in c.tags and (c.hidden or c.generated) == hidden]
        if items:
            found.append(base.Case(name=label, input={'items': items}, expected={},
                                   tags=(EVALUATIONS,), hidden=hidden, generated=hidden))
    return found


def evaluation_item_case(item):
    """The :class:`~grader.exercises.base.Case` an item of :func:`evaluation_cases` stands for."""
    return base.Case(name=item['name'], input=item['input'], expected=item['expected'],
                     source=item['source'], tags=tuple(item['tags']), hidden=item['hidden'],
                     file=item['file'], generated=item['generated'], group=item['group'])


def mirrored_case(case):
    """``case`` with the board mirrored: the same value, the columns mirrored too."""
    expected = dict(case.expected)
    expected['best_moves'] = sorted(rules.COLS - 1 - col for col in case.expected['best_moves'])
    rows = [row[::-1] for row in case.input['board']]
    return base.Case(name=f'{case.name}-mirrored', input=dict(case.input, board=rows),
                     expected=expected, source=f'{case.source} (mirrored)',
                     tags=tuple(t for t in case.tags if t != 'games'), hidden=case.hidden,
                     file=case.file, generated=case.generated, group=case.name)


SEARCH_CHECKS = ('values', 'moves', 'timeouts', 'balance')
SWAPPED = ('returned (column, value): the pair is swapped; return (value, column)')
WRONG_ANSWER = ('Speed, balance and pruning count only where the value and the column are '
                'right; see the values and moves checks for this position.')
ENTRY_CALLS = {
    'alphabetapruning': "alphabetapruning(board, {depth}, 'o', -1000000000, 1000000000)",
    'minimax': "minimax(board, {depth}, 'o')",
}
PAIR_WORDS = {
    'none': 'returned None instead of the pair (value, column); a return statement is '
            'probably missing on some path',
    'number': 'returned only a number ({detail}); return the pair (value, column)',
    'other': 'returned a {detail} instead of the pair (value, column)',
    'length': 'returned a sequence of {detail} items; expected the pair (value, column)',
    'value': 'returned a {detail} as the value, not a whole number',
}
"""What is wrong with the returned pair, in the words of the handout."""
NO_SEARCH = ('answered without a search: neither counted evaluations nor the CPU time of the '
             'deeper positions show one')


def is_none(observation):
    result = observation['result']
    return result.get('shape') == 'single' and result['item']['kind'] == 'none'


class ConnectFour(base.Exercise):
    name = 'connect4'
    title = 'Connect four: depth-limited alpha-beta'
    files = ('connect4.py',)
    probe = 'grader.exercises.connect4.probe'
    observation_schema = OBSERVATION
    checks = (
        base.Check('values', 'the value of the position at the given depth', 1.0),
        base.Check('moves', 'the column is legal and optimal', 1.0),
        base.Check('timeouts', 'every search answered within its time limit', 0.25),
        base.Check('balance', 'the board and self.moves are restored after the search', 0.25),
        base.Check('pruning', 'the search prunes (leaf evaluations against plain minimax)', 0.0),
        base.Check('evaluation', "the student's own evaluation follows the sheet", 0.0),
        base.Check('plays_well', 'seeded games against a one-ply greedy player', 0.0),
    )

    # -- cases and requests ----------------------------------------------
    def extra_cases(self, cases, settings):
        """Baselines, and a few public pruning positions mirrored."""
        extra = review.baseline_cases(BASELINES, reps=(1, MAX_REPS))
        asymmetric = [c for c in cases if 'pruning' in c.tags and not c.hidden
                      and c.input['depth'] <= 5
                      and [row[::-1] for row in c.input['board']] != list(c.input['board'])]
        for case in asymmetric[:MIRRORED]:
            case.group = case.name
            extra.append(mirrored_case(case))
        return extra + evaluation_cases(cases + extra)

    def requests(self, case, settings):
        if EVALUATIONS in case.tags:
            # All positions in one call (an honest evaluation takes microseconds, so one
            # call's limit covers them); each alone only when that call failed as a whole,
            # and not after stop_after_timeouts of them in a row timed out.
            items = case.input['items']
            stop = settings.stop_after_timeouts

            def needed(replies):
                return not replies[0].ok and not (stop and timeouts_in_a_row(replies[1:]) >= stop)
            alone = [base.Request({'task': 'evaluate', 'board': item['board']}, needed=needed)
                     for item in items]
            return [base.Request({'task': 'evaluations',
                                  'boards': [item['board'] for item in items]}), *alone]
        if 'baseline' in case.tags:     # depth 1 from the empty board: seven leaves
            empty = ['.' * rules.COLS] * rules.ROWS
            return [base.Request({'task': 'search', 'board': empty, 'depth': 1, 'count': True,
                                  'entry': 'alphabetapruning', 'reps': case.input['reps']},
                                 runs=case.input['reps'])]
        search = {'task': 'search', 'board': list(case.input['board']),
                  'depth': case.input['depth'], 'count': True}
        if 'pruning' in case.tags:
            reference = max(1, case.expected.get('alphabeta_leaves', WORK_LEAVES))
            search['reps'] = max(1, min(MAX_REPS, math.ceil(WORK_LEAVES / reference)))
            search.update(at_least=2, work=WORK_SECONDS)
        runs = min(search.get('reps', 1), 2)
        requests = [
            base.Request(dict(search, entry='alphabetapruning'), runs=runs),
            base.Request(dict(search, entry='minimax', fallback=True), 'minimax',
                         needed=self.fallback_needed, runs=runs),
        ]
        if 'games' in case.tags:
            requests += [base.Request(payload, 'game') for payload in self.games(settings)]
        return requests

    @staticmethod
    def games(settings):
        count = int(settings.check_param('plays_well', 'games', 0) or 0)
        depth = int(settings.check_param('plays_well', 'depth', 4))
        seed = int(settings.check_param('plays_well', 'seed', 2018))
        return [{'task': 'game', 'seed': seed + i, 'depth': depth,
                 'first': rules.COMPUTER if i % 2 == 0 else rules.HUMAN}
                for i in range(count)]

    # -- judging ---------------------------------------------------------
    def judge(self, case, replies, settings):
        if 'baseline' in case.tags:
            reply, = replies
            return [review.baseline_outcome(case, reply, runs=case.input['reps'])]
        if EVALUATIONS in case.tags:
            return self.judge_evaluations(case, replies)
        replies = [self.matching(reply, task) for reply, task in
                   zip(replies, ['search', 'search'] + ['game'] * (len(replies) - 2))]
        alphabeta, minimax, *games = replies
        reply, entry = self.graded(alphabeta, minimax)
        board = rules.parse_board(case.input['board'])
        checks = list(SEARCH_CHECKS) + (['pruning'] if 'pruning' in case.tags else [])
        outcomes = judge_search(case, board, reply, entry, checks, settings)
        if games:
            outcomes += self.judge_games(case, games, settings)
        return outcomes

    @staticmethod
    def matching(reply, task):
        """``reply``, or an invalid one when its observation answers another kind of request."""
        if reply.ok and reply.observation.get('task') != task:
            return Reply(status='invalid', kind='invalid', wall=reply.wall, limit=reply.limit,
                         cpu=reply.cpu, error='the reply answered another request')
        return reply

    @classmethod
    def fallback_needed(cls, replies):
        """Whether a case's fallback request (``minimax``) is sent after ``replies``: only
        when the reply of ``alphabetapruning`` shows the placeholder."""
        return cls.placeholder(cls.matching(replies[0], 'search'))

    @staticmethod
    def placeholder(alphabeta):
        """Whether the reply of ``alphabetapruning`` shows the handout's placeholder: the
        method missing, or None returned without searching (no evaluation, no move made).
        Only then is the fallback request (``minimax``) sent: no other reply is ever graded
        through it."""
        if not alphabeta.ok:
            return False
        obs = alphabeta.observation
        if obs['missing']:
            return True
        if not is_none(obs):
            return False
        counted = tallies.counted(alphabeta, unit='leaves')
        return not counted.traced and not sum(counted.nodes[:1])

    @classmethod
    def graded(cls, alphabeta, minimax):
        """The reply to grade and its entry point.

        ``minimax`` is graded when ``alphabetapruning`` is the placeholder
        (:meth:`placeholder`): only then was the fallback request sent.
        """
        if cls.placeholder(alphabeta):
            return minimax, 'minimax'
        return alphabeta, 'alphabetapruning'

    def judge_evaluations(self, case, replies):
        """An ``evaluation`` outcome for each position of an :func:`evaluation_cases` case: from
        the reply to all of them, or, when that failed as a whole, from each one's own."""
        together, *alone = replies
        together = self.matching(together, 'evaluations')
        items = case.input['items']
        answered = together.observation.get('values', []) if together.ok else []
        if together.ok and len(answered) != len(items):
            together = Reply(status='invalid', kind='invalid', error='the reply answered '
                             f'{len(answered)} positions of {len(items)}')
        outcomes = []
        for index, item in enumerate(items):
            if together.ok:
                reply = _item_reply(answered[index], together)
            elif alone[index].kind == 'not run':
                reply = Reply(status='timeout', kind='not run', limit=together.limit,
                              error='not run: the positions before it timed out')
            else:
                reply = self.matching(alone[index], 'evaluate')
            outcomes.append(self.judge_evaluation(evaluation_item_case(item),
                                                  rules.parse_board(item['board']), reply))
        return outcomes

    @staticmethod
    def judge_evaluation(case, board, reply):
        note = case_note(case, board, call='evaluation(board), with moves = the number of pieces')
        expected = case.expected['evaluation']
        if not reply.ok:
            return note.outcome('evaluation', False, base.failure_message(reply))
        item = reply.observation['value']
        if item['kind'] != 'int':
            return note.outcome('evaluation', False,
                                f"returned {answers.item_text(item)}, not a whole number")
        value = item['value']
        if value == expected:
            return note.outcome('evaluation', True, f'{signed(value)}')
        parts = rules.value_parts(board, o_to_move=True)
        if parts['four'] is not None:
            detail = f"{signed(parts['four'])} (four in a row or a full board)"
        else:
            detail = (f"horizontal {signed(parts['horizontal'])}, vertical "
                      f"{signed(parts['vertical'])}, diagonal {signed(parts['diagonal'])}, "
                      f"'o' to move {signed(parts['side_to_move'])}")
        message = (f'{signed(value)}; the sheet gives {signed(expected)}' if not case.hidden
                   else f'{signed(value)} differs from the sheet')
        return note.outcome('evaluation', False, message, signed(value),
                            f'The sheet scores it as {detail}. Check both diagonal directions '
                            "and the +16 for the side to move ('o' here).",
                            expected=False)

    @staticmethod
    def judge_games(case, replies, settings):
        allowed = int(settings.check_param('plays_well', 'max_losses', 0))
        results = []
        for i, reply in enumerate(replies, 1):
            if reply.ok:
                results.append(reply.observation)
            else:
                results.append({'outcome': 'loss', 'reason': base.failure_message(reply),
                                'columns': [], 'board': None})
        losses = sum(r['outcome'] == 'loss' for r in results)
        outcomes = []
        for i, result in enumerate(results, 1):
            lost = result['outcome'] == 'loss' and losses > allowed
            message = f"{result['outcome']}: {result['reason']} ({losses} lost, {allowed} allowed)"
            lines = [f'Game {i} against the one-ply greedy player, your searchingfunction '
                     f'with your evaluation.']
            if result['board']:
                lines.append(rules.render_board(rules.parse_board(result['board'])))
            if result['columns']:
                lines.append('columns played: ' + ' '.join(map(str, result['columns'])))
            if lost:
                lines.append('A depth-limited alpha-beta with the sheet\'s evaluation beats this '
                             'player; check the evaluation\'s signs and the search depth.')
            outcomes.append(base.Outcome('plays_well', f'{case.name} game {i}', not lost,
                                         message, '\n'.join(lines) if lost else '',
                                         {'outcome': result['outcome']}))
        return outcomes

    # -- across cases ------------------------------------------------------
    def review(self, outcomes, settings, context):
        """Confirm the leaf counts with the CPU time, require a search behind the answers,
        and deduct the interface points once when the pair came back swapped."""
        pruning = [o for o in outcomes if o.check == 'pruning' and 'counts' in o.measured]
        baseline = review.baselines(outcomes)
        counted = [o for o in pruning if not o.measured.get('wrong')
                   and o.measured.get('entry') == 'alphabetapruning']
        # Leaves are held to the proof tree; the time per move made (MakeMove or a
        # board copy) is what stays steady from case to case (measured: within 2 times
        # for honest searches, where the time per leaf varies up to 4 times).
        samples = [evidence.Sample(o.case, o.measured['counts'], o.measured['cpu'],
                                   o.measured['floor'], o.measured['group'],
                                   o.measured['nodes'] or None,
                                   hidden=o.measured.get('hidden', False)) for o in counted
                   if o.measured['leaves']]
        found = evidence.confirm(samples, baseline, unit_name='leaf evaluations',
                                 spread=EVIDENCE_SPREAD)
        facts = review.evidence_facts(found, 'leaf')
        if not found.confirmed and samples:
            review.withdraw_uncounted(pruning, 'pruning', found.reason)
        works = review.search_works([evidence.Sample(o.case, o.measured['counts'],
                                                     o.measured['cpu'])
                                     for o in pruning if o.measured['floor'] >= 50], baseline)
        unit = context.get('unit') or 0.0
        searched = (found.confirmed and bool(samples)) or \
            evidence.searched_by_time(works, SEARCH_FLOOR_UNITS * unit, baseline)
        facts['searched'] = searched
        if works and not searched:
            review.withdraw_unsearched(outcomes, SEARCH_CHECKS, NO_SEARCH)
        prunes = [o for o in outcomes if o.check == 'pruning']
        facts['prunes'] = bool(prunes) and all(o.passed for o in prunes)
        if any(o.measured.get('swapped') for o in outcomes if o.check == 'values'):
            points = float(settings.check_param('values', 'swapped_deduction', 0.5))
            facts['deduction'] = {'points': points, 'reason': (
                f'your search returns (column, value) instead of (value, column): graded on '
                f'the pair read the other way round, less {points:g} points for the interface')}
        return outcomes, facts

    # -- facts -----------------------------------------------------------
    def facts(self, outcomes, settings):
        entries = [o.measured['entry'] for o in outcomes
                   if o.check == 'values' and 'entry' in o.measured]
        pruning = [o for o in outcomes if o.check == 'pruning']
        leaf = {o.case: o.measured['leaf_ratio'] for o in pruning if 'leaf_ratio' in o.measured}
        node = {o.case: o.measured['node_ratio'] for o in pruning if 'node_ratio' in o.measured}
        facts = {
            'entry': (max(sorted(set(entries)), key=entries.count) if entries else None),
            'leaf_ratios': leaf,
            'node_ratios': node,
        }
        for name, ratios in (('leaf_ratio_median', leaf), ('node_ratio_median', node)):
            middle = review.median(ratios.values(), 4)
            if middle is not None:
                facts[name] = middle
        games = [o.measured['outcome'] for o in outcomes if o.check == 'plays_well']
        if games:
            facts['games'] = {k: games.count(k) for k in ('win', 'draw', 'loss')}
        return facts


def case_note(case, board, entry=None, call=None):
    """The feedback block of a case: its name, the call, the board, the value and the columns."""
    call = call or ENTRY_CALLS[entry].format(depth=case.input['depth']) + \
        " -- 'o' to move, maximizing"
    best = ', '.join(map(str, case.expected['best_moves']))
    return feedback.Note(case, [f'{case.name} ({case.source})', call, rules.render_board(board)],
                         f"expected: value {signed(case.expected['value'])}; "
                         f'optimal columns: {best}', no_expected=('pruning',))


def judge_search(case, board, reply, entry, checks, settings):
    """The search's checks on one case, from the reply of the entry point graded."""
    note = case_note(case, board, entry)
    if not reply.ok:
        reason = base.failure_message(reply)
        cause = timeout_cause(entry) if reply.status == 'timeout' else \
            f'Your {entry} {reason}.' if reply.status == 'error' else reason
        return note.fail(checks, reason, cause=cause, measured={'entry': entry})
    answer = Answer(case, board, reply, entry, note)
    if answer.problem:
        cause = (f'Your {entry} {answer.problem}.' if answer.problem.startswith('returned')
                 else f'{answer.problem}.')
        return note.fail(checks, answer.problem, returned=answer.returned, cause=cause,
                         measured=answer.measured)
    judges = {'values': judge_value, 'moves': judge_move, 'timeouts': judge_time,
              'balance': judge_balance, 'pruning': judge_pruning}
    return [judges[check](check, answer, settings) for check in checks]


class Answer:
    """What the graded entry point returned on a case, read once for every check."""

    def __init__(self, case, board, reply, entry, note):
        self.case, self.board, self.reply, self.entry, self.note = case, board, reply, entry, note
        self.obs = reply.observation
        self.returned = answers.returned_text(self.obs['result'])
        self.measured = {'entry': entry}
        self.value, self.move, self.problem = self.read()
        if self.problem == SWAPPED:
            # Graded on the answer read the other way round; review() deducts the
            # interface points set in grading.yaml once for the exercise.
            self.value, self.move, self.problem = self.move, self.value, None
            self.measured['swapped'] = True
        expected = case.expected
        self.value_ok = self.value == expected['value']
        self.right = self.value_ok and self.move in expected['best_moves']
        self.changed = balance_problem(board, self.obs) if not self.problem else ''
        self.counted = tallies.counted(reply, unit='leaves')
        """Leaf evaluations and search calls of each run, read from outside the case process."""

    def read(self):
        """``(value, column, problem)``; ``problem`` is a sentence when malformed."""
        pair = answers.read_pair(self.obs['result'])
        if pair.problem == 'none' and self.entry == 'minimax':
            if self.obs['missing']:
                return None, None, ('alphabetapruning is the empty placeholder and the class '
                                    'has no minimax: implement one of them')
            return None, None, ('alphabetapruning and minimax both returned None: '
                                'implement one of them (the other may stay the '
                                'placeholder) and return (value, column)')
        if pair.problem:
            return None, None, pair.sentence(PAIR_WORDS)
        value, move, expected = pair.value, pair.move, self.case.expected
        if (move is not None and value != expected['value'] and move == expected['value']
                and value in rules.legal_moves(self.board)):
            return value, move, SWAPPED
        return value, move, None

    def outcome(self, check, passed, message, cause='', **details):
        """A verdict with what was returned shown (when it failed)."""
        return self.note.outcome(check, passed, message, self.returned, cause, **details)


def judge_value(check, answer, settings):
    """``values``: the depth-limited minimax value."""
    value, expected = answer.value, answer.case.expected
    if answer.value_ok:
        return answer.note.outcome(check, True, f'value {signed(value)}',
                                   measured=answer.measured)
    message = (f"value {signed(value)}, expected {signed(expected['value'])}"
               if not answer.case.hidden else f'value {signed(value)} is not right')
    return answer.outcome(check, False, message,
                          value_cause(value, expected, answer.counted, answer.changed),
                          measured=answer.measured)


def judge_time(check, answer, settings):
    """``timeouts``: within the CPU time limit, with the right answer."""
    reply = answer.reply
    return answer.note.timed(check, reply, answer.right, 'the answer is wrong', answer.entry,
                             returned=answer.returned, cause=WRONG_ANSWER,
                             measured={'seconds': round(reply.cpu, 4),
                                       'limit': round(reply.limit, 4)})


def judge_balance(check, answer, settings):
    """``balance``: the board and self.moves restored, on a right answer."""
    if answer.changed:
        return answer.outcome(check, False, 'left ' + answer.changed,
                              'Undo every MakeMove with UnmakeMove before returning (or search '
                              'on copies of the board).')
    return answer.outcome(check, answer.right, 'board and self.moves restored' if answer.right
                          else 'restored, but the answer is wrong', WRONG_ANSWER)


def balance_problem(board, obs):
    """What the search left changed ('' when the board and moves are restored)."""
    problems = []
    after = obs['board_after']
    if after is None:
        problems.append('the board no longer 6 rows of 7 cells')
    else:
        before = rules.board_rows(board)
        diffs = [f"row {5 - r} column {c}: '{before[r][c]}' -> '{after[r][c]}'"
                 for r in range(rules.ROWS) for c in range(rules.COLS)
                 if before[r][c] != after[r][c]]
        if diffs:
            problems.append('the board changed (' + ', '.join(diffs[:3])
                            + (f' and {len(diffs) - 3} more' if len(diffs) > 3 else '') + ')')
    moves = obs['moves_after']
    if moves.get('kind') != 'int':
        problems.append(f"self.moves a {moves.get('type', moves['kind'])}, not a number")
    elif moves['value'] != obs['moves_before']:
        problems.append(f"self.moves changed from {obs['moves_before']} to {moves['value']}")
    return '; '.join(problems)


def value_cause(value, expected, counted, changed):
    if counted.intact and counted.traced == 0:
        return ('The search never called self.evaluation(board): the grader puts the '
                "sheet's evaluation there, so evaluate every leaf by calling it.")
    if changed:
        return ('The board or self.moves is not restored after a move is tried, so later '
                'moves are searched on a wrong position.')
    if value == -expected['value'] and value:
        return ("The sign is flipped: 'o' (the computer) maximizes, and at the root the "
                "argument opponent is 'o', the mark to move.")
    if abs(value) >= 100000000:
        return ('The starting value +-1000000000 came back: some level returned before '
                'trying a move, or without its best value.')
    return ('Check the depth (children are searched with depth - 1; a position is '
            'evaluated when depth is 0 or the game is over there) and that max and min '
            "alternate between 'o' and 'x'.")


def judge_move(check, answer, settings):
    """``moves``: a legal column, one of the optimal ones."""
    case, board, move = answer.case, answer.board, answer.move
    expected = case.expected
    if move is None or not 0 <= move < rules.COLS:
        rows = [col for col in expected['best_moves'] if rules.legal_row(board, col) == move]
        cause = ('This looks like the row where the piece lands (LegalRow), not the column.'
                 if rows and move is not None else
                 'Return the column of the best move, 0-6, beside its value.')
        return answer.outcome(check, False, f'column {move!r} is not a column 0-6', cause)
    if move not in rules.legal_moves(board):
        return answer.outcome(check, False, f'column {move} is full',
                              'The move must be one of LegalMoves(board).')
    if move in expected['best_moves']:
        return answer.note.outcome(check, True, f'column {move}')
    if case.hidden:
        return answer.outcome(check, False, f'column {move} is not optimal')
    return answer.outcome(check, False, f'column {move} is not optimal', move_cause(answer))


def move_cause(answer):
    """Why a legal column is not optimal."""
    board, move = answer.board, answer.move
    rows = [col for col in answer.case.expected['best_moves']
            if rules.legal_row(board, col) == move and col != move]
    if rows:
        return 'This looks like the row where the piece lands (LegalRow), not the column.'
    if answer.value_ok:
        return ('The value is right but the column is not: remember the column exactly '
                'when a child improves the best value, at the root.')
    return 'The column follows from the wrong values; fix the values first.'


def judge_pruning(check, answer, settings):
    """``pruning``: leaf evaluations (or moves made) well below plain minimax's."""
    case, expected, counted = answer.case, answer.case.expected, answer.counted
    margin = float(settings.check_param('pruning', 'margin', 0.5))
    # the root is a call of the search, not a move made
    leaves, nodes = counted.traced, max(0, (counted.nodes or [0])[0] - 1)
    leaf_ratio = leaves / expected['minimax_leaves']
    node_ratio = nodes / expected['minimax_nodes'] if expected['minimax_nodes'] else None
    measured = {'entry': answer.entry, 'leaves': leaves, 'nodes': nodes,
                'minimax_leaves': expected['minimax_leaves'],
                'minimax_nodes': expected['minimax_nodes'],
                'leaf_ratio': round(leaf_ratio, 4),
                'node_ratio': round(node_ratio, 4) if node_ratio is not None else None,
                'counts': list(counted.reps) or [leaves],
                'floor': expected.get('proof_leaves', 1), 'group': case.group,
                'cpu': answer.reply.cpu, 'hidden': case.hidden}
    if not counted.intact:
        return answer.note.tampered(check, f'the search could not be counted: {counted.problem}',
                                    measured, returned=answer.returned)
    summary = (f"{leaves} leaf evaluations and {nodes} moves made; plain minimax makes "
               f"{expected['minimax_leaves']} and {expected['minimax_nodes']}: ratio "
               f"{leaf_ratio:.3f}")
    if answer.entry == 'minimax':
        return answer.outcome(check, False, 'graded minimax (alphabetapruning is the '
                              'placeholder): ' + summary, 'Plain minimax visits every leaf; '
                              'alphabetapruning is what prunes.', measured=measured)
    if not answer.right:
        measured['wrong'] = True
        return answer.outcome(check, False, summary + ', but the answer is wrong', WRONG_ANSWER,
                              measured=measured)
    if leaves:
        prunes = leaf_ratio <= margin
    else:
        summary += (' (self.evaluation was never called: judged by the moves made)'
                    if nodes else ' (nothing could be counted)')
        prunes = bool(nodes) and node_ratio <= margin
    if prunes:
        return answer.note.outcome(check, True, summary, measured=measured)
    return answer.outcome(check, False, summary + f' (above {margin:g}: no pruning)',
                          'Alpha-beta stops trying moves as soon as alpha >= beta; '
                          'pass alpha and beta down to every recursive call.', measured=measured)


def timeouts_in_a_row(replies):
    """How many of ``replies``, counted back from the last, timed out (or were not run
    because those before them had)."""
    count = 0
    for reply in reversed(replies):
        if reply.status != 'timeout' and reply.kind != 'not run':
            break
        count += 1
    return count


def _item_reply(item, together):
    """The :class:`Reply` one position of an ``evaluations`` request would have had alone."""
    common = {'wall': together.wall, 'limit': together.limit}
    if 'error' in item:
        return Reply(status='error', kind=item['kind'], error=item['error'], **common)
    return Reply(status='ok', kind='ok', observation={'task': 'evaluate', 'value': item['value']},
                 **common)


def timeout_cause(entry):
    if entry == 'alphabetapruning':
        return ('Alpha-beta answers well within this limit; a search that does not prune '
                '(alpha and beta not passed down, no cut-off) or searches deeper than '
                'asked takes many times longer.')
    return ('Plain minimax fits in this limit; look for an endless loop or a search deeper '
            'than asked.')


EXERCISE = ConnectFour()
