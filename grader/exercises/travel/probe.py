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

    route:     {"network_error", "error", "goal_set", "returned", "chain", "chain_end",
                "expansions", "search_seconds"}
    baseline:  {"network_error", "error"}
    heuristic: {"network_error", "error", "value"}
    order:     {"network_error", "error", "heuristics": [v1, v2], "less": [first < second,
                second < first]}

``chain`` is the list of ``[stop code, time]`` read by following
``get_previous()`` from the returned state (at most :data:`MAX_CHAIN`
states); ``chain_end`` says how the walk ended: ``none`` (previous was
None), ``cycle`` (a state came back), ``cut`` (too long) or ``other``
(previous was not a state).  Values are plain data (:mod:`grader.sandbox.values`).

Expansions (``count``): while the search runs, three instruments watch it,
each where a search of the handout must pass:

- the methods ``get_neighbors``, ``get_neighbors_codes`` and
  ``fastest_transition`` of the student's ``CityMap`` class (replaced by
  counting wrappers);
- the neighbour mapping of every stop the CityMap holds (``stop['neighbors']``,
  replaced by a mapping that notes when its stop's neighbours are listed:
  iterated, or asked for its keys, items or values), so a search that reads
  ``self.stops`` directly is seen too;
- ``State.__init__`` (wrapped): every state the search makes names the state
  it was reached from (``previous``); each distinct such state is one
  expansion.

The first two give a sequence of events about stops.  An *expansion* starts
when an event is about another stop than the current expansion's, or about
the same stop at another clock time, or when ``fastest_transition`` is asked
again for a neighbour the current expansion already asked for (the same
state expanded again).  Listing a stop's neighbours twice in a row, or
through ``get_neighbors`` and then the mapping it returned, is one
expansion.  The count reported is the largest of the two instruments' counts
(events, states): a search cannot lower it by avoiding one of them.  Counts
are claims made in the student's process; the judge confirms them with the
CPU time measured outside (:mod:`grader.judging.evidence`).  The first
:data:`MAX_ORDER` event expansions are reported in order as ``[code, time]``
(time ``None`` when only the neighbour lists were asked for).

With ``reps`` (default 1), the same trip is searched up to that many times
on the same CityMap, each with fresh counters: ``at_least`` times (default
2, when ``reps`` allows), and again while the runs so far took less than
``work`` seconds of CPU time, so a quick search is timed over several runs; ``counts`` lists
each run's count (the parent divides the CPU time it measured by their
number) and the answer is the first run's (a later run that raises ends the
repeats; its count is not kept).  ``kind: baseline`` builds the CityMap
and puts the instruments in place, and searches nothing: the parent times
it to learn what a counted case costs besides the search.  With ``limit``, a
run is stopped (``stopped``) once it has made more than ``limit``
expansions: a search that expands stops again and again is stopped by its
count, the same on every machine, long before its time limit.
"""
import os

from grader.child import values
from grader.child.channel import describe as _describe
from grader.child.runs import runs

MAX_CHAIN = 5000
MAX_ORDER = 6000
COUNTED = ('get_neighbors', 'get_neighbors_codes', 'fastest_transition')
_saved = {}


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
    network = payload.get('network', 'small')
    city, problem = build_map(module, data_paths(options, network), ctx)
    observation = {'network_error': problem, 'error': None}
    if problem:
        return observation
    if kind == 'baseline':      # the counted trips' work besides the search
        Expansions(module, city)
        return observation
    state_class = module.State
    try:
        if kind == 'route':
            observation.update(route(module, city, payload, ctx))
        elif kind == 'heuristic':
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
    except Exception as exc:  # noqa: BLE001 - reported with what the search left behind
        observation['error'] = describe(exc, ctx.student_files)
        if kind == 'route':
            observation.setdefault('goal_set', goal_was_set(state_class, payload['goal']))
    return observation


def route(module, city, payload, ctx):
    """Run one search (``reps`` times when counted); the first run's chain, and the counts."""
    start, goal = city.get_stop(payload['start']), city.get_stop(payload['goal'])
    if not payload.get('count'):
        began = ctx.perf_counter()
        try:
            result = city.search(start, goal, payload['departure'])
        finally:
            seconds = ctx.perf_counter() - began
        observation = {'goal_set': goal_was_set(module.State, payload['goal']),
                       'search_seconds': round(seconds, 6), 'expansions': None}
        observation.update(read_chain(result))
        return observation
    log = Expansions(module, city, payload.get('limit'))
    observation, counts = None, []
    for _ in runs(payload):
        began = ctx.perf_counter()
        try:
            with log:
                result = city.search(start, goal, payload['departure'])
        except SearchStopped:
            result = None
        except Exception:       # noqa: BLE001 - a later run that fails leaves the first one's answer
            if observation is None:
                raise
            break
        finally:
            seconds = ctx.perf_counter() - began
        counts.append(log.count)
        if observation is None:
            observation = {'goal_set': goal_was_set(module.State, payload['goal']),
                           'search_seconds': round(seconds, 6), 'expansions': log.report()}
            observation.update(read_chain(result))
        if log.stopped or not log.intact:
            break
    observation['expansions'].update(counts=counts, intact=log.intact)
    return observation


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


class SearchStopped(BaseException):
    """Raised inside a search that made more expansions than its ``limit``.

    A ``BaseException``: ``except Exception`` in a search does not swallow it.
    """


class Neighbours(dict):
    """A stop's neighbour mapping that notes each time the neighbours are listed.

    Looking up one neighbour (``neighbors[code]``, ``code in neighbors``)
    is not a listing; iterating, ``keys()``, ``items()`` and ``values()``
    are.  Everything else is the plain dict's.
    """

    __slots__ = ('code', 'log')

    def __iter__(self):
        self.log.listed(self.code)
        return dict.__iter__(self)

    def keys(self):
        self.log.listed(self.code)
        return dict.keys(self)

    def items(self):
        self.log.listed(self.code)
        return dict.items(self)

    def values(self):
        self.log.listed(self.code)
        return dict.values(self)

    def __reduce_ex__(self, protocol):
        return dict, (dict(dict.items(self)),)


class Expansions:
    """Counts the expansions of one search (see the module's docstring); reusable for reps.

    The neighbour mappings are put in place once, when the log is made; the
    wrappers on the CityMap methods and on ``State.__init__`` for the
    duration of each ``with`` block, which also resets the counts.
    """

    def __init__(self, module, city, limit=None):
        self.city_class = module.CityMap
        self.state_class = module.State if isinstance(module.__dict__.get('State'), type) else None
        self.limit = limit if isinstance(limit, int) and limit > 0 else None
        self.mappings = self.instrument_stops(city)
        self.intact = True
        self.reset()

    def reset(self):
        self.events = 0
        self.calls = dict.fromkeys(COUNTED, 0)
        self.listings = 0
        self.order = []
        self.current = None
        self.previous = {}
        self.stopped = False
        self.wrappers = {}

    @property
    def count(self):
        return max(self.events, len(self.previous))

    # -- the stops' neighbour mappings ----------------------------------------
    def instrument_stops(self, city):
        """Put a :class:`Neighbours` in every stop mapping the CityMap holds (two levels deep)."""
        placed = []
        try:
            holders = list(dict.values(object.__getattribute__(city, '__dict__')))
        except (AttributeError, TypeError):
            return placed
        stops = []
        for holder in holders:
            if type(holder) is dict:
                stops.extend(dict.values(holder))
            elif type(holder) in (list, tuple):
                stops.extend(holder)
        for stop in stops[:200000]:
            if type(stop) is not dict:
                continue
            neighbors, code = dict.get(stop, 'neighbors'), dict.get(stop, 'code')
            if type(neighbors) is Neighbours:       # put in place by an earlier log
                mapping = neighbors
            elif type(neighbors) is dict:
                mapping = Neighbours(neighbors)
            else:
                continue
            mapping.code, mapping.log = code_of(code), self
            dict.__setitem__(stop, 'neighbors', mapping)
            placed.append((stop, mapping))
        return placed

    # -- events ----------------------------------------------------------------
    def check_limit(self):
        """Stop the search (again, if it caught the first stop) past its limit."""
        if self.limit is not None and self.count > self.limit:
            self.stopped = True
            raise SearchStopped()

    def start(self, code, time):
        self.events += 1
        self.current = [code, time, set()]
        if len(self.order) < MAX_ORDER:
            self.order.append([code, time])
        self.check_limit()

    def listed(self, code):
        """A stop's neighbours were listed (a method, or the mapping itself)."""
        if not self.active:
            return
        self.listings += 1
        current = self.current
        if current is None or code != current[0]:
            self.start(code, None)

    def transition(self, code, dest, time):
        """``fastest_transition(code, dest, time)`` was asked."""
        current = self.current
        if current is None or code != current[0] or \
                (time is not None and current[1] is not None and time != current[1]) or \
                dest in current[2]:
            self.start(code, time)
            current = self.current
        elif current[1] is None and time is not None:
            current[1] = time
            if self.events <= MAX_ORDER:
                self.order[self.events - 1][1] = time
        current[2].add(dest)

    def made(self, previous):
        """A state was made from ``previous`` (a distinct previous state is one expansion)."""
        if previous is not None and id(previous) not in self.previous:
            self.previous[id(previous)] = previous
            self.check_limit()

    # -- wrappers ----------------------------------------------------------------
    def wrap(self, name, original):
        log = self

        def wrapper(city, *args, **kwargs):
            code = args[0] if args else kwargs.get('from_code', kwargs.get('code'))
            if log.active:
                log.calls[name] += 1
                if name == 'fastest_transition':
                    dest = args[1] if len(args) > 1 else kwargs.get('dest_code')
                    time = args[2] if len(args) > 2 else kwargs.get('current_time')
                    log.transition(code_of(code), code_of(dest),
                                   number(time) if time is not None else None)
                else:
                    log.listed(code_of(code))
            return original(city, *args, **kwargs)
        wrapper.__name__ = name
        return wrapper

    def wrap_init(self, original):
        log = self

        def __init__(state, *args, **kwargs):
            original(state, *args, **kwargs)
            if log.active:
                log.made(args[2] if len(args) > 2 else kwargs.get('previous'))
        return __init__

    def __enter__(self):
        self.reset()
        for name in COUNTED:
            original = self.city_class.__dict__.get(name)
            if callable(original):
                self.wrappers[(self.city_class, name)] = (original, self.wrap(name, original))
        init = self.state_class.__dict__.get('__init__') if self.state_class else None
        if callable(init):
            self.wrappers[(self.state_class, '__init__')] = (init, self.wrap_init(init))
        for (owner, name), (_, wrapper) in self.wrappers.items():
            setattr(owner, name, wrapper)
        self.active = True
        return self

    def __exit__(self, *exc):
        self.active = False
        intact = all(owner.__dict__.get(name) is wrapper
                     for (owner, name), (_, wrapper) in self.wrappers.items())
        self.intact = self.intact and intact
        for (owner, name), (original, _) in self.wrappers.items():
            setattr(owner, name, original)
        return False

    active = False

    def report(self):
        return {'count': self.count, 'calls': dict(self.calls), 'order': self.order,
                'intact': self.intact, 'stopped': self.stopped, 'events': self.events,
                'states': len(self.previous), 'listings': self.listings,
                'mappings': len(self.mappings),
                'wrapped': sorted(name for _, name in self.wrappers)}


def direct_call(module, payload, options):
    """The same student call as :func:`handle`, without instrumentation (benchmarks).

    Reads the network from the configured files (``stops_file`` ...), not
    from a private copy.
    """
    prefix = 'large_' if payload.get('network') == 'large' else ''
    city = module.CityMap(options[prefix + 'stops_file'], options[prefix + 'routes_file'])
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
