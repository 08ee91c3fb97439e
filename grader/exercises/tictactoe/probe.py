"""Tic-tac-toe probe: runs in a case process, next to the student module.

Requests (from the judge)::

    {"board": [9 marks, keypad order], "maximizing": bool, "player": "X"|"O",
     "count": bool, "reps": int, "at_least": int, "work": seconds}

Observation::

    {"result": <plain_sequence of what Minimax returned>,
     "board_after": [9 marks] | null}

With ``count``, the search runs ``reps`` times (default 1; with ``work``, as
long as that budget of CPU time lasts, see :mod:`grader.child.runs`), each
time on a fresh copy of the board, each run through the counter's trampoline
(:func:`grader.child.tally.search`).  Nothing of the count is in the reply:
the C counter tallies every run, and the runner reads the tally from the
stopped process.  ``reps`` 0 makes no call at all: the parent times such a
request to learn what a case costs besides the search.  The answer and
``board_after`` are the first run's.

The call convention comes from grading.yaml (``options.entry`` and
``options.call``): argument names among ``board``, ``maximizing`` and
``player``, in the order the student's entry point takes them.
"""
from grader.child import tally, values
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
        return {'result': values.plain_sequence(result),
                'board_after': values.plain_str_list(board, 9, MARKS)}
    observation = {'result': values.plain_sequence(None), 'board_after': None}
    function = namespace[entry]
    for rep in runs(payload):
        board, args = _arguments(payload, options)
        result = tally.search(function, *args)
        if rep == 0:
            observation['result'] = values.plain_sequence(result)
            observation['board_after'] = values.plain_str_list(board, 9, MARKS)
    return observation


def direct_call(module, payload, options):
    """The same student call as :func:`handle`, without instrumentation (benchmarks)."""
    _, args = _arguments(payload, options)
    return module.__dict__[options.get('entry', 'Minimax')](*args)
