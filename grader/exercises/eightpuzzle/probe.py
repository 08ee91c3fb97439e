"""Eight-puzzle probe: runs in the sandboxed child, next to the student module.

Requests (from the judge)::

    {"state": [9 ints], "reps": int}                   # a search (reps 1 when absent)
    {"op": "heuristics", "states": [[9 ints], ...]}

For a search the probe makes a fresh ``EightPuzzle()`` and calls
``Astar(state)`` through the C counter's trampoline
(:func:`grader.child.tally.search`), ``reps`` times in a row (each time with
a fresh object and a fresh copy of the start; 0 makes no call at all: the
parent times such a request to learn what a case costs besides the search).
Nothing of the count is in the reply.  The counter (:file:`grader/child/_tally.c`)
counts, in C, every call of the submission's functions named by :func:`units`:
``FindNextStates`` (every call is one expansion, however it is reached) and
the heuristics the handout names (``Manhattan``, ``Hamming``; option
``heuristics``), so the judge knows which of them the search used; and it
notes the state each of the first run's ``FindNextStates`` calls was handed,
so the judge can tell which states were expanded, not only how many.  The
runner reads those tallies from the stopped case process; the judge turns
them into expansions (:mod:`grader.exercises.eightpuzzle.counts`).

``ReconstructPath``: when the search calls it (through the object), the
``camefrom`` mapping it receives is read there and then, and the path is
rebuilt from the goal back to the start (the handout's ``ReconstructPath``
prints the path and returns None, so this is where its answer is).

Observation of a search (the first run's)::

    {"returned": {"kind": "none"|"false"|"path"|"other", "type": str,
                  "length": int, "states": [[9 ints] | null, ...]},
     "reconstructed": {"states": [[9 ints], ...] | null, "calls": int} | null,
     "printed": str}

``states`` are capped at :data:`MAX_STATES` (``length`` is the true length);
an item that is not a state (nine ints 0..8, or a string of nine digits) is
null.  ``printed`` is the end of what the first run printed (the last
:data:`MAX_PRINTED` characters, where a printed path ends); the judge reads a
path from it only when neither of the other two conventions gave one.

With ``op: heuristics`` the probe calls each named heuristic of a fresh
``EightPuzzle()`` on every state and reports the numbers::

    {"values": {name: [number | null, ...] | null}}

(null for a method the class does not have, or for a call that raised or
did not return a number).
"""
from grader.child import tally, values

MAX_STATES = 400
MAX_PRINTED = 20000


def load(module, options, ctx):
    """Whether the module defines the class with the entry method."""
    cls_name = options.get('class', 'EightPuzzle')
    entry = options.get('entry', 'Astar')
    cls = module.__dict__.get(cls_name)
    defined = isinstance(cls, type) and callable(getattr(cls, entry, None))
    return {'entry': f'{cls_name}.{entry}', 'defined': defined}


def read_state(value):
    """Nine ints 0..8 (a list or tuple of ints, or a string of nine digits), else None."""
    if isinstance(value, str):
        text = str.__str__(value)
        if len(text) == 9 and text.isdigit():
            return [int(c) for c in text]
        return None
    seq, n = values.items(value, 10)
    if seq is None or n != 9:
        return None
    tiles = []
    for tile in seq:
        if type(tile) is not int or not 0 <= tile <= 8:
            return None
        tiles.append(int.__int__(tile))
    return tiles


def read_returned(result):
    """What ``Astar`` returned, as plain data."""
    if result is None:
        return {'kind': 'none', 'type': 'NoneType', 'length': 0, 'states': []}
    if result is False:
        return {'kind': 'false', 'type': 'bool', 'length': 0, 'states': []}
    seq, n = values.items(result, MAX_STATES)
    if seq is None:
        return {'kind': 'other', 'type': values.type_name(result), 'length': 0, 'states': []}
    return {'kind': 'path', 'type': values.type_name(result), 'length': n,
            'states': [read_state(item) for item in seq]}


def rebuild(camefrom, current, key_of):
    """The path from the start to ``current`` read from ``camefrom`` (goal back to start).

    ``camefrom`` maps a state's key to the state it was reached from; keys
    are tried as the student's ``ListToString``, a digit string and a tuple.
    Stops at a state that has no entry (the start), at a repeat, or after
    :data:`MAX_STATES` states.
    """
    if type(camefrom) is not dict:
        return None
    path, seen = [current], set()
    while len(path) < MAX_STATES:
        state = path[-1]
        keys = [key_of(state), ''.join(map(str, state)), tuple(state)]
        found = next((k for k in keys
                      if type(k) in (str, tuple) and dict.__contains__(camefrom, k)), None)
        if found is None or tuple(state) in seen:
            break
        seen.add(tuple(state))
        previous = read_state(dict.__getitem__(camefrom, found))
        if previous is None:
            break
        path.append(previous)
    path.reverse()
    return path


HEURISTICS = ('Manhattan', 'Hamming')
MAX_REPS = 16
LARGEST = 10 ** 6
"""A heuristic value beyond this is reported as not a number (no state is that far away)."""
COUNTED = True
"""Searches are counted by the C counter (:mod:`grader.child.tally`)."""


def units(options):
    """The functions whose calls the counter counts one by one, by name: ``FindNextStates``
    (the expansions; the states it is handed are noted too), then the named heuristics."""
    return (options.get('expand', 'FindNextStates'), *options.get('heuristics', HEURISTICS))


def handle(module, payload, options, ctx):
    cls = module.__dict__[options.get('class', 'EightPuzzle')]
    if payload.get('op') == 'heuristics':
        return heuristic_values(cls, payload, options)
    start = [int(tile) for tile in payload['state']]
    reps = max(0, min(MAX_REPS, int(payload.get('reps', 1))))
    observation = {'returned': read_returned(None), 'reconstructed': None, 'printed': ''}
    for rep in range(reps):
        run = _search(cls, list(start), options)
        if rep == 0:
            observation.update(returned=run['returned'], reconstructed=run['reconstructed'],
                               printed=ctx.output()[-MAX_PRINTED:])
    return observation


class _Reconstruct:
    """Put on the instance in place of ``ReconstructPath``: reads the ``camefrom`` mapping it
    is given there and then (the handout's ``ReconstructPath`` prints the path and returns
    None), and goes on to the student's method.  Grader code the search may call
    (:data:`SANCTIONED`)."""

    def __init__(self, game, original):
        self.game, self.original = game, original
        self.captured = {'states': None, 'calls': 0}

    def __call__(self, camefrom, current, *args, **kwargs):
        self.captured['calls'] += 1
        goal = read_state(current) or read_state(getattr(self.game, 'targetstate', None)) \
            or [1, 2, 3, 4, 5, 6, 7, 8, 0]
        self.captured['states'] = rebuild(camefrom, goal, self.key_of)
        return self.original(camefrom, current, *args, **kwargs)

    def key_of(self, state):
        converter = getattr(self.game, 'ListToString', None)
        try:
            return converter(list(state)) if callable(converter) else None
        except Exception:  # noqa: BLE001 - the student's helper; other key forms are tried
            return None


SANCTIONED = frozenset({_Reconstruct.__call__.__code__})
"""The grader's code that the search calls (through ``self.ReconstructPath``)."""


def _search(cls, start, options):
    """One counted run of :func:`_one_search`: what ``Astar(start)`` answered."""
    capture = []
    returned = tally.search(_one_search, cls, start, options, capture)
    captured = capture[0].captured if capture else {'calls': 0}
    return {'returned': returned, 'reconstructed': captured if captured['calls'] else None}


def _one_search(cls, start, options, capture):
    """What ``Astar(start)`` returned, read (:func:`read_returned`), on a fresh object, with
    ``ReconstructPath`` read on the object.  All inside the run: making the object runs its
    ``__init__``, and reading an object of the submission's may run its code (a ``__class__``
    of its own), which may run only inside a run."""
    game = cls()
    name = options.get('reconstruct', 'ReconstructPath')
    original = getattr(game, name, None)
    if callable(original):
        try:
            setattr(game, name, _Reconstruct(game, original))
            capture.append(getattr(game, name))
        except (AttributeError, TypeError):  # __slots__: the path is read from what it returns
            pass
    return read_returned(getattr(game, options.get('entry', 'Astar'))(start))


def heuristic_values(cls, payload, options):
    """Each named heuristic of a fresh object on every state: numbers, or None."""
    game = cls()
    found = {}
    for name in options.get('heuristics', HEURISTICS):
        method = getattr(game, name, None)
        if not callable(method):
            found[name] = None
            continue
        found[name] = []
        for state in payload['states']:
            try:
                value = method([int(tile) for tile in state])
            except Exception:  # noqa: BLE001 - a heuristic that fails on a state has no value there
                value = None
            found[name].append(_number(value))
    return {'values': found}


def _number(value):
    """``value`` as a plain int or finite float, or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = int.__int__(value) if isinstance(value, int) else float.__float__(value)
    return number if abs(number) <= LARGEST else None


def direct_call(module, payload, options):
    """The same student call as :func:`handle`, without instrumentation (benchmarks)."""
    if payload.get('op') == 'heuristics':
        return heuristic_values(module.__dict__[options.get('class', 'EightPuzzle')], payload,
                                options)
    game = module.__dict__[options.get('class', 'EightPuzzle')]()
    return getattr(game, options.get('entry', 'Astar'))(list(payload['state']))
