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
     "departure": int, "count": bool, "reps": int, "at_least": int, "work": seconds,
     "limit": int | null}
    {"kind": "baseline", "network": "small"|"large"}
    {"kind": "heuristic", "stop": code, "goal": code}
    {"kind": "order", "goal": code, "first": {"stop", "time"}, "second": {"stop", "time"}}

Observations::

    route:     {"network_error", "error", "goal_set", "returned", "chain", "chain_end"}
    baseline:  {"network_error", "error"}
    heuristic: {"network_error", "error", "value"}
    order:     {"network_error", "error", "heuristics": [v1, v2], "less": [first < second,
                second < first]}

``chain`` is the list of ``[stop code, time]`` read by following
``get_previous()`` from the returned state (at most :data:`MAX_CHAIN`
states); ``chain_end`` says how the walk ended: ``none`` (previous was
None), ``cycle`` (a state came back), ``cut`` (too long) or ``other``
(previous was not a state).  Values are plain data (:mod:`grader.sandbox.values`).

Expansions (``count``) are counted by the C counter (:mod:`grader.child.tally`), never
by the probe: nothing of the count is in the reply.  While a search runs, the counter
watches three things, each where a search of the handout must pass (:func:`units`):

- the calls of the submission's ``get_neighbors`` and ``get_neighbors_codes`` (a stop's
  neighbours listed) and ``fastest_transition`` (a neighbour reached at a clock time), by
  name, with their arguments read by the counter;
- the neighbour mapping of every stop the CityMap holds (``stop['neighbors']``, replaced
  before the search by the counter's ``neighbours`` mapping: iterating it, or asking for its
  keys, items or values, is a listing of its stop's neighbours; looking one up is not), so a
  search that reads ``self.stops`` directly is seen too;
- ``State.__init__`` (a function ``__init__`` called on a ``State``): every state the search
  makes names the state it was reached from (``previous``); each distinct such state is one
  expansion.

The first two give a sequence of events about stops.  An *expansion* starts when an event
is about another stop than the current expansion's, or about the same stop at another
clock time, or when ``fastest_transition`` is asked again for a neighbour the current
expansion already asked for (the same state expanded again).  Listing a stop's neighbours
twice in a row, or through ``get_neighbors`` and then the mapping it returned, is one
expansion.  A run's count is the larger of the two (events, states): a search cannot lower
it by avoiding one of them.  The judge confirms the counts with the CPU time measured
outside (:mod:`grader.judging.evidence`).  The first 6,000 event expansions of the first
run are noted in order (stop, clock time).

With ``reps`` (default 1), the same trip is searched up to that many times on the same
CityMap (:func:`grader.child.runs.runs`), each a run of its own.  The first run builds the
CityMap, searches and reads the returned chain: every call of the submission's code once the
input is given is inside a run, where the counter sees it.  ``kind: baseline`` builds the
CityMap and places the mappings in one run and searches nothing: the parent times it to
learn what a counted case costs besides the search.  With ``limit``, a run is stopped once
it has made more than ``limit`` expansions (the counter raises its ``Stopped`` in the
search, again at every later event if the search catches it): a search that expands stops
again and again is stopped by its count, the same on every machine, long before its time
limit.
"""
import os

from grader.child import tally, values
from grader.child.channel import describe as _describe
from grader.child.runs import clock, runs

MAX_CHAIN = 5000
METHODS = ('get_neighbors', 'get_neighbors_codes', 'fastest_transition')
"""The CityMap methods whose calls are events (in :func:`units`' order)."""
COUNTED = True
"""Route searches are counted by the C counter (heuristic and order requests say
``count: False``)."""
_saved = {}


def units(options):
    """The functions the counter watches, by name, with their roles (``_tally.c``)."""
    return ('listing:get_neighbors', 'listing:get_neighbors_codes',
            'transition:fastest_transition', 'made:State.__init__')


def stop_after(payload):
    """The expansions after which a run is stopped (the request's ``limit``; 0: never)."""
    limit = payload.get('limit') if isinstance(payload, dict) else None
    return limit if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0 else 0


def load(module, options, ctx):
    """Whether the module defines the handout's State and CityMap.search."""
    namespace = module.__dict__
    state, city = namespace.get('State'), namespace.get('CityMap')
    missing = [name for name, obj in (('State', state), ('CityMap', city))
               if not isinstance(obj, type)]
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
    paths = data_paths(options, payload.get('network', 'small'))
    if kind in ('baseline', 'route'):   # every call of the submission inside a run
        return route(module, paths, payload, ctx)
    city, problem = build_map(module, paths, ctx)
    observation = {'network_error': problem, 'error': None}
    if problem:
        return observation
    state_class = module.State
    try:
        if kind == 'heuristic':
            state_class.goal = city.get_stop(payload['goal'])
            stop = state_class(city.get_stop(payload['stop']), 0)
            observation['value'] = values.plain(stop.heuristic())
        else:
            state_class.goal = city.get_stop(payload['goal'])
            first, second = (state_class(city.get_stop(s['stop']), s['time'])
                             for s in (payload['first'], payload['second']))
            observation['heuristics'] = [values.plain(first.heuristic()),
                                         values.plain(second.heuristic())]
            observation['less'] = [values.plain(first < second), values.plain(second < first)]
    except Exception as exc:  # noqa: BLE001 - the student's failure is data
        observation['error'] = describe(exc, ctx.student_files)
    return observation


def route(module, paths, payload, ctx):
    """The first run (build, search, read), then the repeats; the first run's observation.

    The repeats' budget (:func:`~grader.child.runs.runs`) counts from the first run's search,
    not from the building of the CityMap, which is not search."""
    trip = {}
    tally.search(_first_run, module, paths, payload, ctx, trip)
    observation = trip['observation']
    if payload['kind'] == 'route' and payload.get('count') and 'search' in trip:
        for _ in runs(payload, began=trip['began'], done=1):
            try:
                tally.search(*trip['search'])
            except tally.stopped():
                break
            except Exception:  # noqa: BLE001 - a later run that fails leaves the first one's answer
                break
    return observation


def _first_run(module, paths, payload, ctx, trip):
    """Build the CityMap and place the neighbour mappings; for a route, search once and read
    what was returned (``trip['observation']``, and ``trip['search']`` to search again)."""
    city, problem = build_map(module, paths, ctx)
    observation = trip['observation'] = {'network_error': problem, 'error': None}
    if problem:
        return
    place_mappings(city)
    if payload['kind'] == 'baseline':   # the counted trips' work besides the search
        return
    state_class, result = module.State, None
    try:
        start, goal = city.get_stop(payload['start']), city.get_stop(payload['goal'])
        try:
            trip['began'] = clock()
            result = city.search(start, goal, payload['departure'])
            trip['search'] = (city.search, start, goal, payload['departure'])  # to repeat
        except tally.stopped():     # stopped: not searched again
            result = None
    except Exception as exc:  # noqa: BLE001 - reported with what the search left behind
        observation['error'] = describe(exc, ctx.student_files)
    observation['goal_set'] = goal_was_set(state_class, payload['goal'])
    if observation['error'] is None:
        observation.update(read_chain(result))


def place_mappings(city):
    """Put the counter's neighbour mapping in every stop mapping the CityMap holds (two
    levels deep): listing one is a listing of its stop's neighbours.  Returns how many."""
    try:
        holders = list(dict.values(object.__getattribute__(city, '__dict__')))
    except (AttributeError, TypeError):
        return 0
    stops, placed = [], 0
    for holder in holders:
        if type(holder) is dict:
            stops.extend(dict.values(holder))
        elif type(holder) in (list, tuple):
            stops.extend(holder)
    for stop in stops[:200000]:
        if type(stop) is not dict:
            continue
        neighbors = dict.get(stop, 'neighbors')
        if type(neighbors) is dict:
            dict.__setitem__(stop, 'neighbors', tally.neighbours(neighbors,
                                                                   code_of(dict.get(stop, 'code'))))
            placed += 1
    return placed


def goal_was_set(state_class, goal_code):
    goal = state_class.__dict__.get('goal')
    return isinstance(goal, dict) and dict.get(goal, 'code') == goal_code


def is_state(obj):
    return all(callable(getattr(obj, name, None))
               for name in ('get_previous', 'get_stop_code', 'get_time'))


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
    return {'returned': {'kind': 'state', 'type': values.type_name(result)},
            'chain': chain, 'chain_end': end}


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


def direct_runs(module, payload, options):
    """The same student calls as :func:`handle` makes for ``payload``, without
    instrumentation (benchmarks): one CityMap, its search, and the repeats
    :func:`route` makes on it, by the same budget.  Returns how many searches
    (or calls) were made.

    Reads the network from the configured files (``stops_file`` ...), not
    from a private copy.
    """
    if payload['kind'] != 'route':
        direct_call(module, payload, options)
        return 1
    city = _direct_city(module, payload, options)
    start, goal = city.get_stop(payload['start']), city.get_stop(payload['goal'])
    began = clock()
    city.search(start, goal, payload['departure'])
    made = 1
    for _ in runs(payload, began=began, done=1):
        city.search(start, goal, payload['departure'])
        made += 1
    return made


def _direct_city(module, payload, options):
    prefix = 'large_' if payload.get('network') == 'large' else ''
    return module.CityMap(options[prefix + 'stops_file'], options[prefix + 'routes_file'])


def direct_call(module, payload, options):
    """One student call of ``payload`` (its first run), without instrumentation."""
    city = _direct_city(module, payload, options)
    State = module.State
    if payload['kind'] == 'baseline':
        return None
    if payload['kind'] == 'route':
        return city.search(city.get_stop(payload['start']), city.get_stop(payload['goal']),
                           payload['departure'])
    State.goal = city.get_stop(payload['goal'])
    if payload['kind'] == 'heuristic':
        return State(city.get_stop(payload['stop']), 0).heuristic()
    first, second = (State(city.get_stop(s['stop']), s['time'])
                     for s in (payload['first'], payload['second']))
    return first < second, second < first
