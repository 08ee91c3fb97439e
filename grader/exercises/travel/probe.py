"""Route-planner probe: runs in the sandboxed child, next to the student's citymap.py.

The network files are in the private copy (put there by the judge's
``prepare``), at the paths ``options['data']`` gives relative to the copy's
root: by default ``network.json`` and ``lines.json`` at the exercise root,
where the handout's ``load_data`` looks, and the large city under
``large/``.  The probe builds a fresh ``CityMap`` for every route request
and passes it the files' full paths (``os.path.join`` keeps a full path, so
the handout's ``load_data`` opens them wherever the module sits).

Requests (from the judge)::

    {"kind": "route", "network": "small"|"large", "start": code, "goal": code,
     "departure": int, "count": bool}
    {"kind": "heuristic", "stop": code, "goal": code}
    {"kind": "order", "goal": code, "first": {"stop", "time"}, "second": {"stop", "time"}}

Observations::

    route:     {"network_error", "error", "goal_set", "returned", "chain", "chain_end",
                "expansions", "search_seconds"}
    heuristic: {"network_error", "error", "value"}
    order:     {"network_error", "error", "heuristics": [v1, v2], "less": [first < second,
                second < first]}

``chain`` is the list of ``[stop code, time]`` read by following
``get_previous()`` from the returned state (at most :data:`MAX_CHAIN`
states); ``chain_end`` says how the walk ended: ``none`` (previous was
None), ``cycle`` (a state came back), ``cut`` (too long) or ``other``
(previous was not a state).  Values are plain data (:mod:`grader.sandbox.values`).

Expansions (``count``): while the search runs, ``get_neighbors``,
``get_neighbors_codes`` and ``fastest_transition`` of the student's
``CityMap`` class are replaced by counting wrappers.  Each call is keyed by
the stop it starts from (its first argument) and, for
``fastest_transition``, the clock time.  An *expansion* is a maximal run of
consecutive calls about the same stop at the same time: a call starts a new
expansion when its stop differs from the current expansion's, or when both
carry a time and the times differ (the same stop expanded again, later).
So a search that calls ``get_neighbors_codes(code)`` once and then
``fastest_transition(code, n, t)`` for each neighbour makes one expansion
per stop it expands, however it splits that work.  The first
:data:`MAX_ORDER` expansions are reported in order as ``[code, time]``
(time ``None`` when only the neighbour lists were asked for).
"""
import os

from grader.child import values
from grader.child.channel import describe as _describe


MAX_CHAIN = 5000
MAX_ORDER = 6000
COUNTED = ('get_neighbors', 'get_neighbors_codes', 'fastest_transition')
_saved = {}


def load(module, options, ctx):
    """Whether the module defines the handout's State and CityMap.search."""
    namespace = module.__dict__
    state, city = namespace.get('State'), namespace.get('CityMap')
    missing = [name for name, obj in (('State', state), ('CityMap', city)) if not isinstance(obj, type)]
    if not missing and not callable(getattr(city, 'search', None)):
        missing.append('CityMap.search')
    printed = ctx.output()
    return {'entry': ' and '.join(missing) or 'State and CityMap.search', 'defined': not missing,
            'printed': printed[-600:]}


def ctx_root():
    """The private copy: the case process starts there, before any student code runs."""
    return _saved.get('root') or os.getcwd()


def data_paths(options, network):
    """Full paths of the stops and routes files of ``network`` in the private copy."""
    stops, routes = options.get('data', {}).get(network, ('network.json', 'lines.json'))
    root = ctx_root()
    return os.path.join(root, stops), os.path.join(root, routes)


def describe(exc, files):
    return _describe(exc, files)[1]


def build_map(module, paths, ctx):
    """``(city, None)``, or ``(None, sentence)`` when the CityMap could not be built."""
    try:
        return module.CityMap(*paths), None
    except SystemExit as exc:
        text = describe(exc, ctx.student_files)
    except Exception as exc:  # noqa: BLE001 - the student's failure is data
        text = describe(exc, ctx.student_files)
    printed = ' '.join(ctx.output().split())
    if printed:
        text += "; it printed '%s'" % printed[-300:]
    return None, text


def handle(module, payload, options, ctx):
    _saved.setdefault('root', os.getcwd())
    kind = payload['kind']
    network = payload.get('network', 'small')
    city, problem = build_map(module, data_paths(options, network), ctx)
    observation = {'network_error': problem, 'error': None}
    if problem:
        return observation
    state_class = module.State
    try:
        if kind == 'route':
            observation.update(route(module, city, payload, ctx))
        elif kind == 'heuristic':
            state_class.goal = city.get_stop(payload['goal'])
            observation['value'] = values.plain(state_class(city.get_stop(payload['stop']), 0).heuristic())
        else:
            state_class.goal = city.get_stop(payload['goal'])
            first, second = (state_class(city.get_stop(s['stop']), s['time'])
                             for s in (payload['first'], payload['second']))
            observation['heuristics'] = [values.plain(first.heuristic()), values.plain(second.heuristic())]
            observation['less'] = [values.plain(first < second), values.plain(second < first)]
    except Exception as exc:  # noqa: BLE001 - reported with what the search left behind
        observation['error'] = describe(exc, ctx.student_files)
        if kind == 'route':
            observation.setdefault('goal_set', goal_was_set(state_class, payload['goal']))
    return observation


def route(module, city, payload, ctx):
    """Run one search; the returned chain, how it ended, and the expansions if asked."""
    start, goal = city.get_stop(payload['start']), city.get_stop(payload['goal'])
    log = Expansions(module.CityMap) if payload.get('count') else None
    began = ctx.perf_counter()
    try:
        if log:
            with log:
                result = city.search(start, goal, payload['departure'])
        else:
            result = city.search(start, goal, payload['departure'])
    finally:
        seconds = ctx.perf_counter() - began
    observation = {'goal_set': goal_was_set(module.State, payload['goal']),
                   'search_seconds': round(seconds, 6),
                   'expansions': log.report() if log else None}
    observation.update(read_chain(result))
    return observation


def goal_was_set(state_class, goal_code):
    goal = state_class.__dict__.get('goal')
    return isinstance(goal, dict) and dict.get(goal, 'code') == goal_code


def is_state(obj):
    return all(callable(getattr(obj, name, None)) for name in ('get_previous', 'get_stop_code', 'get_time'))


def read_chain(result):
    """The returned state and the chain of states behind it, as plain data."""
    if not is_state(result):
        return {'returned': values.plain(result) if not isinstance(result, (list, tuple))
                else {'kind': 'other', 'type': values.type_name(result)},
                'chain': [], 'chain_end': 'none'}
    chain, seen, state, end = [], set(), result, 'none'
    while state is not None:
        if not is_state(state):
            end = 'other'
            break
        if id(state) in seen:
            end = 'cycle'
            break
        if len(chain) == MAX_CHAIN:
            end = 'cut'
            break
        seen.add(id(state))
        chain.append([code_of(state.get_stop_code()), number(state.get_time())])
        state = state.get_previous()
    return {'returned': {'kind': 'state', 'type': values.type_name(result)}, 'chain': chain, 'chain_end': end}


def code_of(value):
    return str.__str__(value)[:40] if isinstance(value, str) else None


def number(value):
    """An int or a finite float as plain JSON, else None."""
    item = values.plain(value)
    if item['kind'] == 'int':
        return item['value']
    if item['kind'] == 'float':
        number = float(item['repr'])
        return number if number == number and abs(number) != float('inf') else None
    return None


class Expansions:
    """Counting wrappers on the CityMap class for the duration of one search."""

    def __init__(self, city_class):
        self.city_class = city_class
        self.count = 0
        self.calls = dict.fromkeys(COUNTED, 0)
        self.order = []
        self.current = None
        self.wrappers = {}

    def note(self, name, code, time):
        self.calls[name] += 1
        current = self.current
        if current is None or code != current[0] or \
                (time is not None and current[1] is not None and time != current[1]):
            self.count += 1
            self.current = [code, time]
            if len(self.order) < MAX_ORDER:
                self.order.append(self.current)
        elif time is not None and current[1] is None:
            current[1] = time

    def wrap(self, name, original):
        note = self.note

        def wrapper(city, *args, **kwargs):
            code = args[0] if args else kwargs.get('from_code', kwargs.get('code'))
            time = args[2] if len(args) > 2 else kwargs.get('current_time')
            note(name, code_of(code), number(time) if time is not None else None)
            return original(city, *args, **kwargs)
        wrapper.__name__ = name
        return wrapper

    def __enter__(self):
        for name in COUNTED:
            original = self.city_class.__dict__.get(name)
            if callable(original):
                self.wrappers[name] = (original, self.wrap(name, original))
                setattr(self.city_class, name, self.wrappers[name][1])
        return self

    def __exit__(self, *exc):
        self.intact = all(self.city_class.__dict__.get(name) is wrapper
                          for name, (_, wrapper) in self.wrappers.items())
        for name, (original, _) in self.wrappers.items():
            setattr(self.city_class, name, original)
        return False

    def report(self):
        return {'count': self.count, 'calls': dict(self.calls), 'order': self.order,
                'intact': self.intact, 'wrapped': sorted(self.wrappers)}


def direct_call(module, payload, options):
    """The same student call as :func:`handle`, without instrumentation (benchmarks).

    Reads the network from the configured files (``stops_file`` ...), not
    from a private copy.
    """
    prefix = 'large_' if payload.get('network') == 'large' else ''
    city = module.CityMap(options[prefix + 'stops_file'], options[prefix + 'routes_file'])
    State = module.State
    if payload['kind'] == 'route':
        return city.search(city.get_stop(payload['start']), city.get_stop(payload['goal']), payload['departure'])
    State.goal = city.get_stop(payload['goal'])
    if payload['kind'] == 'heuristic':
        return State(city.get_stop(payload['stop']), 0).heuristic()
    first, second = (State(city.get_stop(s['stop']), s['time']) for s in (payload['first'], payload['second']))
    return first < second, second < first
