"""The expansions of a search, read from the C counter's tally (parent side).

The eight puzzle's probe counts nothing itself: the counter in the case process
(:file:`grader/child/_tally.c`) counts the calls of the submission's functions named by
the probe's ``units`` (``FindNextStates``, then the named heuristics) and notes the state
each of the first run's ``FindNextStates`` calls was handed.  The runner reads those
tallies from the stopped process (:attr:`grader.sandbox.session.Reply.tally`);
:func:`expansions` puts them in the shape the judge reads.
"""
from grader.judging import tallies

MAX_EXPANDED = 5000
"""Expanded states kept, at most (an A* with the Hamming distance expands up to 4,200 on
the starts of the heuristic check)."""


def expansions(reply, heuristics):
    """``{'method', 'instance', 'intact', 'tamper', 'distinct', 'reps', 'heuristics',
    'expanded'}`` of ``reply``'s tally: the first run's calls of ``FindNextStates``
    (``method``, and ``instance`` the same), each run's (``reps``), the first run's calls of
    each of ``heuristics``, how many different states the first run expanded (``distinct``:
    a state the counter could not read counts as a new one) and which (``expanded``, each
    as the number its tiles spell).  ``intact`` is False, and ``tamper`` says why, when the
    counts cannot be trusted (no tally, or a flag of the counter)."""
    found = tallies.counted(reply)
    tally = getattr(reply, 'tally', None) or {}
    slots = tally.get('slots', [])
    reps = [slot['units'][0] if slot.get('units') else 0 for slot in slots]
    first = slots[0].get('units', []) if slots else []
    states = tally.get('states', [])
    distinct = sorted(set(states))
    return {'method': reps[0] if reps else 0, 'instance': reps[0] if reps else 0,
            'intact': not found.problem, 'tamper': [found.problem] if found.problem else [],
            'distinct': len(distinct) + int(tally.get('unread', 0)), 'reps': reps,
            'heuristics': {name: first[i + 1] for i, name in enumerate(heuristics)
                           if i + 1 < len(first)},
            'expanded': distinct[:MAX_EXPANDED]}
