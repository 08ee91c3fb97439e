"""Eight-puzzle replies as the session gives them: the counts in the tally the runner read.

The eight puzzle's probe reports no counts; the C counter's block (read by the runner from
the stopped case process) carries the calls of ``FindNextStates``, ``Manhattan`` and
``Hamming`` per run and the states the first run expanded.  :func:`tally` builds such a
block for judge tests that need chosen counts; :func:`in_sandbox` runs the real probe.
"""
import shutil

from grader.exercises.eightpuzzle import counts
from grader.sandbox import layers
from grader.sandbox.session import Session

OPTIONS = {'class': 'EightPuzzle', 'entry': 'Astar', 'heuristics': ['Manhattan', 'Hamming']}
HEURISTICS = OPTIONS['heuristics']


def tally(expansions=20, reps=None, distinct=None, heuristics=None, expanded=(), flags=0,
          process_flags=0):
    """A tally of ``reps`` runs (default one of ``expansions``): ``heuristics`` the first
    run's calls of each, ``expanded`` the states it noted (numbers) and ``distinct`` how many
    different states it expanded (the ones not in ``expanded`` as unread)."""
    reps = list(reps) if reps else [expansions]
    calls = heuristics if heuristics is not None else {'Manhattan': 2 * reps[0]}
    slots = [{'nodes': 0, 'calls': 5 * n + 3, 'leaves': 0, 'depth': 4, 'recursive': 0,
              'flags': flags, 'closed': True,
              'units': [n] + [calls.get(name, 0) for name in HEURISTICS]} for n in reps]
    states = list(expanded)
    distinct = reps[0] if distinct is None else distinct
    return {'runs': len(slots), 'flags': process_flags, 'slots': slots, 'others_ns': 0,
            'main_ns': 0, 'states': states, 'unread': max(0, distinct - len(set(states)))}


def with_expanded(reply, numbers):
    """``reply`` whose first run expanded exactly the states ``numbers``."""
    reply.tally['states'] = list(numbers)
    reply.tally['unread'] = 0
    return reply


def in_sandbox(source, payload, folder, options=None, beside=()):
    """``(observation, expansions)`` of one request run by the real probe in a sandbox on the
    module ``source`` (a path, with the files ``beside`` next to it), the expansions as the
    judge reads them from the tally."""
    folder.mkdir(exist_ok=True)
    shutil.copy(source, folder / 'eightpuzzle.py')
    for path in beside:
        shutil.copy(path, folder / path.name)
    with Session(folder, 'eightpuzzle.py', 'grader.exercises.eightpuzzle.probe',
                 options=options or OPTIONS, isolation=layers.detect()) as box:
        assert box.start().ok
        reply = box.call(payload, 20.0)
    assert reply.ok, reply.error
    return reply.observation, counts.expansions(reply, HEURISTICS)
