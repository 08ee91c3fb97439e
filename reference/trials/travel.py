"""Route-planner trials: ``CityMap(...).search(start, goal, departure)`` on many routes.

The space (:func:`space`) is drawn seeded from what a grade of the route planner meets on
the graded (small) city: route queries (origin, destination, departure minute 0-9) of
every length, a few with the start as the goal, at every departure minute; and the
``heuristic`` and ``comparator`` cases (a stop and a goal; two states and a goal) of the
fixture file's kinds.  A route costs about a millisecond to search, so a variant runs the
whole space in seconds.

What the graded checks accept (the judge's ``arrival``, ``route``, ``timeouts``,
``heuristic`` and ``comparator``):

- a route query: ``search`` returns a state whose chain along ``get_previous()`` ends in
  None, runs from the start at the departure time to the goal, each hop a tram edge and
  each time the previous one plus the fastest transition there (read from the network
  files by the oracle's own reader), and arrives at the earliest arrival; and the search
  makes at most :data:`EXPANSION_LIMIT` expansions per stop (the judge's
  ``expansion_limit``: a search past it is stopped and fails like a time-out);
- a heuristic case: ``heuristic()`` of a state at the stop, with ``State.goal`` the goal,
  is the distance / 260 within the relative and absolute tolerance ``TOLERANCE``;
- a comparator case: ``__lt__`` puts first, in both orders, the state with the smaller
  time + the variant's own ``heuristic()`` (either order when the two are equal).

Expansions are counted as the probe counts them (:func:`counted_search`).  A route's answer
keeps its
count, so a variant that only expands other stops is told apart from the reference (it is
then ``honest`` here, not ``equivalent``).  The ``efficiency`` check (expansions summed
over far-apart trips of the large city, at most 1.5 times the reference A*'s) is not
judged on this space: every grade meets the fixture's trip set and a drawn one, so a
variant that only expands too much loses those points in every grade without a position
of the pool.  A trip set (``{network: large, trips}``, as a grade draws it) is answered
and judged too, for ``bench/killers.py``, which meets the grade's own sets.
"""
import math
import random

from reference.oracles import travel as oracle

SOLUTION = 'travel/src/citymap.py'
"""The reference solution the variants are made from (in the reference folder)."""
SUBMITTED_AS = 'src/citymap.py'
"""Where a submission holds it (the handout's layout): seeds are drawn from its content."""
EXHAUSTIVE = False
DATA = {'stops_file': oracle.DEFAULT_OPTIONS['stops_file'],
        'routes_file': oracle.DEFAULT_OPTIONS['routes_file']}
"""The graded city the space is drawn on (grading.yaml's options): the pool records their
digests, and a course graded on other files draws no killers from it (it is told so)."""
LIMIT = 1.0
"""CPU seconds a variant may spend on one case: the reference needs a millisecond or two,
CityMap built from its files included (the grader allows 10 units, about 1 s)."""
BUDGET = 300
"""Wall seconds a variant may spend on the whole space."""
GRADED_TAGS = ('required', 'heuristic', 'comparator', 'efficiency')
"""The fixture cases whose checks carry points."""
EXPANSION_LIMIT = {'small': 100, 'large': 4}
"""Expansions per stop of the city after which a search is stopped (grading.yaml's
``timeouts`` ``expansion_limit`` and ``large_expansion_limit``)."""
MARGIN = 1.5
"""A trip set's expansions, at most this many times the reference A*'s (``efficiency``)."""
TOLERANCE = 1e-6
MAX_CHAIN = 5000
ROUTES, SAME_STOP, HEURISTICS, COMPARATORS = 1500, 20, 150, 150


class Exited(Exception):
    """The variant called ``exit()`` (its ``load_data`` found no file): the case fails, as
    a CityMap that cannot be built fails it in a grade."""


class Stopped(BaseException):
    """Raised inside a search past its expansion limit (not swallowed by ``except
    Exception``)."""


def network(name='small'):
    """The oracle's reading of the graded city (or the large one)."""
    return oracle.network_for({'network': name}, None)


def _files(name):
    options = oracle.DEFAULT_OPTIONS
    prefix = 'large_' if name == 'large' else ''
    return options[prefix + 'stops_file'], options[prefix + 'routes_file']


def space(seed=33):
    """The trial inputs: :data:`ROUTES` route queries (every departure minute equally often,
    start and goal seeded among the stops), :data:`SAME_STOP` with the start as the goal,
    :data:`HEURISTICS` heuristic cases and :data:`COMPARATORS` comparator cases, in a
    seeded order."""
    rng = random.Random(seed)
    city = network()
    codes = sorted(city.stops)
    inputs, seen = [], set()
    while len(inputs) < ROUTES:
        a, b = rng.sample(codes, 2)
        departure = len(inputs) % 10
        if (a, b, departure) not in seen and oracle.well_posed(
                city, {'input': {'start': a, 'goal': b, 'departure': departure}}):
            seen.add((a, b, departure))
            inputs.append({'start': a, 'goal': b, 'departure': departure})
    for k in range(SAME_STOP):
        code = rng.choice(codes)
        inputs.append({'start': code, 'goal': code, 'departure': k % 10})
    for _ in range(HEURISTICS):
        stop, goal = rng.sample(codes, 2)
        inputs.append({'stop': stop, 'goal': goal})
    inputs += comparators(city, rng, COMPARATORS)
    rng.shuffle(inputs)
    return inputs


def comparators(city, rng, count):
    """``count`` pairs of states where time + heuristic orders them otherwise than the time
    alone or the heuristic alone would (half each), as the fixture's comparator cases."""
    codes = sorted(city.stops)
    made = []
    while len(made) < count:
        goal, a, b = rng.sample(codes, 3)
        far, near = city.heuristic(a, goal), city.heuristic(b, goal)
        if far - near < 3:
            continue
        start = rng.randrange(10) + 10 * rng.randrange(4)
        later = start + (int((far - near) // 2) if len(made) % 2 else int(far - near) + 2)
        states = [{'stop': a, 'time': start}, {'stop': b, 'time': later}]
        if rng.random() < 0.5:
            states.reverse()
        made.append({'goal': goal, 'first': states[0], 'second': states[1]})
    return made


def cost(input):
    """How much a case costs, roughly: a route its straight-line length (in hundreds of
    points), the other cases nothing."""
    if 'trips' in input:
        return 1000
    if 'start' not in input:
        return 0
    return network().distance(input['start'], input['goal']) / 100


# ---------------------------------------------------------------- answers

def _code(value):
    return value if isinstance(value, str) else repr(value)


def _number(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return repr(value)
    return value if math.isfinite(value) else repr(value)


def _plain(value):
    """A value as JSON compares it: numbers and booleans as they are, the rest as text."""
    if isinstance(value, (bool, int, float)) and not (isinstance(value, float)
                                                      and not math.isfinite(value)):
        return value
    return repr(value)


def _is_state(value):
    return all(callable(getattr(value, name, None))
               for name in ('get_previous', 'get_stop_code', 'get_time'))


def chain_of(result):
    """``[returned, chain, end]``: ``'state'`` (or the type returned), the ``[code, time]``
    hops read along ``get_previous()`` (goal first), and how the walk ended."""
    if not _is_state(result):
        return ['none' if result is None else type(result).__name__, [], 'none']
    chain, seen, state, end = [], set(), result, 'none'
    while state is not None:
        if not _is_state(state):
            end = 'other'
            break
        if id(state) in seen or len(chain) == MAX_CHAIN:
            end = 'cycle' if id(state) in seen else 'cut'
            break
        seen.add(id(state))
        chain.append([_code(state.get_stop_code()), _number(state.get_time())])
        state = state.get_previous()
    return ['state', chain, end]


def counted_search(module, city, trip, limit):
    """``[returned, chain, end, expansions, stopped]`` of one search, stopped past ``limit``
    expansions.  Counted as the probe counts, the larger of two counts: the distinct states
    new states are made from (``State(stop, time, previous)``), and the listings of a
    stop's neighbours through ``get_neighbors_codes`` or ``get_neighbors``."""
    previous = {}       # id -> state: the states counted stay alive, their ids not reused
    listings = [0]
    patched = []

    def check():
        if max(len(previous), listings[0]) > limit:
            raise Stopped()

    def counted_init(original):
        def __init__(state, *args, **kwargs):
            original(state, *args, **kwargs)
            before = args[2] if len(args) > 2 else kwargs.get('previous')
            if before is not None and id(before) not in previous:
                previous[id(before)] = before
                check()
        return __init__

    def counted_listing(original):
        def listing(*args, **kwargs):
            listings[0] += 1
            check()
            return original(*args, **kwargs)
        return listing

    for owner, name, wrap in ((module.State, '__init__', counted_init),
                              (module.CityMap, 'get_neighbors_codes', counted_listing),
                              (module.CityMap, 'get_neighbors', counted_listing)):
        original = owner.__dict__.get(name)
        if callable(original):
            patched.append((owner, name, original))
            setattr(owner, name, wrap(original))
    try:
        result = city.search(city.get_stop(trip['start']), city.get_stop(trip['goal']),
                             trip['departure'])
        stopped = False
    except Stopped:
        result, stopped = None, True
    finally:
        for owner, name, original in patched:
            setattr(owner, name, original)
    return chain_of(result) + [max(len(previous), listings[0]), stopped]


def answer(module, input):
    """The variant's answer to one case, as plain JSON (see the module docstring)."""
    try:
        return _answer(module, input)
    except SystemExit:
        raise Exited() from None


def _answer(module, input):
    if 'trips' in input:
        return [_route(module, dict(trip, network=input['network'])) for trip in input['trips']]
    if 'start' in input:
        return _route(module, input)
    city = module.CityMap(*_files('small'))
    module.State.goal = city.get_stop(input['goal'])
    if 'stop' in input:
        return [_plain(module.State(city.get_stop(input['stop']), 0).heuristic())]
    first, second = (module.State(city.get_stop(s['stop']), s['time'])
                     for s in (input['first'], input['second']))
    return [_plain(first.heuristic()), _plain(second.heuristic()),
            _plain(first < second), _plain(second < first)]


def _route(module, input):
    name = input.get('network', 'small')
    city = module.CityMap(*_files(name))
    limit = EXPANSION_LIMIT[name] * len(network(name).stops)
    return counted_search(module, city, input, limit)


# ---------------------------------------------------------------- verdicts

def route_problem(city, input, answer):
    """'' when the ``arrival`` and ``route`` checks accept a route answer, else what is
    wrong (``timeouts`` fails with ``arrival``)."""
    returned, chain, end, _, stopped = answer
    if stopped:
        return 'stopped by its expansions'
    if returned != 'state':
        return 'no state returned'
    if end != 'none':
        return 'the chain does not end in None'
    hops = chain[::-1]
    if hops[0][0] != input['start'] or hops[0][1] != input['departure']:
        return 'the route does not leave the start at the departure'
    if hops[-1][0] != input['goal']:
        return 'the returned state is not at the goal'
    for (code, time), (after, when) in zip(hops, hops[1:]):
        if code not in city.stops or after not in city.neighbors(code):
            return 'a hop is not a tram edge'
        if isinstance(time, str) or when != time + city.fastest_transition(code, after, time):
            return 'a hop takes another time than the fastest tram'
    return ''


def verdict(input, expected, answer):
    """'' when the checks accept ``answer``, else what is wrong."""
    if not isinstance(answer, list):
        return answer
    if 'trips' in input:
        return _trips_verdict(input, expected, answer)
    if 'start' in input:
        problem = route_problem(network(), input, answer)
        if problem:
            return problem
        return '' if answer[1][0][1] == expected['arrival'] else 'not the earliest arrival'
    if 'stop' in input:
        value = answer[0]
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isclose(
                value, expected['heuristic'], rel_tol=TOLERANCE, abs_tol=TOLERANCE):
            return ''
        return 'heuristic wrong'
    return _order_verdict(input, answer)


def _order_verdict(input, answer):
    h1, h2, less, more = answer
    if not all(isinstance(h, (int, float)) and not isinstance(h, bool) for h in (h1, h2)):
        return 'heuristic not a number'
    if not all(isinstance(x, bool) or type(x) is int for x in (less, more)):
        return '__lt__ not True/False'
    less, more = bool(less), bool(more)
    f1, f2 = input['first']['time'] + h1, input['second']['time'] + h2
    if abs(f1 - f2) < 1e-9 or [less, more] == [f1 < f2, f2 < f1]:
        return ''
    return 'states out of order'


def _trips_verdict(input, expected, answer):
    city = network(input['network'])
    for trip, want, got in zip(input['trips'], expected['trips'], answer):
        problem = route_problem(city, trip, got) or (
            '' if got[1][0][1] == want['arrival'] else 'not the earliest arrival')
        if problem:
            return problem
    astar = sum(t['astar_expansions'] for t in expected['trips'])
    return '' if sum(got[3] for got in answer) <= MARGIN * astar else 'too many expansions'


def expect(input):
    return oracle.expect(input)

