"""The expansions of a route search, read from the C counter's tally (parent side).

The route planner's probe counts nothing itself: the counter in the case process
(:file:`grader/child/_tally.c`) follows the calls of the submission's ``get_neighbors``,
``get_neighbors_codes``, ``fastest_transition`` and ``State.__init__``, and the listings of
the stops' neighbour mappings (see :mod:`grader.exercises.travel.probe` for the rule).  The
runner reads the tally from the stopped process (:attr:`grader.sandbox.session.Reply.tally`);
:func:`expansions` puts it in the shape the judge reads.
"""
import functools

from grader.judging import tallies

METHODS = ('get_neighbors', 'get_neighbors_codes', 'fastest_transition')
"""The counted CityMap methods, in the order of the probe's units."""
BYPASSED = {'outside-run', 'foreign-caller'}
"""Flags of a case whose searches were not all runs of the grader's: how many times it
searched is then unknown, so its CPU time per search is too."""


@functools.lru_cache(maxsize=1 << 16)
def code_hash(code):
    """The counter's hash of a stop code: FNV-1a (64 bits) of its UTF-8 text, never 0.

    Kept per process: every reply names its expansions by the hashes of all the network's
    stops (4,334 on the efficiency city), about 1 ms of CPU each time computed afresh."""
    h = 1469598103934665603
    for byte in code.encode('utf-8', 'surrogatepass'):
        h = ((h ^ byte) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h or 1


def expansions(reply, codes=()):
    """``{'count', 'counts', 'calls', 'order', 'made_order', 'intact', 'problem', 'stopped',
    'events', 'states', 'listings', 'bypassed'}`` of ``reply``'s tally: the first run's count
    (the larger of its event expansions and its distinct previous states), every run's, the
    first run's calls of each counted method, its event expansions in order as ``[code,
    time]`` (``codes``: the network's stop codes, to name the counter's hashes; None for a
    code not among them), the states its States were first made from in order
    (``made_order``, the same way), and whether the first run was stopped past its limit.
    ``intact`` is False, and ``problem`` says why, when the counts cannot be trusted (no
    tally, or a flag of the counter); ``bypassed`` is True when the submission's code ran
    outside the grader's runs (or no run was counted), so that the number of searches the
    CPU time covers is unknown."""
    found = tallies.counted(reply)
    tally = getattr(reply, 'tally', None) or {}
    slots = tally.get('slots', [])
    counts = [max(slot.get('events', 0), slot.get('states', 0)) for slot in slots]
    first = slots[0] if slots else {}
    names = names_by_hash(tuple(codes))
    order, made_order = (_named(tally.get(key, []), names) for key in ('order', 'made_order'))
    units = list(first.get('units', [])) + [0] * len(METHODS)
    flags = set(tallies.flag_names(tally.get('flags', 0)))
    bypassed = bool(tally) and (tally.get('runs', 0) == 0 or bool(BYPASSED & flags))
    return {'count': counts[0] if counts else 0, 'counts': counts or [0],
            'calls': dict(zip(METHODS, units)), 'order': order, 'made_order': made_order,
            'intact': not found.problem, 'problem': found.problem,
            'stopped': bool(first.get('stopped')), 'events': first.get('events', 0),
            'states': first.get('states', 0), 'listings': first.get('listings', 0),
            'bypassed': bypassed}


@functools.lru_cache(maxsize=8)
def names_by_hash(codes):
    """Stop code by :func:`code_hash` of each of ``codes`` (a tuple), kept per process: every
    reply of a network is read with the same codes."""
    return {code_hash(code): code for code in codes}


def _named(pairs, names):
    """``[[stop code, time]]`` of an order's ``[code hash, time]`` pairs (``names``: the
    codes by hash; a whole-minute time as an int)."""
    return [[names.get(h), int(t) if t is not None and float(t).is_integer() else t]
            for h, t in pairs]
