"""Tic-tac-toe probe: runs in a case process, next to the student module.

Requests (from the judge)::

    {"board": [9 marks, keypad order], "maximizing": bool, "player": "X"|"O",
     "count": bool, "reps": int, "at_least": int, "work": seconds}

Observation::

    {"result": <plain_sequence of what Minimax returned>,
     "board_after": [9 marks] | null,
     "nodes": {"traced": int, "all_calls": int, "recursive": [function names],
               "intact": bool, "reps": [int, ...]} | null}

With ``count``, the search runs ``reps`` times (default 1; with ``work``, as
long as that budget of CPU time lasts, see :mod:`grader.child.runs`), each
time on a fresh copy of the board, and each run's count of search calls (calls of
the submission's recursive functions, see :mod:`grader.child.counting`) is
in ``reps``; ``traced`` is the first run's.  ``reps`` 0 makes no call at
all: the parent times such a request to learn what a case costs besides
the search.  The answer and ``board_after`` are the first run's.

The call convention comes from grading.yaml (``options.entry`` and
``options.call``): argument names among ``board``, ``maximizing`` and
``player``, in the order the student's entry point takes them.
"""
from grader.child import counting, values
from grader.child.runs import runs

MARKS = ('X', 'O', '-')


def load(module, options, ctx):
    """Which of the configured entry points the module defines."""
    entry = options.get('entry', 'Minimax')
    return {'entry': entry, 'defined': callable(module.__dict__.get(entry))}


def _arguments(payload, options):
    board = [str(mark) for mark in payload['board']]
    arguments = {'board': board, 'maximizing': bool(payload['maximizing']),
                 'player': str(payload['player'])}
    return board, [arguments[name] for name in options.get('call', ['board', 'maximizing',
                                                                    'player'])]


def handle(module, payload, options, ctx):
    namespace = module.__dict__
    entry = options.get('entry', 'Minimax')
    if not payload.get('count'):
        board, args = _arguments(payload, options)
        result = namespace[entry](*args)
        return {'result': values.plain_sequence(result), 'nodes': None,
                'board_after': values.plain_str_list(board, 9, MARKS)}
    codes = ctx.submission_codes(excluded=options.get('provided', ()))
    watched = counting.candidates(codes)     # once: the same functions for every run
    observation = {'result': values.plain_sequence(None), 'board_after': None,
                   'nodes': {'traced': 0, 'all_calls': 0, 'recursive': [], 'intact': True,
                             'reps': []}}
    for rep in runs(payload):
        board, args = _arguments(payload, options)
        counter = counting.SearchCounter(codes, watched)
        with counter:
            result = namespace[entry](*args)
        counts = counter.report()
        nodes = observation['nodes']
        nodes['reps'].append(counts['search_calls'])
        nodes['intact'] = nodes['intact'] and counts['intact']
        if rep == 0:
            nodes.update(traced=counts['search_calls'], all_calls=counts['all_calls'],
                         recursive=counts['recursive'])
            observation['result'] = values.plain_sequence(result)
            observation['board_after'] = values.plain_str_list(board, 9, MARKS)
    return observation


def direct_call(module, payload, options):
    """The same student call as :func:`handle`, without instrumentation (benchmarks)."""
    _, args = _arguments(payload, options)
    return module.__dict__[options.get('entry', 'Minimax')](*args)
