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
- ``heuristic`` (``heuristic``): on a chain of the optimal length, the
  expansions (calls of ``FindNextStates``) show an A* guided by a heuristic
  of the sheet: at most ``margin`` times the fewest a search without a
  heuristic makes (``bfs_expansions``), at most ``ceiling`` times what the
  reference A* with the Hamming distance expands on the same start (the
  most any A* with a heuristic at least as good expands, whatever its
  tie-breaking), no state expanded that such an A* never expands (g + the
  Hamming distance above the optimum: the states are reported, not only
  their number), and no state expanded again (beyond a share ``repeats``:
  a heap without a closed-list test on removal expands a few stale entries
  again).  One more case checks the named heuristics ``Manhattan`` and
  ``Hamming`` by value on every start (the true or the handout's Manhattan
  distance, the Hamming distance).
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

Across cases (:meth:`EightPuzzle.review`), every count is a claim of the
submission's process and is confirmed by the CPU time measured outside it
(:mod:`grader.judging.evidence`):

- the heuristic check's counts: each at least the expansions any A* with an
  admissible heuristic up to the Manhattan distance plus linear conflicts
  must make on that start (``astar_floor``) and at least the path's length,
  the same when the start is searched again in the same process, and CPU
  time that follows them (a list-based open list may cost more per
  expansion as the count grows, never more on the smaller search).
  Unconfirmed counts earn no heuristic points ("could not be counted"): a
  search that expands states without calling ``FindNextStates``, or calls
  it for show, or answers from a table, is not efficient but uncounted.
  A named heuristic that the search uses and that is wrong by value costs
  every heuristic case.
- answers count only where the submission's own search ran: counts
  confirmed with the path's length as the floor and, on some start of ten
  moves or more, more expansions than the path has states (a search that
  never looks at a state off its path reads its moves from a table); or,
  for a search that cannot be counted, CPU time per start (the median of
  the starts of ten moves or more on which any search spends time: :func:`timed_starts`)
  that no look-up spends, above what the runs that search nothing vary by.  Otherwise every
  answer check fails with "answered without a search".  The import is run again before
  every case, so its CPU time is part of every case's; a heavy import is reported.
- and a counted search must show, on every start it answers with a shortest
  path, at least the different states any A* with a heuristic of the sheet
  expands there (:meth:`EightPuzzle._unproven`): one start short of it
  beside a search counted beyond its path (or counted as such an A* on every
  public start) and no answer counts, on any start, unless some answer is
  longer than a shortest path (a heuristic that overestimates: greedy,
  f = g + 3h).  What a table of answers must cost on each route is in
  docs/ARCHITECTURE.md.
"""
import functools
import math
from collections import Counter

from grader.exercises import base
from grader.exercises.eightpuzzle import puzzle
from grader.exercises.eightpuzzle.counts import expansions as counted_expansions
from grader.judging import evidence, feedback, review, shapes

STATE = {'type': ['array', 'null'], 'items': {'type': 'integer', 'minimum': 0, 'maximum': 8},
         'minItems': 9, 'maxItems': 9}
COUNT = shapes.COUNT
NAMED = ('Manhattan', 'Hamming')
"""The heuristics the handout names, checked by value (``options.heuristics`` in grading.yaml)."""
SEARCH = {
    'type': 'object',
    'required': ['returned', 'reconstructed', 'printed'],
    'additionalProperties': False,
    'properties': {
        'returned': {'type': 'object', 'required': ['kind', 'type', 'length', 'states'],
                     'additionalProperties': False,
                     'properties': {
                         'kind': {'enum': ['none', 'false', 'path', 'other']},
                         'type': shapes.NAME,
                         'length': COUNT,
                         'states': {'type': 'array', 'items': STATE, 'maxItems': 400}}},
        'reconstructed': {'type': ['object', 'null'], 'required': ['states', 'calls'],
                          'additionalProperties': False,
                          'properties': {
                              'states': {'type': ['array', 'null'], 'items': STATE,
                                         'maxItems': 400},
                              'calls': COUNT}},
        'printed': shapes.TEXT,
    },
}
VALUE = {'type': ['number', 'null'], 'minimum': -10 ** 6, 'maximum': 10 ** 6}
VALUES = {
    'type': 'object',
    'required': ['values'],
    'additionalProperties': False,
    'properties': {
        'values': {'type': 'object', 'maxProperties': 8,
                   'additionalProperties': {'type': ['array', 'null'], 'items': VALUE,
                                            'maxItems': 200}}},
}
OBSERVATION = {'oneOf': [SEARCH, VALUES]}
"""A search's observation, or the named heuristics' values (``op: heuristics``)."""

BASELINES = 5
"""Requests that run no search, timed for what a case costs besides the search (the
import run again, the probe, the exit); and one before each start of :func:`paired`."""
NO_SEARCH_REQUEST = {'state': list(puzzle.GOAL), 'reps': 0}
"""The payload of a baseline request: the probe makes no call (see the probe)."""
REP_EXPANSIONS = 200
"""A heuristic case is searched again until the reference A* would have expanded this many
states (at most :data:`MAX_REPS` times): small starts take too little time to time alone."""
MAX_REPS = 3
HEAVY_LENGTH = 10
"""Starts this many moves from the goal or more: no search answers them by expanding its path
only, and their search costs measurable time.  Each is searched right after a baseline
request of its own (:func:`paired`), so that what a case costs besides the search is
measured all through the lane, not only at its end: on a busy machine the cases of a few
milliseconds run slower in bursts (another process's memory-heavy phase), and one burst
over the baselines at the end once made an honest A* that cannot be counted (1.3 ms a
start) look like no search at all (2 gradings in 14 beside two other gradings)."""
TIMED_EXPANSIONS = 250
"""The starts whose CPU time shows a search that cannot be counted: those of ten moves or more
on which the reference A* (the Manhattan distance) expands this many states or more, where
there are any (:func:`timed_starts`).  A start of 10-15 moves costs an honest A* 0.1-0.7 ms
(12-73 expansions), below :data:`SEARCH_FLOOR_UNITS` on a slow machine, so the median of
every start of ten moves or more hung on how many short ones a course holds: the public
fixtures' five (10, 10, 15, 20 and 20 moves) put an honest A* with its own move generator at
0.72 ms against a floor of 1.08 ms (unit 0.072 s), and `grader check` scored it 0; their
20-move starts (430 and 596 expansions) cost it 3.9 and 5.5 ms."""
SEARCH_FLOOR_UNITS = 0.015
"""CPU time a start of ten moves or more takes (the median of :func:`timed_starts`), in
calibration units, below which a search that cannot be counted did not search.  Measured in
the sandbox (unit 0.043-0.045 s): an A* with the Manhattan distance and its own move
generator 1.3-1.6 ms (0.03 units), breadth-first search 21-23 ms; the public fixtures' paths
read from a dict -0.04-0.23 ms (the noise of a case's CPU time), more under the load of two
busy cores (0.01 units once let such a dict through).  The baseline runs' spread is the floor when
it is larger: a module that spends 0.4 s at import varies by tens of ms from case to case."""
FIXED_SHARE = 0.1
"""The same floor as a share of what a case costs besides the search (the baseline's CPU
time), when that is larger: a module that works at import (0.17 s for a table of every
state) does that work again in every case, and the load moves it by a share of itself, more
between the baselines and the starts than the baselines' own spread showed once (3.13,
beside the other test worker).  An honest search that cannot be counted and imports
quickly is not touched: 0.1 of a 3-5 ms case is below the floor in units."""
IMPORT_FREE_UNITS = 0.5
"""What a case may cost besides its search, in calibration units, before the rest is taken
for work at import (a table of every state), which a burst of load moves by a large share
of itself: the floor is at least all of that rest.  A module that does nothing at import
costs 1.5-12 ms a case (under 0.2 units); `table_at_import.py` 0.29-0.35 s (4-5 units,
pyenv's 3.13 here), and beside a process churning memory one start of it in twelve took
0.13 s more than the baselines' median, over the tenth of :data:`FIXED_SHARE` (2.0 of 2.5
for a table; once in CI).  A search that cannot be counted and works at import must spend
on each start timed at least that work again; no count, floor or time of a hidden start is
told either way."""
EVIDENCE_SPREAD = 6.0
"""How far the CPU time per counted expansion may vary between cases beyond what the
counts explain: an honest heap A* measured 4.6 times on a start of 18 expansions under the
load of two busy cores (4 failed it once)."""
MAX_UNITS_PER_EXPANSION = 0.1
"""CPU time per counted expansion, in units, above which the counts miss most of the work.
Measured in-process (unit 0.043 s): the handout's list style spends 0.36 ms per expansion at
965 expansions (0.008 units), 1.3 ms with the Hamming distance at 3,350 (0.03 units; its time
grows with the count); a breadth-first search that counts only the states of its path 0.2
units per counted expansion at 20 moves."""
GOAL_SLACK = 2
"""Expansions allowed above the ceiling: a search that expands the goal (or the start once
more) before it stops is no less guided by its heuristic."""
MIN_WORK = 0.002
"""CPU seconds per run below which a case is too small to time against the others."""
MAX_VALUES = 100
"""Starts on which the named heuristics are checked by value, at most, per values case."""
IMPORT_NOTE_SECONDS = 0.05
"""An import that costs more CPU time than this is reported: it runs again before every case
(an import that only defines the class takes about 5 ms, a table of every state 0.2-0.4 s)."""

HEURISTIC_WORDS = {
    'Manhattan': 'Manhattan distance (rows plus columns of every tile but the blank)',
    'Hamming': 'Hamming distance (tiles but the blank off their square)',
}

CONTROL = (1, 2, 3, 4, 5, 6, 7, 0, 8)
"""A start one move from the goal, asked beside every unsolvable case."""

TIMEOUT = ('It may be an endless loop (a closed state put back on the open list?) '
           'or a search that never takes the goal off the open list.')
HARD_TIMEOUT = ('A hard case: only a search that keeps the open list in a heap (heapq) '
                'and the closed list in a set answers it in time.')
NO_SEARCH = ('answered without a search: on every start of ten moves or more {how}, and the CPU '
             'time shows no search either (a table of answers earns nothing){heavy_import}')
NO_SEARCH_HERE = ('answered without a search: FindNextStates was called on fewer different states '
                  'on this start than any A* with an admissible heuristic expands on it, though '
                  'the search was counted on other starts (a table of answers earns nothing; a '
                  'heuristic that overestimates is not one of the sheet)')
NO_SEARCH_TABLE = ('answered from a table: on other starts FindNextStates was called on fewer '
                   'different states than any A* with an admissible heuristic expands there, '
                   'though the search was counted on the public starts; a submission that answers '
                   'some starts without a search earns nothing on any')
NO_SEARCH_DECOY = ('answered from a table: on some start FindNextStates was called on more states '
                   'than the path\'s, yet on fewer different states than any A* with a heuristic '
                   'of the sheet expands there, and no answer is longer than a shortest path (as '
                   'some are of a search whose heuristic overestimates); calls made for show '
                   'beside a table of answers are no search, and earn nothing on any start')
ANSWER_CHECKS = ('validity', 'optimality', 'timeouts', 'hard', 'heuristic')

UNSOLVABLE_TIMEOUT = (
    'no answer within the limit. This does not show a bug: to answer that there is '
    'no solution, the search must exhaust all 181,440 states reachable from the start, '
    'which a list-based A* like the handout\'s needs hours for, so within any time limit '
    'a slow correct search looks the same as one that never stops. Testing the parity of '
    'the start first (an odd number of inversions cannot reach the goal) answers at once.')

CUT_SHORT = ('This does not show a bug: the self-check stops a start that is information only '
             'early, to stay quick, and an official grade runs it up to the limit in brackets. ')
HARD_CUT_SHORT = CUT_SHORT + ('A search that keeps the open list in a heap (heapq) and the '
                              'closed list in a set answers it within the self-check\'s limit.')
UNSOLVABLE_CUT_SHORT = CUT_SHORT + (
    'To exhaust all 181,440 reachable states takes even a heap-based search longer than the '
    'self-check\'s limit; testing the parity of the start first (an odd number of inversions '
    'cannot reach the goal) answers at once.')

UNSOLVABLE_WAITED = (
    'A search that waits once its states run out is blocked on an empty queue: '
    'queue.PriorityQueue.get() waits for ever when nothing is left (`while openlist` is '
    'always true for a queue object; test `not openlist.empty()`).')


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
        bad = next((i for i, s in enumerate(states) if not puzzle.is_state(s)), None)
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
        states = [tuple(s) if s is not None else None for s in rebuilt['states']]
        return 'reconstruct_path', states, len(states)
    printed = puzzle.printed_path(observation.get('printed', ''), start)
    if printed:
        return 'printed', printed, len(printed)
    return 'none', None, 0


def expansions_of(observation):
    """Calls of FindNextStates: the class wrapper's count, or the instance's if there is none."""
    counts = observation['expansions']
    return counts['method'] if counts['method'] is not None else counts['instance']


def searched(reply):
    """Whether ``reply`` carries a search's observation (not the heuristics' values)."""
    return reply.ok and 'returned' in reply.observation


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
    """Whether ``case`` is graded by ``check``: a drawn case always; a fixture case if it is
    among the check's ``cases`` parameter (comma-separated; absent: all)."""
    names = settings.check_param(check, 'cases', None)
    return case.generated or names is None or \
        case.name in [n.strip() for n in str(names).split(',')]


@functools.lru_cache(maxsize=256)
def _region(start, length):
    return puzzle.hamming_region(start, length)


def strays(case, expanded):
    """How many of the ``expanded`` states (as :func:`puzzle.as_number` writes them) no A*
    whose heuristic is consistent and at least the Hamming distance expands on ``case``."""
    length = case.expected.get('optimal_length')
    if not expanded or length is None:
        return 0
    region = _region(tuple(case.input['state']), length)
    return sum(1 for number in expanded if number not in region)


def paired(case):
    """Whether ``case`` is a required start of :data:`HEAVY_LENGTH` moves or more, searched
    after a baseline request of its own."""
    return (case.expected.get('optimal_length') or 0) >= HEAVY_LENGTH and \
        not {'hard', 'unsolvable', 'baseline', 'values'} & set(case.tags)


def reps_for(case):
    """How many times a heuristic case is searched in one process (see :data:`REP_EXPANSIONS`)."""
    reference = (case.expected.get('astar_expansions') or {}).get('manhattan') or 1
    return max(1, min(MAX_REPS, math.ceil(REP_EXPANSIONS / max(1, reference))))


def values_case(name, cases, hidden):
    """The case that checks the named heuristics by value on the starts of ``cases`` (the
    first :data:`MAX_VALUES` of them)."""
    cases = cases[:MAX_VALUES]
    states = [list(c.input['state']) for c in cases]
    expected = {'values': [{k: c.expected[k] for k in ('manhattan', 'handout_manhattan',
                                                       'hamming')} for c in cases]}
    return base.Case(name=name, input={'states': states}, expected=expected,
                     source='the starts of the other cases', tags=('values',), hidden=hidden,
                     generated=hidden)


class EightPuzzle(base.Exercise):
    name = 'eightpuzzle'
    title = 'Eight puzzle: A* search'
    files = ('eightpuzzle.py',)
    probe = 'grader.exercises.eightpuzzle.probe'
    observation_schema = OBSERVATION
    checks = (
        base.Check('validity', 'the path runs from the start to the goal by single slides', 1.0),
        base.Check('optimality', 'the path is a shortest one', 0.75),
        base.Check('heuristic', 'A* expands as few states as the heuristics of the sheet allow, '
                   'each once, and Manhattan and Hamming are right', 0.5),
        base.Check('timeouts', 'every required start answered within its time limit', 0.25),
        base.Check('hard', 'long solutions (22-31 moves) within the hard limit', 0.0),
        base.Check('unsolvable',
                   'a clear failure value for a start that cannot reach the goal', 0.0),
    )
    information_limits = {'hard': 'hard', 'unsolvable': 'unsolvable'}
    """Limit keys of calls that decide one check alone (``{limit key: check}``): in a
    self-check, while that check is information only, such a call gets a short limit of its
    own and a reply cut short there is reported so (:data:`grader.engine.SELF_CHECK_UNITS`)."""

    # -- cases and requests ------------------------------------------------
    def extra_cases(self, cases, settings):
        """Baselines, and the named heuristics checked by value on the public and drawn starts."""
        extra = review.baseline_cases(BASELINES)
        if 'heuristic' in settings.checks:
            public = [c for c in cases if not c.hidden]
            unseen = [c for c in cases if c.hidden]
            if public:
                extra.append(values_case('heuristic-values', public, False))
            if unseen:
                extra.append(values_case('heuristic-values-drawn', unseen, True))
        return extra

    def child_options(self, settings):
        return dict({'heuristics': list(NAMED)}, **settings.options)

    def requests(self, case, settings):
        if 'baseline' in case.tags:
            return [base.Request(dict(NO_SEARCH_REQUEST))]
        if 'values' in case.tags:
            return [base.Request({'op': 'heuristics', 'states': case.input['states']})]
        state = list(case.input['state'])
        if 'unsolvable' in case.tags:
            if not graded(settings, 'unsolvable', case):
                return []
            # Not counted (``count: False``): these are timed only, and a search run under
            # the counter exhausts the 181,440 states more slowly.
            return [base.Request({'state': list(CONTROL), 'count': False}),
                    base.Request({'state': state, 'count': False}, 'unsolvable')]
        if 'hard' in case.tags:
            if not graded(settings, 'hard', case):
                return []
            return [base.Request({'state': state, 'count': False}, 'hard')]
        if 'heuristic' in case.tags:
            search = base.Request({'state': state, 'reps': reps_for(case)},
                                  runs=reps_for(case))
        else:
            search = base.Request({'state': state})
        return [base.Request(dict(NO_SEARCH_REQUEST)), search] if paired(case) else [search]

    def judge(self, case, replies, settings):
        if not replies:
            return []
        if 'baseline' in case.tags:
            return [review.baseline_outcome(case, replies[0])]
        if 'values' in case.tags:
            return [self._judge_values(case, replies[0], settings)]
        if 'unsolvable' in case.tags:
            return [judge_unsolvable(case, replies, settings)]
        if len(replies) == 2:       # the baseline of a paired start, then its search
            return [review.baseline_outcome(case, replies[0]),
                    *self._judge_search(case, replies[1], settings)]
        reply, = replies
        return self._judge_search(case, reply, settings)

    def _judge_search(self, case, reply, settings):
        """The outcomes of one search of ``case``'s start (a required, heuristic or hard one)."""
        if 'hard' in case.tags:
            checks = ['hard']
        else:
            checks = ['validity', 'optimality', 'timeouts']
            if 'heuristic' in case.tags:
                checks.append('heuristic')
        note = case_note(case)
        if not reply.ok:
            cause = HARD_CUT_SHORT if reply.kind == 'cut short' else \
                HARD_TIMEOUT if 'hard' in case.tags else TIMEOUT
            return note.fail_reply(checks, reply, timeout_cause=cause,
                                   measured={'status': reply.status})
        if not searched(reply):
            return note.fail(checks, 'the reply of the search did not have the expected shape',
                             kind='invalid reply')
        # The counts are the C counter's, read from outside the case process; never the reply's.
        reply.observation['expansions'] = counted_expansions(
            reply, self.child_options(settings)['heuristics'])
        attempt = Attempt(case, reply, note)
        judges = {'validity': judge_validity, 'optimality': judge_length, 'hard': judge_length,
                  'timeouts': judge_time, 'heuristic': judge_heuristic}
        return [judges[check](check, attempt, settings) for check in checks]

    def _judge_values(self, case, reply, settings):
        """The named heuristics' values against the true ones on every start."""
        measured = {'wrong': [], 'values': True}
        feedback = []

        def failed(message, kind):
            return base.Outcome('heuristic', case.name, False, message, '\n'.join(feedback),
                                measured, kind)

        if not reply.ok:
            return failed(base.failure_message(reply), '')
        found = reply.observation.get('values')
        if not isinstance(found, dict):
            return failed('the reply of the heuristics did not have the expected shape',
                          'invalid reply')
        states, expected = case.input['states'], case.expected['values']
        checked = []
        for name in NAMED:
            got = found.get(name)
            if got is None:
                continue
            checked.append(name)
            accepted = ('manhattan', 'handout_manhattan') if name == 'Manhattan' else ('hamming',)
            for state, value, right in zip(states, got, expected):
                if value is not None and any(value == right[k] for k in accepted):
                    continue
                measured['wrong'].append(name)
                truth = right[accepted[0]]
                shown = 'no number' if value is None else f'{value:g}'
                if not case.hidden:
                    feedback += [f'{name}({state})', puzzle.render(state),
                                 f'returned {shown}; the {HEURISTIC_WORDS[name]} is {truth}']
                break
            if len(got) != len(states) and name not in measured['wrong']:
                measured['wrong'].append(name)
        if measured['wrong']:
            feedback.append('A heuristic that overestimates makes A* miss shortest paths; one '
                            'that underestimates more than the sheet\'s makes it expand more.')
            return failed(f"{' and '.join(measured['wrong'])} "
                          f"{'does' if len(measured['wrong']) == 1 else 'do'} not return the "
                          'distance of the sheet', 'wrong value')
        what = ' and '.join(checked) if checked else 'no named heuristic found'
        return base.Outcome('heuristic', case.name, True,
                            f'{what}: right on {len(states)} starts' if checked else what,
                            measured=measured)

    # -- the import ---------------------------------------------------------
    def load_outcomes(self, loaded, settings):
        """The import's CPU time, for :meth:`review` (it is run again before every case)."""
        return [base.Outcome('_import', '(module)', True, measured={'cpu': loaded.cpu})]

    def load_warnings(self, loaded, settings):
        if loaded.cpu < IMPORT_NOTE_SECONDS:
            return []
        return [f'your module used {loaded.cpu:.2f} s of CPU time when it was imported, and it '
                'is imported again before every start, so that time counts in every case: work '
                'done at import (a game played at module level, a table of answers) is not part '
                "of Astar's search; put it under `if __name__ == '__main__':`."]

    # -- across cases -------------------------------------------------------
    def review(self, outcomes, settings, context):
        """Confirm the counts with the CPU time, check the named heuristics, require a search."""
        unit = context.get('unit') or 0.0
        baseline = review.baselines(outcomes)
        imported = next((o.measured['cpu'] for o in outcomes if o.check == '_import'), 0.0)
        searches = [o for o in outcomes if o.check == 'validity' and 'counts' in o.measured]
        heuristic = [o for o in outcomes if o.check == 'heuristic' and 'counts' in o.measured]
        max_rate = MAX_UNITS_PER_EXPANSION * unit if unit else None

        # Heuristic credit: counts at least A*'s floor on every start answered right.
        hidden = context.get('hidden', ())
        # (as judged start by start, before the review: what an A* with an admissible
        # heuristic shows on every public start, see the answers' rule below)
        admissible = [o.passed for o in heuristic if o.case not in hidden]
        admissible = bool(admissible) and all(admissible)
        samples = [evidence.Sample(o.case, o.measured['counts'], o.measured['cpu'],
                                   o.measured['floor'], hidden=o.case in hidden)
                   for o in heuristic if o.measured['right']]
        found = evidence.confirm_growing(samples, baseline, 'expansions', spread=EVIDENCE_SPREAD,
                                         min_work=MIN_WORK, max_seconds_per_unit=max_rate)
        reason = self._reason(found, samples)
        facts = review.evidence_facts(found, 'expansion', reason)
        if not found.confirmed:
            review.withdraw_uncounted(heuristic, 'heuristic', reason)

        # Answers: a search ran in the calls.
        heavy = [o for o in searches if o.measured['right']
                 and (o.measured['length'] or 0) >= HEAVY_LENGTH]
        searched, facts['search_cpu'] = self._searched(heavy, baseline, unit, max_rate, hidden)
        unproven, why = self._unproven(searches, admissible, hidden)
        facts['searched'] = searched and not unproven
        if unproven:
            # Answers without their expansions beside a counted search: a table.  None of
            # the answers count, those that cannot show their expansions (a start a search
            # of its path could answer) no more than the others; and the verdict does not
            # hang on how the CPU times of searched and unsearched starts mix.
            review.withdraw_unsearched([o for o in outcomes if o.case in unproven
                                        and 'counts' in o.measured], ANSWER_CHECKS,
                                       NO_SEARCH_HERE)
            review.withdraw_unsearched([o for o in outcomes if 'counts' in o.measured],
                                       ANSWER_CHECKS, why)
        elif heavy and not searched:
            counted = any(o.measured['counts'][0] >= o.measured['length'] for o in heavy)
            how = ('the expansions were only the states of the path returned' if counted else
                   'FindNextStates was not called for the states of the path')
            heavy_import = (f'; your module used {imported:.2f} s of CPU time when it was '
                            'imported, and a table built at import is not a search of Astar'
                            if imported >= IMPORT_NOTE_SECONDS else '')
            review.withdraw_unsearched([o for o in outcomes if 'counts' in o.measured],
                                       ANSWER_CHECKS, NO_SEARCH.format(how=how,
                                                                       heavy_import=heavy_import))
        self._review_values(outcomes, searches)
        return outcomes, facts

    @staticmethod
    def _unproven(searches, admissible, hidden):
        """``(starts, why)``: the starts answered right without the expansions any A* with a
        heuristic of the sheet makes on them (fewer calls of ``FindNextStates`` than the
        ``proof``), and the sentence that withdraws every answer, when the counts show that
        the search is held to that floor; ``(set(), '')`` when they do not.  Held to it:

        - a search counted as such an A* on every public start (the heuristic check passed
          there, and each start that can show its expansions did; :data:`NO_SEARCH_TABLE`);
        - a search whose trusted counts go beyond the states of its path on some start (it
          calls ``FindNextStates`` off its path: its counts are counts) and that answered no
          start with a chain longer than the optimum (:data:`NO_SEARCH_DECOY`): a table
          walked down with calls for show.

        What a start shows is its :func:`expanded` states: as many calls as any A* makes,
        on the same few states again and again, are no A*'s expansions either.

        Not held to it: a search whose heuristic overestimates (greedy, or f = g + 3h) gives
        a longer path on some start, and on the others may expand fewer states than any A*
        with an admissible heuristic; a search that calls ``FindNextStates`` on the states of
        its path at most, or not at all (its own move generator), is not counted, and its CPU
        time alone tells whether it searched (:meth:`_searched`); nor are counts the counter
        did not trust."""
        right = [o for o in searches if o.measured['right']]
        below = {o.case for o in right if expanded(o.measured) < o.measured['proof']}
        if not below:
            return set(), ''
        shown = [o for o in right if o.measured['proof'] and o.case not in hidden]
        if admissible and shown and all(expanded(o.measured) >= o.measured['proof']
                                        for o in shown):
            return below, NO_SEARCH_TABLE
        trusted = [o for o in right if o.measured.get('trusted', True)]
        beyond = any(o.measured['counts'][0] > o.measured['length'] + 1 for o in trusted)
        overestimates = any(o.measured.get('longer') for o in searches)
        decoy = {o.case for o in trusted if o.case in below}
        if beyond and decoy and not overestimates:
            return decoy, NO_SEARCH_DECOY
        return set(), ''

    @staticmethod
    def _reason(found, samples):
        """The evidence's sentence, in the words of this exercise (the evidence's own for a
        hidden or drawn start: no count or floor of it is quoted)."""
        case = found.details.get('case')
        sample = next((s for s in samples if s.case == case and not s.hidden), None)
        if found.status == evidence.NOT_COUNTED and sample is not None:
            return (f'{sample.counts[0]} expansions counted on {case} where any A* with the '
                    f'heuristics of the sheet expands at least {sample.floor}: FindNextStates '
                    'is not called for every state the search expands (its own move generator? '
                    'a table?), or the heuristic overestimates')
        if found.status == evidence.CACHED:
            return (f'the same start searched again counted {min(sample.counts)} expansions '
                    f'instead of {sample.counts[0]} on {case}: the search keeps results '
                    'between calls' if sample else found.reason)
        return found.reason

    @staticmethod
    def _review_values(outcomes, searches):
        """A named heuristic wrong by value costs every heuristic case when the search uses it."""
        values = [o for o in outcomes if o.check == 'heuristic' and o.measured.get('values')]
        if not any(o.passed for o in outcomes if o.check == 'heuristic' and 'counts' in o.measured):
            for o in values:     # right values earn nothing for a search that does not use them
                if o.passed:
                    o.passed, o.kind = False, 'wrong answer'
                    o.message += ', but no start was searched with the efficiency A* reaches'
        wrong = {name for o in values for name in o.measured['wrong']}
        expansions = sum(o.measured['expansions'] or 0 for o in searches)
        used = sorted(name for name in wrong
                      if sum(o.measured['heuristics'].get(name, 0) for o in searches)
                      >= max(1, expansions / 2))
        if used:
            evidence.withdraw([o for o in outcomes if 'counts' in o.measured], {'heuristic'},
                              'wrong value', f"the search uses {' and '.join(used)}, which "
                              f"{'does' if len(used) == 1 else 'do'} not return the distance of "
                              'the sheet (see the heuristic values)')

    @staticmethod
    def _searched(heavy, baseline, unit, max_rate, hidden=()):
        """``(searched, cpu)``: whether the calls show a search on the starts of ten moves or
        more (counted, or timed on :func:`timed_starts`), and the timed ones' CPU seconds per
        start (the ``median`` of the public ones, against what a search that cannot be
        counted ``needed``; no time of a ``hidden`` start is told)."""
        def sample(o):
            return evidence.Sample(o.case, o.measured['counts'], o.measured['cpu'],
                                   o.measured['length'])

        counted = evidence.confirm_growing([sample(o) for o in heavy], baseline, 'expansions',
                                           min_work=MIN_WORK, max_seconds_per_unit=max_rate)
        beyond = any(o.measured['counts'][0] > o.measured['length'] + 1 for o in heavy)
        timed = timed_starts(heavy)
        works = review.search_works([sample(o) for o in timed], baseline)
        noise = evidence.typical_spread(baseline)
        fixed = evidence.overhead(baseline)[0]
        floor = max(SEARCH_FLOOR_UNITS * unit, FIXED_SHARE * fixed,
                    fixed - IMPORT_FREE_UNITS * unit, noise)
        public = [w for w, o in zip(works, timed) if o.case not in hidden]
        cpu = {'starts': len(public), 'median': review.median(public, 6),
               'needed': round(floor, 6)}
        if counted.confirmed and beyond:
            return True, cpu
        return evidence.searched_by_time(works, floor), cpu

    def facts(self, outcomes, settings):
        conventions = Counter(o.measured['convention'] for o in outcomes
                              if o.check == 'validity' and 'convention' in o.measured)
        heuristic = [o for o in outcomes if o.check == 'heuristic' and 'ratio' in o.measured]
        unsolvable = [o for o in outcomes if o.check == 'unsolvable']
        facts = {
            'result_convention': conventions.most_common(1)[0][0] if conventions else 'none',
            'conventions': dict(conventions),
            'expansions': {o.case: o.measured['expansions'] for o in heuristic},
            'tampered': review.tampered(heuristic, 'heuristic'),
        }
        ratios = sorted(o.measured['ratio'] for o in heuristic if o.measured['ratio'] is not None)
        if ratios:
            facts['expansion_ratio_max'] = ratios[-1]
        if unsolvable:
            facts['unsolvable_outcome'] = unsolvable[0].measured.get('outcome', 'not measured')
        return facts


def timed_starts(heavy):
    """The ``heavy`` outcomes (starts of ten moves or more answered right) that time a search
    that cannot be counted: those on which the reference A* expands :data:`TIMED_EXPANSIONS`
    states or more, or every one when none does (a course of short starts only is judged on
    them all, as before).  Their ``median_low`` must reach the floor
    (:func:`grader.judging.evidence.searched_by_time`).  Public, drawn and hidden starts are
    chosen alike: where the drawn and hidden ones are most of those chosen (an official
    grade), a look-up on them shows no search, whatever the public ones spend."""
    chosen = [o for o in heavy if (o.measured.get('reference') or 0) >= TIMED_EXPANSIONS]
    return chosen or list(heavy)


def case_note(case):
    """The feedback block of a case: the call, the start drawn, the optimal length."""
    start = list(case.input['state'])
    return feedback.Note(case, [f'Astar({start})  ({case.source})',
                                'start:\n' + puzzle.render(tuple(start))],
                         f"expected: a path of {moves(case.expected['optimal_length'])}",
                         no_expected=('heuristic',))


def expanded(measured):
    """The different states a start's first run expanded, at most its calls of
    ``FindNextStates`` (a state the counter could not read counts as a new one): any A* with
    a heuristic of the sheet expands every state of its floor, each at least once."""
    return min(measured['counts'][0], measured.get('distinct', measured['counts'][0]))


def proof_of(expected):
    """Expansions a counted search shows on its own start, every one: the states any A* with
    a heuristic of the sheet expands (``astar_floor``) where that is more than the path and
    the goal; 0 where a search of its path alone could answer (nothing to show)."""
    floor, length = expected.get('astar_floor') or 0, expected.get('optimal_length') or 0
    return floor if floor > length + 1 else 0


class Attempt:
    """One search's reply on a case, read once for every check."""

    def __init__(self, case, reply, note):
        self.case, self.reply, self.note = case, reply, note
        self.obs = obs = reply.observation
        self.answer = answer = Answer(obs, tuple(case.input['state']))
        expected = case.expected
        counts = obs['expansions']
        right = answer.chain and answer.moves == expected['optimal_length']
        self.measured = {'convention': answer.convention, 'moves': answer.moves,
                         'expansions': expansions_of(obs), 'seconds': round(reply.cpu, 4),
                         'cpu': reply.cpu, 'counts': list(counts['reps']) or [expansions_of(obs)],
                         'length': expected['optimal_length'], 'right': right,
                         'proof': proof_of(expected), 'heuristics': dict(counts['heuristics']),
                         'reference': (expected.get('astar_expansions') or {}).get('manhattan'),
                         'distinct': counts['distinct'],
                         'longer': answer.chain and answer.moves > expected['optimal_length'],
                         'trusted': not tamper_reasons(counts)}
        self.problem = None if answer.valid else path_problem(obs, answer)

    def outcome(self, check, passed, message, cause='', drawing='', **details):
        """A verdict with the path returned shown (when it failed)."""
        return self.note.outcome(check, passed, message, cause=cause,
                                 lines=[self.answer.returned_text(), drawing], **details)

    def fail_path(self, check):
        """``check`` failed for the path's problem (:func:`path_problem`)."""
        message, cause, drawing = self.problem
        return self.outcome(check, False, message, cause, drawing, measured=self.measured)


def judge_validity(check, attempt, settings):
    """``validity``: from the start to the goal by single slides."""
    if attempt.answer.valid:
        return attempt.note.outcome(check, True, f'a valid path of {moves(attempt.answer.moves)}',
                                    measured=attempt.measured)
    return attempt.fail_path(check)


def judge_time(check, attempt, settings):
    """``timeouts``: a chain within the CPU time limit."""
    chain = attempt.answer.chain
    return attempt.note.timed(check, attempt.reply, chain, 'no path from the start to the goal',
                              lines=[attempt.answer.returned_text()], measured=attempt.measured)


def judge_length(check, attempt, settings):
    """``optimality`` (a chain) and ``hard`` (a valid path): the optimal number of moves."""
    case, answer, measured = attempt.case, attempt.answer, attempt.measured
    optimal = case.expected['optimal_length']
    usable = answer.valid if check == 'hard' else answer.chain
    if not usable:
        return attempt.fail_path(check)
    suffix = f' ({feedback.cpu_text(attempt.reply)})' if check == 'hard' else ''
    if answer.moves == optimal:
        return attempt.note.outcome(check, True, f'{moves(answer.moves)}, a shortest path' + suffix,
                                    measured=measured)
    if answer.moves < optimal:  # impossible for a chain; kept for a broken oracle
        return attempt.outcome(check, False, f'{moves(answer.moves)}: shorter than possible',
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
    return attempt.outcome(check, False, message + suffix, cause, measured=measured)


def path_problem(obs, answer):
    """``(message, cause, drawing)`` for a path that is not valid."""
    if answer.problem == 'none':
        return nothing_returned(obs)
    states, step = answer.states, answer.step
    if answer.problem == 'step':
        drawing = puzzle.render_side_by_side(
            [states[step], states[step + 1]], [f'state {step}', f'state {step + 1}'])
        return (f'step {step + 1} of the path (state {step} to {step + 1}) is not a single slide',
                ('Each state must follow from the previous one by sliding one tile into '
                 'the blank; rebuild the path by following camefrom one state at a time.'),
                drawing)
    if answer.problem == 'first':
        drawing = puzzle.render_side_by_side([states[0]], ['first state of the path'])
        return ('the path does not begin with the start state',
                'The path must begin with the state Astar was given.', drawing)
    if answer.problem == 'last':
        drawing = puzzle.render_side_by_side([states[-1]], ['last state of the path'])
        return ('the path does not end at the goal',
                'The path must end with the goal [1, 2, 3, 4, 5, 6, 7, 8, 0].', drawing)
    return {
        'long': (f'a path of {answer.length} states, too long to check',
                 'A path this long is far from a shortest one.', ''),
        'items': (f'item {step} of the path is not a state (nine tiles 0-8)',
                  'The path must be a list of states such as [1, 2, 3, 4, 5, 6, 7, 8, 0].', ''),
        'reversed': ('the path runs from the goal to the start',
                     ('The path runs from the goal to the start: reverse it (ReconstructPath '
                      'collects the states backwards from the goal).'), ''),
    }[answer.problem]


def nothing_returned(obs):
    """``(message, cause, drawing)`` when no path was returned, passed or printed."""
    returned = describe_returned(obs)
    if obs['returned']['kind'] == 'other':
        return (f'returned {returned}, not a list of states',
                'Return the path as a list of states, the start first and the goal last.', '')
    rebuilt = obs.get('reconstructed')
    if rebuilt and rebuilt.get('calls'):
        return ((f'returned {returned}; ReconstructPath was called, but its camefrom '
                 'holds no path to the goal'),
                'camefrom must map ListToString(state) to the state it was reached from.', '')
    return (f'returned {returned}, did not call ReconstructPath and printed no path',
            ('Is the A* loop still the template placeholder? When the goal is taken '
             'from the open list, return self.ReconstructPath(camefrom, current).'), '')


def tamper_reasons(counts):
    """Why the counter's tallies cannot be trusted, as phrases (none: intact)."""
    return list(counts['tamper']) or ([] if counts['intact'] else ['the counts were not kept'])


def judge_heuristic(check, attempt, settings):
    """``heuristic``: on a shortest chain, expansions as few as A* with the sheet's heuristics."""
    obs, answer, expected = attempt.obs, attempt.answer, attempt.case.expected
    counts = obs['expansions']
    expansions = expansions_of(obs)
    blind = expected['bfs_expansions']
    length = expected['optimal_length']
    measured = dict(attempt.measured, expansions=expansions, instance=counts['instance'],
                    bfs_expansions=blind, ratio=round(expansions / blind, 4) if blind else None,
                    again=max(0, expansions - counts['distinct'])
                    if counts['method'] is not None else 0,
                    floor=max(length or 0, expected.get('astar_floor') or 0))
    tampered = tamper_reasons(counts)
    if tampered:
        return attempt.note.tampered(check, '; '.join(tampered), measured,
                                     lines=[answer.returned_text()])
    if not answer.chain or answer.moves != length:
        what = 'no path from the start to the goal' if not answer.chain else \
            'the path is not a shortest one'
        return attempt.outcome(check, False, f'{expansions} expansions, but {what}',
                               measured=measured, kind='wrong answer')
    if expansions < length:
        return attempt.outcome(check, False, f'FindNextStates was called {expansions} times for '
                               f'a path of {moves(answer.moves)}: the expansions cannot be '
                               'counted', 'Generate the neighbours of a state with '
                               'self.FindNextStates(state): each call is one expansion.',
                               measured=measured, kind='not measured')
    found = efficiency_problem(attempt, measured, settings)
    if found:
        message, cause = found
        return attempt.outcome(check, False, message, cause, measured=measured)
    return attempt.note.outcome(check, True, heuristic_summary(attempt.case, measured),
                                measured=measured)


def heuristic_summary(case, measured):
    expansions, ratio = measured['expansions'], measured['ratio']
    if case.hidden or ratio is None:
        return f'{expansions} expansions'
    return (f'{expansions} expansions; a search without a heuristic makes at least '
            f"{measured['bfs_expansions']} (breadth-first) or {case.expected['ucs_expansions']} "
            f'(uniform-cost): ratio {ratio:.3f}')


def efficiency_problem(attempt, measured, settings):
    """``(message, cause)`` when a right search expanded more than A* with the sheet's
    heuristics would (states again, as many as a blind search, states off A*'s region, more
    than with the Hamming distance), else None."""
    case, counts = attempt.case, attempt.obs['expansions']
    expansions, again, ratio = measured['expansions'], measured['again'], measured['ratio']
    margin = settings.check_param('heuristic', 'margin', 0.5)
    hamming = (case.expected.get('astar_expansions') or {}).get('hamming')
    summary = heuristic_summary(case, measured)
    if again > max(2, settings.check_param('heuristic', 'repeats', 0.05) * expansions):
        return (f'{expansions} expansions of {counts["distinct"]} different states: {again} '
                'expansions of a state already expanded',
                'A state taken off the open list a second time must not be expanded again: '
                'skip it when it is already on the closed list (the sheet\'s closedSet), and '
                'do not put closed states back on the open list.')
    if ratio is not None and ratio > margin:
        return (summary + f' (above {margin:g}: as many as a blind search)',
                'The search does not seem to use the heuristic: is fScore = gScore + '
                'heuristic, and is the next state the one with the lowest fScore?')
    outside = strays(case, counts.get('expanded', ()))
    if outside > GOAL_SLACK:
        return (f'{expansions} expansions, {outside} of them of states that no A* with a '
                'heuristic of the sheet takes off the open list on this start (their moves '
                'from the start plus their Hamming distance exceed the optimum)',
                'A* expands only states with f = g + h up to the length of the shortest path; '
                'states beyond it come from a search without a heuristic, a heuristic weaker '
                'than the sheet\'s, or expansions that FindNextStates did not count.')
    ceiling = settings.check_param('heuristic', 'ceiling', 1.0)
    if hamming is not None and expansions > ceiling * hamming + GOAL_SLACK:
        more = '' if case.hidden else f' ({hamming} with the Hamming distance)'
        return (f'{summary}: more than A* with the weakest heuristic of the sheet expands on '
                f'this start{more}',
                'The heuristic is weaker than the sheet\'s Manhattan and Hamming distances (is a '
                'distance divided, or left out for some tiles?), or states are expanded that A* '
                'never takes off the open list.')
    return None


def judge_unsolvable(case, replies, settings):
    """``unsolvable``: a clear failure value, and a path for a start one move from the goal."""
    control, reply = replies
    start = tuple(case.input['state'])
    note = feedback.Note(case, [f'Astar({list(start)})  ({case.source})',
                                'start:\n' + puzzle.render(start),
                                'The tiles show an odd number of inversions, so the goal '
                                'cannot be reached.'])

    def outcome(passed, message, what, cause='', kind=''):
        return note.outcome('unsolvable', passed, message, cause=cause, kind=kind,
                            measured={'outcome': what, 'seconds': round(reply.cpu, 4)})

    if reply.status == 'timeout' and reply.kind == 'cut short':
        return outcome(False, base.failure_message(reply), 'cut short in the self-check',
                       UNSOLVABLE_CUT_SHORT)
    if reply.status == 'timeout' and reply.waited:
        return outcome(False, f'{base.failure_message(reply)}; it had computed for '
                       f'{reply.cpu:.2f} s of CPU time', 'timed out', UNSOLVABLE_WAITED)
    if reply.status == 'timeout':
        return outcome(False, f'{base.failure_message(reply)}: ' + UNSOLVABLE_TIMEOUT,
                       'timed out')
    if not reply.ok:
        return outcome(False, base.failure_message(reply), reply.status)
    if not searched(reply):
        return outcome(False, 'the reply of the search did not have the expected shape',
                       'invalid reply', kind='invalid reply')
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
    if not (searched(control) and Answer(control.observation, CONTROL).chain):
        return outcome(False, f'returned {returned}, but also no path for a start one move '
                       'from the goal, so it says nothing about this start',
                       f'returned {returned}')
    return outcome(True, f'returned {returned} ({feedback.cpu_text(reply)})',
                   f'returned {returned}')


EXERCISE = EightPuzzle()
