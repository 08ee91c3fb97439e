"""Tic-tac-toe probe: runs in the sandboxed child, next to the student module.

Requests (from the judge)::

    {"board": [9 marks, keypad order], "maximizing": bool, "player": "X"|"O",
     "count": bool}

Observation::

    {"result": <plain_sequence of what Minimax returned>,
     "board_after": [9 marks] | null,
     "nodes": {"traced": int, "all_calls": int, "wrapped": int,
               "recursive": [function names], "intact": bool,
               "hook_ok": bool, "tamper": [names]} | null}

``traced`` counts calls of the student's recursive functions (see
:mod:`grader.exercises.counting`); ``wrapped`` is the independent count of
calls through the module's wrapped functions, never more than ``all_calls``.

The call convention comes from grading.yaml (``options.entry`` and
``options.call``): argument names among ``board``, ``maximizing`` and
``player``, in the order the student's entry point takes them.
"""
from grader.exercises import counting
from grader.sandbox import instrument, values

MARKS = ('X', 'O', '-')


def load(module, options, ctx):
    """Which of the configured entry points the module defines."""
    entry = options.get('entry', 'Minimax')
    return {'entry': entry, 'defined': callable(module.__dict__.get(entry))}


def handle(module, payload, options, ctx):
    namespace = module.__dict__
    entry = options.get('entry', 'Minimax')
    board = [str(mark) for mark in payload['board']]
    arguments = {'board': board, 'maximizing': bool(payload['maximizing']),
                 'player': str(payload['player'])}
    args = [arguments[name] for name in options.get('call', ['board', 'maximizing', 'player'])]
    observation = {'nodes': None}
    if payload.get('count'):
        files = ctx.student_files
        excluded = instrument.student_codes(namespace, files, options.get('provided', ()))
        restore, wrapped, intact = instrument.wrap_functions(
            namespace, files, skip=options.get('provided', ()))
        counter = counting.SearchCounter(files, excluded)
        guard = instrument.TamperGuard()
        function = namespace[entry]
        try:
            with counter, guard:
                result = function(*args)
            counts = counter.report()
            observation['nodes'] = {
                'traced': counts['search_calls'], 'all_calls': counts['all_calls'],
                'recursive': counts['recursive'][:20], 'wrapped': wrapped(), 'intact': intact(),
                'hook_ok': counter.installed_ok, 'tamper': sorted(set(guard.attempts)),
            }
        finally:
            restore()
    else:
        result = namespace[entry](*args)
    observation['result'] = values.plain_sequence(result)
    observation['board_after'] = values.plain_str_list(board, 9, MARKS)
    return observation


def direct_call(module, payload, options):
    """The same student call as :func:`handle`, without instrumentation (benchmarks)."""
    board = list(payload['board'])
    arguments = {'board': board, 'maximizing': payload['maximizing'], 'player': payload['player']}
    args = [arguments[name] for name in options.get('call', ['board', 'maximizing', 'player'])]
    return module.__dict__[options.get('entry', 'Minimax')](*args)
