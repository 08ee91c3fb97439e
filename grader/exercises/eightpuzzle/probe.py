"""Eight-puzzle probe: runs in the sandboxed child, next to the student module.

Request (from the judge)::

    {"state": [9 ints]}

The probe makes a fresh ``EightPuzzle()`` and calls ``Astar(state)`` with
two methods instrumented:

- ``FindNextStates``: every call is one expansion.  It is counted twice: by
  a wrapper on the class (``method``: every call of the method however it is
  reached, ``self.FindNextStates`` or ``EightPuzzle.FindNextStates``) and by
  a wrapper on the instance (``instance``: the calls through
  ``self.FindNextStates``, which go on through the class wrapper).  So
  ``instance <= method`` unless a wrapper was re-bound; both are put back
  after the call.
- ``ReconstructPath``: when the search calls it, the ``camefrom`` mapping it
  receives is read there and then, and the path is rebuilt from the goal back
  to the start (the handout's ``ReconstructPath`` prints the path and returns
  None, so this is where its answer is).

Observation::

    {"returned": {"kind": "none"|"false"|"path"|"other", "type": str,
                  "length": int, "states": [[9 ints] | null, ...]},
     "reconstructed": {"states": [[9 ints], ...] | null, "calls": int} | null,
     "printed": str,
     "expansions": {"method": int | null, "instance": int, "intact": bool,
                    "tamper": [names]}}

``states`` are capped at :data:`MAX_STATES` (``length`` is the true length);
an item that is not a state (nine ints 0..8, or a string of nine digits) is
null.  ``printed`` is the end of what the call printed (the last
:data:`MAX_PRINTED` characters, where a printed path ends); the judge reads a path
from it only when neither of the other two conventions gave one.
``method`` is null when ``FindNextStates`` is not a plain function of the
class (then only the instance wrapper counts).  ``tamper`` lists attempts to
reach ``sys.settrace`` and friends during the call.

Wrappers rather than a trace hook: a trace hook slows a search down 2.5
times (every Python call pays for it), which would eat the time limits.
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
        found = next((k for k in keys if type(k) in (str, tuple) and dict.__contains__(camefrom, k)),
                     None)
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


def handle(module, payload, options, ctx):
    cls = module.__dict__[options.get('class', 'EightPuzzle')]
    start = [int(tile) for tile in payload['state']]
    expand_name = options.get('expand', 'FindNextStates')
    reconstruct_name = options.get('reconstruct', 'ReconstructPath')
    counts = {'method': 0, 'instance': 0}
    captured = {'states': None, 'calls': 0}

    original, owned = plain_function(cls, expand_name)

    def counting_method(self, *args, **kwargs):
        counts['method'] += 1
        return original(self, *args, **kwargs)

    method_wrapper = counting_method if original is not None else None
    if method_wrapper is not None:
        setattr(cls, expand_name, method_wrapper)
    try:
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
        if method_wrapper is not None:
            intact = intact and type.__getattribute__(cls, '__dict__').get(expand_name) \
                is method_wrapper
    finally:
        if method_wrapper is not None:
            if owned:
                setattr(cls, expand_name, original)
            else:
                delattr(cls, expand_name)
    return {
        'returned': read_returned(result),
        'reconstructed': captured if captured['calls'] else None,
        'printed': ctx.output()[-MAX_PRINTED:],
        'expansions': {'method': counts['method'] if method_wrapper is not None else None,
                       'instance': counts['instance'], 'intact': intact, 'tamper': []},
    }


def direct_call(module, payload, options):
    """The same student call as :func:`handle`, without instrumentation (benchmarks)."""
    game = module.__dict__[options.get('class', 'EightPuzzle')]()
    return getattr(game, options.get('entry', 'Astar'))(list(payload['state']))
