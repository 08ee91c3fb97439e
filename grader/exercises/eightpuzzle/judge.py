"""Eight-puzzle judge: runs in the parent and decides every check.

The answer of ``Astar(state)`` is read in one of three ways, in this order,
and the way used is reported as the fact ``result_convention``:

- ``list``: Astar returned the path, a list of states;
- ``reconstruct_path``: Astar called ``ReconstructPath(camefrom, current)``
  (whose handout version prints the path and returns None); the path is
  rebuilt from the ``camefrom`` mapping it was given, from the goal back;
- ``printed``: the states printed during the call, as a last resort.

A path is a *chain* when each state is one slide from the previous one and
its two ends are the start and the goal, in either order.

Checks (points come from grading.yaml):

- ``validity`` (cases tagged ``required``): the path runs from the start to
  the goal by single slides.
- ``optimality`` (``required``): a chain with the optimal number of moves.
  A goal-first path loses only ``validity``.
- ``heuristic`` (``heuristic``): on a chain, the expansions (calls of
  ``FindNextStates``) are at most ``margin`` times the fewest a search
  without a heuristic makes (``bfs_expansions``: breadth-first testing
  states when they are generated; uniform-cost makes more).
- ``timeouts`` (``required``): a chain within the calibrated limit.
- ``hard`` (``hard``): a valid optimal path within the ``hard`` limit.  Only
  a search with a heap and sets answers these in time; the handout's list
  style earns full marks without them, so the check has its own points
  (none by default).  Only the cases named in the check's ``cases``
  parameter (comma-separated) are graded; without it, all.
- ``unsolvable`` (``unsolvable``, information by default): Astar returns a
  clear failure value (None, False or an empty list) for a start that cannot
  reach the goal, and a path for a start one move from the goal (so that
  None is an answer, not a placeholder).  ``cases`` as for ``hard``: each
  case may take a list-style solution the whole ``unsolvable`` limit.
"""
from collections import Counter

from grader.exercises import base
from grader.exercises.eightpuzzle import puzzle

STATE = {'type': ['array', 'null'], 'items': {'type': 'integer', 'minimum': 0, 'maximum': 8},
         'minItems': 9, 'maxItems': 9}
COUNT = {'type': 'integer', 'minimum': 0}
OBSERVATION = {
    'type': 'object',
    'required': ['returned', 'reconstructed', 'printed', 'expansions'],
    'properties': {
        'returned': {'type': 'object', 'required': ['kind', 'type', 'length', 'states'],
                     'properties': {
                         'kind': {'enum': ['none', 'false', 'path', 'other']},
                         'type': {'type': 'string'},
                         'length': COUNT,
                         'states': {'type': 'array', 'items': STATE, 'maxItems': 400}}},
        'reconstructed': {'type': ['object', 'null'], 'required': ['states', 'calls'],
                          'properties': {
                              'states': {'type': ['array', 'null'], 'items': STATE,
                                         'maxItems': 400},
                              'calls': COUNT}},
        'printed': {'type': 'string', 'maxLength': 20000},
        'expansions': {'type': 'object',
                       'required': ['method', 'instance', 'intact', 'tamper'],
                       'properties': {
                           'method': {'type': ['integer', 'null'], 'minimum': 0},
                           'instance': COUNT, 'intact': {'type': 'boolean'},
                           'tamper': {'type': 'array', 'items': {'type': 'string'}}}},
    },
}

CONTROL = (1, 2, 3, 4, 5, 6, 7, 0, 8)
"""A start one move from the goal, asked beside every unsolvable case."""

UNSOLVABLE_TIMEOUT = (
    'no answer within the limit. This does not show a bug: to answer that there is '
    'no solution, the search must exhaust all 181,440 states reachable from the start, '
    'which a list-based A* like the handout\'s needs hours for, so within any time limit '
    'a slow correct search looks the same as one that never stops. Testing the parity of '
    'the start first (an odd number of inversions cannot reach the goal) answers at once.')


class Answer:
    """The path read from one observation, and what is wrong with it."""

    def __init__(self, observation, start):
        self.start, self.goal = tuple(start), puzzle.GOAL
        self.convention, self.states, self.length = read_path(observation, start)
        self.problem, self.cause, self.step = self._inspect()
        self.chain = self.problem is None or self.problem == 'reversed'
        self.valid = self.problem is None
        self.moves = len(self.states) - 1 if self.states else None

    def _inspect(self):
        states = self.states
        if states is None:
            return 'none', '', None
        if self.length > len(states):
            return 'long', '', None
        bad = next((i for i, s in enumerate(states) if s is None), None)
        if bad is not None:
            return 'items', '', bad
        step = next((i for i in range(len(states) - 1)
                     if not puzzle.is_single_slide(states[i], states[i + 1])), None)
        if step is not None:
            return 'step', '', step
        ends = (states[0], states[-1])
        if ends == (self.start, self.goal):
            return None, '', None
        if ends == (self.goal, self.start):
            return 'reversed', '', None
        if states[0] != self.start:
            return 'first', '', None
        return 'last', '', None

    def returned_text(self):
        if self.states is None:
            return ''
        how = {'list': 'returned', 'reconstruct_path': 'passed to ReconstructPath (camefrom)',
               'printed': 'printed'}[self.convention]
        return f'{how}: a path of {moves(self.length - 1)} ({self.length} states)'


def moves(n):
    """``'1 move'``, ``'5 moves'``."""
    return f'{n} move' if n == 1 else f'{n} moves'


def read_path(observation, start):
    """``(convention, states, length)``; states are tuples (None for a non-state item)."""
    returned = observation['returned']
    if returned['kind'] == 'path' and returned['length'] > 0:
        states = [tuple(s) if s is not None else None for s in returned['states']]
        return 'list', states, returned['length']
    rebuilt = observation.get('reconstructed') or {}
    if rebuilt.get('states'):
        states = [tuple(s) for s in rebuilt['states']]
        return 'reconstruct_path', states, len(states)
    printed = puzzle.printed_path(observation.get('printed', ''), start)
    if printed:
        return 'printed', printed, len(printed)
    return 'none', None, 0


def expansions_of(observation):
    """Calls of FindNextStates: the class wrapper's count, or the instance's if there is none."""
    counts = observation['expansions']
    return counts['method'] if counts['method'] is not None else counts['instance']


def describe_returned(observation):
    """What came back when no path was found, in words."""
    returned = observation['returned']
    kind = returned['kind']
    if kind == 'none':
        return 'None'
    if kind == 'false':
        return 'False'
    if kind == 'path':
        return f"an empty {returned['type']}"
    return f"a {returned['type']}"


def graded(settings, check, case):
    """Whether ``case`` is among the check's ``cases`` parameter (comma-separated; absent: all)."""
    names = settings.check_param(check, 'cases', None)
    return names is None or case.name in [n.strip() for n in str(names).split(',')]


class EightPuzzle(base.Exercise):
    name = 'eightpuzzle'
    title = 'Eight puzzle: A* search'
    files = ('eightpuzzle.py',)
    probe = 'grader.exercises.eightpuzzle.probe'
    observation_schema = OBSERVATION
    checks = (
        base.Check('validity', 'the path runs from the start to the goal by single slides', 1.0),
        base.Check('optimality', 'the path is a shortest one', 0.75),
        base.Check('heuristic', 'the search expands fewer states than one without a heuristic', 0.5),
        base.Check('timeouts', 'every required start answered within its time limit', 0.25),
        base.Check('hard', 'long solutions (22-31 moves) within the hard limit', 0.0),
        base.Check('unsolvable', 'a clear failure value for a start that cannot reach the goal', 0.0),
    )

    def requests(self, case, settings):
        state = list(case.input['state'])
        if 'unsolvable' in case.tags:
            if not graded(settings, 'unsolvable', case):
                return []
            return [base.Request({'state': list(CONTROL)}),
                    base.Request({'state': state}, 'unsolvable')]
        if 'hard' in case.tags:
            return [base.Request({'state': state}, 'hard')] if graded(settings, 'hard', case) else []
        return [base.Request({'state': state})]

    def judge(self, case, replies, settings):
        if not replies:
            return []
        if 'unsolvable' in case.tags:
            return [self._judge_unsolvable(case, replies, settings)]
        reply, = replies
        start = tuple(case.input['state'])
        expected = case.expected
        picture = 'start:\n' + puzzle.render(start)
        if 'hard' in case.tags:
            checks = ['hard']
        else:
            checks = ['validity', 'optimality', 'timeouts']
            if 'heuristic' in case.tags:
                checks.append('heuristic')

        def outcome(check, passed, message, answer=None, cause='', drawing='', measured=None):
            lines = [f'Astar({list(start)})  ({case.source})', picture]
            if answer is not None and answer.returned_text():
                lines.append(answer.returned_text())
            if drawing:
                lines.append(drawing)
            if not passed and not case.hidden and check != 'heuristic':
                lines.append(f"expected: a path of {moves(expected['optimal_length'])}")
            if cause:
                lines.append(cause)
            return base.Outcome(check, case.name, passed, message,
                                '\n'.join(lines) if not passed else '', measured or {})

        if not reply.ok:
            reason = base.failure_message(reply)
            if reply.status == 'timeout' and 'hard' in case.tags:
                cause = ('A hard case: only a search that keeps the open list in a heap (heapq) '
                         'and the closed list in a set answers it in time.')
            elif reply.status == 'timeout':
                cause = ('It may be an endless loop (a closed state put back on the open list?) '
                         'or a search that never takes the goal off the open list.')
            else:
                cause = ''
            return [outcome(c, False, reason, cause=cause, measured={'status': reply.status})
                    for c in checks]

        obs = reply.observation
        answer = Answer(obs, start)
        measured = {'convention': answer.convention, 'moves': answer.moves,
                    'expansions': expansions_of(obs), 'seconds': round(reply.wall, 4)}
        problem = None if answer.valid else self._problem(case, obs, answer)
        results = []
        for check in checks:
            if check == 'validity':
                if answer.valid:
                    results.append(outcome(check, True, f'a valid path of {moves(answer.moves)}',
                                           measured=measured))
                else:
                    results.append(outcome(check, False, problem[0], answer, problem[1],
                                           problem[2], measured))
            elif check in ('optimality', 'hard'):
                results.append(self._judge_length(check, case, answer, problem, outcome,
                                                  measured, reply))
            elif check == 'timeouts':
                seconds = f'{reply.wall:.2f} s of {reply.limit:.2f} s'
                results.append(outcome(check, answer.chain, seconds if answer.chain
                                       else f'{seconds}, but no path from the start to the goal',
                                       answer, measured=measured))
            elif check == 'heuristic':
                results.append(self._judge_heuristic(case, obs, answer, settings, outcome,
                                                     measured))
        return results

    # -- helpers ---------------------------------------------------------
    @staticmethod
    def _problem(case, obs, answer):
        """``(message, cause, drawing)`` for a path that is not valid."""
        states = answer.states
        if answer.problem == 'none':
            returned = describe_returned(obs)
            if obs['returned']['kind'] == 'other':
                return (f'returned {returned}, not a list of states',
                        'Return the path as a list of states, the start first and the goal last.',
                        '')
            rebuilt = obs.get('reconstructed')
            if rebuilt and rebuilt.get('calls'):
                return ((f'returned {returned}; ReconstructPath was called, but its camefrom '
                         'holds no path to the goal'),
                        'camefrom must map ListToString(state) to the state it was reached from.',
                        '')
            return (f'returned {returned}, did not call ReconstructPath and printed no path',
                    ('Is the A* loop still the template placeholder? When the goal is taken '
                     'from the open list, return self.ReconstructPath(camefrom, current).'), '')
        if answer.problem == 'long':
            return (f'a path of {answer.length} states, too long to check',
                    'A path this long is far from a shortest one.', '')
        if answer.problem == 'items':
            return (f'item {answer.step} of the path is not a state (nine tiles 0-8)',
                    'The path must be a list of states such as [1, 2, 3, 4, 5, 6, 7, 8, 0].', '')
        if answer.problem == 'step':
            k = answer.step
            drawing = puzzle.render_side_by_side(
                [states[k], states[k + 1]], [f'state {k}', f'state {k + 1}'])
            return (f'step {k + 1} of the path (state {k} to {k + 1}) is not a single slide',
                    ('Each state must follow from the previous one by sliding one tile into '
                     'the blank; rebuild the path by following camefrom one state at a time.'),
                    drawing)
        if answer.problem == 'reversed':
            return ('the path runs from the goal to the start',
                    ('The path runs from the goal to the start: reverse it (ReconstructPath '
                     'collects the states backwards from the goal).'), '')
        if answer.problem == 'first':
            drawing = puzzle.render_side_by_side([states[0]], ['first state of the path'])
            return ('the path does not begin with the start state',
                    'The path must begin with the state Astar was given.', drawing)
        drawing = puzzle.render_side_by_side([states[-1]], ['last state of the path'])
        return ('the path does not end at the goal',
                'The path must end with the goal [1, 2, 3, 4, 5, 6, 7, 8, 0].', drawing)

    @staticmethod
    def _judge_length(check, case, answer, problem, outcome, measured, reply):
        optimal = case.expected['optimal_length']
        valid_needed = check == 'hard'
        usable = answer.valid if valid_needed else answer.chain
        if not usable:
            return outcome(check, False, problem[0], answer, problem[1], problem[2], measured)
        suffix = f' ({reply.wall:.2f} s of {reply.limit:.2f} s)' if check == 'hard' else ''
        if answer.moves == optimal:
            return outcome(check, True, f'{moves(answer.moves)}, a shortest path' + suffix,
                           measured=measured)
        if answer.moves < optimal:  # impossible for a chain; kept for a broken oracle
            return outcome(check, False, f'{moves(answer.moves)}: shorter than possible', answer,
                           measured=measured)
        few = measured['expansions'] < case.expected['ucs_expansions']
        cause = ('Longer than the optimum after few expansions: is the open list ordered by h '
                 'alone (greedy, f = h) or by an h that overestimates (e.g. a multiplied '
                 'heuristic)? A* needs f = g + h with an h that never exceeds the moves left.'
                 if few else
                 'Longer than the optimum: does the search stop when the goal is generated '
                 'instead of when it is taken off the open list, or skip a cheaper path to a '
                 'state already seen?')
        message = (f'{moves(answer.moves)}, the optimum is {optimal}' if not case.hidden
                   else f'{moves(answer.moves)} is not a shortest path')
        return outcome(check, False, message + suffix, answer, cause, measured=measured)

    @staticmethod
    def _judge_heuristic(case, obs, answer, settings, outcome, measured):
        counts = obs['expansions']
        margin = settings.check_param('heuristic', 'margin', 0.5)
        expansions = expansions_of(obs)
        blind = case.expected['bfs_expansions']
        uniform = case.expected['ucs_expansions']
        ratio = round(expansions / blind, 4) if blind else None
        measured = dict(measured, expansions=expansions, instance=counts['instance'],
                        bfs_expansions=blind, ratio=ratio)
        tampered = []
        if not counts['intact']:
            tampered.append('a wrapped method was re-bound during the search')
        if counts['tamper']:
            tampered.append('called ' + ', '.join(f'sys.{n}' for n in counts['tamper']))
        if counts['method'] is not None and counts['instance'] > counts['method']:
            tampered.append('the two counters disagree')
        if tampered:
            measured['tampered'] = True
            return outcome('heuristic', False, 'measurement tampered: ' + '; '.join(tampered),
                           answer, measured=measured)
        if not answer.chain:
            return outcome('heuristic', False, f'{expansions} expansions, but no path from the '
                           'start to the goal', answer, measured=measured)
        if expansions < case.expected['optimal_length']:
            return outcome('heuristic', False, f'FindNextStates was called {expansions} times for '
                           f'a path of {moves(answer.moves)}: the expansions cannot be counted',
                           answer, 'Generate the neighbours of a state with '
                           'self.FindNextStates(state): each call is one expansion.',
                           measured=measured)
        if case.hidden:
            summary = f'{expansions} expansions'
        else:
            summary = (f'{expansions} expansions; a search without a heuristic makes at least '
                       f'{blind} (breadth-first) or {uniform} (uniform-cost): ratio {ratio:.3f}')
        if ratio is not None and ratio <= margin:
            return outcome('heuristic', True, summary, measured=measured)
        return outcome('heuristic', False, summary + f' (above {margin:g}: as many as a blind '
                       'search)', answer, 'The search does not seem to use the heuristic: is '
                       'fScore = gScore + heuristic, and is the next state the one with the '
                       'lowest fScore?', measured=measured)

    @staticmethod
    def _judge_unsolvable(case, replies, settings):
        control, reply = replies
        start = tuple(case.input['state'])
        lines = [f'Astar({list(start)})  ({case.source})', 'start:\n' + puzzle.render(start),
                 'The tiles show an odd number of inversions, so the goal cannot be reached.']

        def outcome(passed, message, what, cause=''):
            feedback = '\n'.join(lines + ([cause] if cause else [])) if not passed else ''
            return base.Outcome('unsolvable', case.name, passed, message, feedback,
                                {'outcome': what, 'seconds': round(reply.wall, 4)})

        if reply.status == 'timeout':
            blocked = 'wall time' in (reply.error or '')
            cause = ('It used little CPU time while it waited: a queue.PriorityQueue blocks in '
                     'get() once it is empty (`while openlist` is always true for a queue '
                     'object; test `not openlist.empty()`).' if blocked else '')
            return outcome(False, f'{base.failure_message(reply)}: ' + UNSOLVABLE_TIMEOUT,
                           'timed out', cause)
        if not reply.ok:
            return outcome(False, base.failure_message(reply), reply.status)
        obs = reply.observation
        answer = Answer(obs, start)
        returned = describe_returned(obs)
        if answer.states is not None:
            return outcome(False, f'{answer.returned_text()} for a start that cannot reach '
                           'the goal', 'returned a path', 'Return None when the open list runs '
                           'empty without reaching the goal.')
        if obs['returned']['kind'] == 'other':
            return outcome(False, f'returned {returned}; expected None, False or an empty list',
                           f'returned {returned}', 'Return None (or False, or an empty list) '
                           'when the goal cannot be reached.')
        if not (control.ok and Answer(control.observation, CONTROL).chain):
            return outcome(False, f'returned {returned}, but also no path for a start one move '
                           'from the goal, so it says nothing about this start',
                           f'returned {returned}')
        return outcome(True, f'returned {returned} ({reply.wall:.2f} s)', f'returned {returned}')

    def facts(self, outcomes, settings):
        conventions = Counter(o.measured['convention'] for o in outcomes
                              if o.check == 'validity' and 'convention' in o.measured)
        heuristic = [o for o in outcomes if o.check == 'heuristic' and 'ratio' in o.measured]
        unsolvable = [o for o in outcomes if o.check == 'unsolvable']
        facts = {
            'result_convention': conventions.most_common(1)[0][0] if conventions else 'none',
            'conventions': dict(conventions),
            'expansions': {o.case: o.measured['expansions'] for o in heuristic},
            'tampered': any(o.measured.get('tampered') for o in heuristic),
        }
        ratios = sorted(o.measured['ratio'] for o in heuristic if o.measured['ratio'] is not None)
        if ratios:
            facts['expansion_ratio_max'] = ratios[-1]
        if unsolvable:
            facts['unsolvable_outcome'] = unsolvable[0].measured['outcome']
        return facts


EXERCISE = EightPuzzle()
