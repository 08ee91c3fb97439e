"""Eight-puzzle probe: runs in the sandboxed child, next to the student module.

Requests (from the judge)::

    {"state": [9 ints], "reps": int, "detail": bool}   # a search (reps 1 when absent)
    {"op": "heuristics", "states": [[9 ints], ...]}

For a search the probe makes a fresh ``EightPuzzle()`` and calls
``Astar(state)``, ``reps`` times in a row (each time with a fresh object
and a fresh copy of the start; 0 makes no call at all: the parent times
such a request to learn what a case costs besides the search), with these
methods instrumented:

- ``FindNextStates``: every call is one expansion.  It is counted twice: by
  a wrapper on the class (``method``: every call of the method however it is
  reached, ``self.FindNextStates`` or ``EightPuzzle.FindNextStates``) and by
  a wrapper on the instance (``instance``: the calls through
  ``self.FindNextStates``, which go on through the class wrapper).  So
  ``instance <= method`` unless a wrapper was re-bound; both are put back
  after the call.  With ``detail``, the class wrapper also notes the state
  it was given: ``distinct`` is how many different states were expanded
  (an A* with a closed list expands each state once), and ``expanded``
  lists them (up to :data:`MAX_EXPANDED`, each as the int its nine tiles
  spell, in no particular order), so the judge can tell which states the
  search expanded, not only how many.
- with ``detail``, the heuristics the handout names (``Manhattan``,
  ``Hamming``; option ``heuristics``): calls counted by a wrapper on the
  class, so the judge knows which of them the search used.  (Without
  ``detail`` neither is watched: a long search pays nothing for them.)
- ``ReconstructPath``: when the search calls it, the ``camefrom`` mapping it
  receives is read there and then, and the path is rebuilt from the goal back
  to the start (the handout's ``ReconstructPath`` prints the path and returns
  None, so this is where its answer is).

Observation of a search::

    {"returned": {"kind": "none"|"false"|"path"|"other", "type": str,
                  "length": int, "states": [[9 ints] | null, ...]},
     "reconstructed": {"states": [[9 ints], ...] | null, "calls": int} | null,
     "printed": str,
     "expansions": {"method": int | null, "instance": int, "intact": bool,
                    "tamper": [names], "distinct": int, "reps": [int, ...],
                    "heuristics": {name: int}, "expanded": [int, ...]}}

Everything but ``reps`` describes the first run; ``reps`` holds each run's
count of expansions.  ``states`` are capped at :data:`MAX_STATES`
(``length`` is the true length); an item that is not a state (nine ints
0..8, or a string of nine digits) is null.  ``printed`` is the end of what
the first run printed (the last :data:`MAX_PRINTED` characters, where a
printed path ends); the judge reads a path from it only when neither of the
other two conventions gave one.  ``method`` is null when ``FindNextStates``
is not a plain function of the class (then only the instance wrapper
counts).  ``tamper`` lists attempts to reach ``sys.settrace`` and friends
during the call.

With ``op: heuristics`` the probe calls each named heuristic of a fresh
``EightPuzzle()`` on every state and reports the numbers::

    {"values": {name: [number | null, ...] | null}}

(null for a method the class does not have, or for a call that raised or
did not return a number).

Wrappers rather than a trace hook: a trace hook slows a search down 2.5
times (every Python call pays for it), which would eat the time limits.
Every count is a claim made in the submission's process: the judge
confirms it with the CPU time the parent measures.
"""
import types

from grader.child import values

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


def plain_function(cls, name):
    """``(function, owned)`` if ``name`` is a plain function on ``cls`` (own or inherited)."""
    for klass in type.__getattribute__(cls, '__mro__'):
        found = type.__getattribute__(klass, '__dict__').get(name)
        if found is not None:
            return (found, klass is cls) if isinstance(found, types.FunctionType) else (None, False)
    return None, False


HEURISTICS = ('Manhattan', 'Hamming')
MAX_REPS = 16
MAX_EXPANDED = 5000
"""Expanded states reported, at most (an A* with the Hamming distance expands up to 4,200 on
the starts of the heuristic check)."""
LARGEST = 10 ** 6
"""A heuristic value beyond this is reported as not a number (no state is that far away)."""


def _state_key(state):
    """A copy of a state handed to FindNextStates to tell states apart (None if it is not a
    list, tuple or str)."""
    kind = type(state)
    if kind is list or kind is tuple:
        return tuple(state)
    return state if kind is str else None


def _numbers(states):
    """Up to :data:`MAX_EXPANDED` of ``states`` that are states (nine tiles 0..8, each once),
    each as the int its tiles spell (``123456780``)."""
    found = []
    for key in states:
        tiles = [int(c) for c in key] if type(key) is str and key.isdigit() else key
        if type(tiles) in (list, tuple) and len(tiles) == 9 and \
                all(type(t) is int for t in tiles) and sorted(tiles) == list(range(9)):
            number = 0
            for tile in tiles:
                number = number * 10 + tile
            found.append(number)
            if len(found) == MAX_EXPANDED:
                break
    return found


class _Unread:
    """Stands for a state that cannot be told apart from others: counted as a new one."""


class _Counted:
    """A counting wrapper put on the class in place of one of its plain functions."""

    def __init__(self, cls, name, note=None):
        self.cls, self.name, self.note = cls, name, note
        self.original, self.owned = plain_function(cls, name)
        self.calls = 0
        if self.original is None:
            self.wrapper = None
            return
        original, counted = self.original, self

        def wrapper(self, *args, **kwargs):
            counted.calls += 1
            if counted.note is not None and args:
                counted.note(args[0])
            return original(self, *args, **kwargs)

        self.wrapper = wrapper
        setattr(cls, name, wrapper)

    def in_place(self):
        return self.wrapper is None or \
            type.__getattribute__(self.cls, '__dict__').get(self.name) is self.wrapper

    def restore(self):
        if self.wrapper is None:
            return
        if self.owned:
            setattr(self.cls, self.name, self.original)
        else:
            delattr(self.cls, self.name)


def handle(module, payload, options, ctx):
    cls = module.__dict__[options.get('class', 'EightPuzzle')]
    if payload.get('op') == 'heuristics':
        return heuristic_values(cls, payload, options)
    start = [int(tile) for tile in payload['state']]
    reps = max(0, min(MAX_REPS, int(payload.get('reps', 1))))
    detail = bool(payload.get('detail'))
    expanded, unread = set(), [0]

    def note(state):
        try:
            expanded.add(_state_key(state) or _Unread())
        except Exception:  # noqa: BLE001 - items that cannot be hashed: a state of its own
            unread[0] += 1

    expand = _Counted(cls, options.get('expand', 'FindNextStates'), note if detail else None)
    heuristics = [_Counted(cls, name) for name in options.get('heuristics', HEURISTICS)] \
        if detail else []
    observation = {'returned': read_returned(None), 'reconstructed': None, 'printed': '',
                   'expansions': {'method': 0 if expand.wrapper is not None else None,
                                  'instance': 0, 'intact': True, 'tamper': [], 'distinct': 0,
                                  'reps': [], 'heuristics': {}}}
    try:
        for rep in range(reps):
            expand.calls = 0
            expanded.clear()
            unread[0] = 0
            for counted in heuristics:
                counted.calls = 0
            run = _search(cls, list(start), options, ctx)
            intact = run['intact'] and expand.in_place() and all(h.in_place() for h in heuristics)
            counts = observation['expansions']
            method = expand.calls if expand.wrapper is not None else None
            counts['reps'].append(method if method is not None else run['instance'])
            counts['intact'] = counts['intact'] and intact
            if rep == 0:
                observation.update(returned=run['returned'], reconstructed=run['reconstructed'],
                                   printed=ctx.output()[-MAX_PRINTED:])
                counts.update(method=method, instance=run['instance'],
                              distinct=len(expanded) + unread[0],
                              heuristics={h.name: h.calls for h in heuristics
                                          if h.wrapper is not None})
                if detail:
                    counts['expanded'] = _numbers(expanded)
    finally:
        expand.restore()
        for counted in heuristics:
            counted.restore()
    return observation


def _search(cls, start, options, ctx):
    """One ``Astar(start)`` on a fresh object, with the instance wrappers: what it answered."""
    expand_name = options.get('expand', 'FindNextStates')
    reconstruct_name = options.get('reconstruct', 'ReconstructPath')
    captured = {'states': None, 'calls': 0}
    counts = {'instance': 0}
    game = cls()
    expand = getattr(game, expand_name, None)
    reconstruct = getattr(game, reconstruct_name, None)

    def key_of(state):
        converter = getattr(game, 'ListToString', None)
        try:
            return converter(list(state)) if callable(converter) else None
        except Exception:  # noqa: BLE001 - the student's helper; other key forms are tried
            return None

    def instance_expand(*args, **kwargs):
        counts['instance'] += 1
        return expand(*args, **kwargs)

    def capturing_reconstruct(camefrom, current, *args, **kwargs):
        captured['calls'] += 1
        goal = read_state(current) or read_state(getattr(game, 'targetstate', None)) \
            or [1, 2, 3, 4, 5, 6, 7, 8, 0]
        captured['states'] = rebuild(camefrom, goal, key_of)
        return reconstruct(camefrom, current, *args, **kwargs)

    patched = []
    for name, bound, wrapper in ((expand_name, expand, instance_expand),
                                 (reconstruct_name, reconstruct, capturing_reconstruct)):
        if callable(bound):
            try:
                setattr(game, name, wrapper)
                patched.append((name, wrapper))
            except (AttributeError, TypeError):  # __slots__: the class wrapper still counts
                pass
    result = getattr(game, options.get('entry', 'Astar'))(start)
    intact = all(getattr(game, name, None) is wrapper for name, wrapper in patched)
    return {'returned': read_returned(result),
            'reconstructed': captured if captured['calls'] else None,
            'instance': counts['instance'], 'intact': intact}


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
