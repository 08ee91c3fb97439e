"""Route-planner judge: runs in the parent and decides every check.

The network is configurable: ``options.stops_file`` / ``routes_file`` in
grading.yaml name the graded city (the shipped one, or e.g. the real course
network) and ``large_stops_file`` / ``large_routes_file`` the city of the
efficiency trips; ``grader fixtures --regenerate`` makes the expected answers
for whatever network is configured.  :meth:`Travel.prepare` copies the files
into the private copy under the names the handout uses (``stops_name``,
``routes_name``, default ``network.json`` / ``lines.json``, at the exercise
root next to ``src/``) and the large city under ``large/``.

Checks (points come from grading.yaml):

- ``arrival``: the time of the state at the goal end of the returned chain
  (the returned state; or the last one, when the list was linked forwards)
  is the earliest arrival.  Any route reaching it is right.
- ``route``: following ``previous`` from the returned state, every hop is an
  edge of the network, every time is the previous time plus the provided
  ``fastest_transition``, the first state is the start at the departure
  time, and the list ends in None.  An optimal route is not required here.
- ``heuristic``: ``heuristic()`` is the straight-line distance to
  ``State.goal`` / 260 (relative tolerance ``tolerance``) on the fixture
  pairs.  That this never overestimates is a property of the shipped
  network (tested in tests/test_travel_reference.py), not a per-query check:
  on other networks, such as the course's Helsinki data, trams may outrun
  260 points a minute, and a correct heuristic is not failed for that.
- ``comparator``: ``__lt__`` orders two states by time + the submission's
  own ``heuristic()``, in both orders, on pairs where that ordering disagrees
  with ordering by time only or by heuristic only.  A heuristic with a wrong
  speed fails ``heuristic``, not this.
- ``efficiency``: on each set of far-apart trips on the large city (the
  fixture's, and the set drawn at grading time), the expansions counted in
  the child (see :mod:`grader.exercises.travel.probe`) summed over the
  trips must be at most ``margin`` times the reference A*'s total on the
  same trips, and every trip must arrive on time.  Dijkstra (heuristic 0)
  expands about twice as many.  The order in which stops were expanded is
  reported as a fact (``search_order``): A* (f = time + distance/260 never
  decreases), time only (Dijkstra), or breadth-first (number of stops never
  decreases).
- ``timeouts``: every small-city query answered within its calibrated limit,
  with the right arrival.  Every search is also stopped once it has made
  more expansions than ``expansion_limit`` per stop of its city (a search
  that expands the same stops again and again): the case fails as a time-out
  would, decided by the count, the same on every machine.

Across cases (:meth:`Travel.review`), the counts are confirmed by the CPU
time measured outside the submission (:mod:`grader.judging.evidence`), and
answers count only where the submission's own search ran.
"""
import functools
import math
import shutil
from pathlib import Path

from grader import doccache, poolanswers
from grader.exercises import base
from grader.exercises.travel import counts as tallied
from grader.exercises.travel import network as tram
from grader.judging import answers, evidence, feedback, review, shapes

STOPS_NAME, ROUTES_NAME = 'network.json', 'lines.json'
LARGE_FOLDER = 'large'
NUMBER = {'type': ['number', 'null']}
CODE = {'type': ['string', 'null'], 'maxLength': 40}
HOP = {'type': 'array', 'minItems': 2, 'maxItems': 2, 'prefixItems': [CODE, NUMBER]}
RETURNED = {'oneOf': [shapes.PLAIN_ITEM, {
    'type': 'object', 'required': ['kind'], 'additionalProperties': False,
    'properties': {'kind': {'const': 'state'}, 'type': shapes.NAME}}]}
OBSERVATION = {
    # what the student's code returned and did, nothing else (no count, no clock: the parent
    # reads those from outside the case process)
    'type': 'object',
    'required': ['network_error', 'error'],
    'additionalProperties': False,
    'properties': {
        'network_error': {'type': ['string', 'null'], 'maxLength': 20000},
        'error': {'type': ['string', 'null'], 'maxLength': 20000},
        'goal_set': {'type': 'boolean'},
        'returned': RETURNED,
        'chain': {'type': 'array', 'items': HOP, 'maxItems': 5000},
        'chain_end': {'enum': ['none', 'cycle', 'cut', 'other']},
        'value': shapes.PLAIN_ITEM,
        'heuristics': {'type': 'array', 'items': shapes.PLAIN_ITEM, 'minItems': 2, 'maxItems': 2},
        'less': {'type': 'array', 'items': shapes.PLAIN_ITEM, 'minItems': 2, 'maxItems': 2},
    },
    # A returned State comes with the walk along its previous links.
    'if': {'required': ['returned'],
           'properties': {'returned': {'required': ['kind'],
                                       'properties': {'kind': {'const': 'state'}}}}},
    'then': {'required': ['chain', 'chain_end']},
}
BASELINE_EVERY = 2
"""A set of counted trips is searched with a baseline request (it builds the CityMap and
searches nothing: what a case costs besides the search, subtracted from the CPU time of
the trips) before its first trip and after every this many trips: the fixture's five
trips with three, the drawn set's three with two.  Taken among the trips, not in a row at
the lane's end: building the large city (about 50 ms, 1.3 MB of JSON) runs slower in
bursts when another process is busy with memory, and one burst over three baselines in a
row once made an honest A* with an adjacency of its own (3-4 ms a trip, not countable)
look like no search at all.  Each trip is searched again until its searches (not the
building, see :func:`grader.child.runs.runs`) took ``work_seconds``: about 50 ms of search
beside the building's 35-80 ms, so what the building varies by moves a trip's time per
search by a fraction of it (counted from the building, a slow machine's 75 ms of building
spent the budget, left one run of 3-15 ms, and the matrix's load once hid two honest
searches)."""


def with_baselines(trips):
    """The positions of a set's requests: ``'baseline'`` or the index of a trip (see
    :data:`BASELINE_EVERY`)."""
    layout = []
    for k in range(trips):
        if k % BASELINE_EVERY == 0:
            layout.append('baseline')
        layout.append(k)
    return layout
SEARCH_FLOOR_UNITS = 0.025
"""CPU time per search of a far-apart trip on the efficiency city, in calibration units,
below which no search ran.  Measured in the sandbox (the median over the trips, the
baseline subtracted; unit 0.041-0.048 s): the reference A* 24-41 ms, Dijkstra 29-44 ms,
greedy best-first (the fewest expansions of any search here, about 100) 2.3-4.5 ms, a table
of answers 0.1-0.65 ms (under the load of a test run, once above 0.9 ms); 0.025 units is
1.0-2.5 ms (units of 0.04-0.10 s measured here as the load changed)."""
NO_SEARCH = ('answered without a search: neither counted expansions nor the CPU time of the '
             'far-apart trips show one (a table of answers earns nothing)')
SEARCH_FLOOR_SHARE = 0.05
"""The same floor as a share of the baseline (a case that builds the large city's CityMap
and searches nothing, 22-32 ms here): greedy best-first 0.09-0.15 of it, the fastest A*
(an adjacency of its own, stop codes on the queue) 0.2-0.3, a table of answers 0.003-0.03."""


def network_of(settings, which='small'):
    prefix = 'large_' if which == 'large' else ''
    return tram.shared(settings.options[prefix + 'stops_file'],
                       settings.options[prefix + 'routes_file'])


STOP_COUNT = b'travel: stops of a city, v1'
"""What the document cache keeps a city's number of stops under, with its file's digest."""


def stop_count(settings, which='small'):
    """How many stops the ``which`` city has (``len(network_of(settings, which).stops)``),
    kept in the document cache (:mod:`grader.doccache`) by the stops file's digest: the
    limits of a plan need only that number, and reading the efficiency city (1.3 MB of
    JSON, about 17 ms) is left to the judging of its trips, off the way to the first case."""
    path = settings.options[('large_' if which == 'large' else '') + 'stops_file']
    count = _counted.get(path)
    if count is None:
        key = doccache.key(STOP_COUNT, poolanswers.file_digest(path).encode())
        count = doccache.get(key)
        if type(count) is not int or count < 0:
            count = len(network_of(settings, which).stops)
            doccache.put(key, count)
        _counted[path] = count
    return count


_counted = {}
"""``{stops file: stops}`` counted in this process, as :func:`network_of` keeps each network
it read: every request of a trip set and every judged trip asks."""


def provided_names(settings):
    """The file names the handout's load_data is given: (stops, routes)."""
    return (settings.options.get('stops_name', STOPS_NAME),
            settings.options.get('routes_name', ROUTES_NAME))


def minutes(value):
    if value is None:
        return '(no time)'
    if isinstance(value, float) and not value.is_integer():
        return f'{value:g} min'
    return tram.time_to_string(int(value))


def stop_label(network, code):
    stop = network.stops.get(code)
    return f'{code} ({stop["name"]})' if stop else f'{code} (not a stop)'


def draw(network, hops, keep=8):
    """A route hop by hop, start first; long routes keep both ends."""
    lines = []
    for code, time in hops:
        where = stop_label(network, code) if code is not None else '(no stop code)'
        lines.append(f'{minutes(time):>8}  {where}')
    if len(lines) > 2 * keep + 1:
        skipped = f'{"":>8}  ... {len(lines) - 2 * keep} more stops ...'
        lines = lines[:keep] + [skipped] + lines[-keep:]
    return '\n'.join('    ' + line for line in lines)


def read_route(case_input, observation):
    """``(hops start first, arrival, problems for the route check, problem for the arrival)``.

    The arrival is the time of the state at the goal end of the chain: the
    returned state for a backward-linked list (the handout's), the last
    state for a list linked forwards.
    """
    returned = observation.get('returned', {})
    if returned.get('kind') != 'state':
        if returned.get('kind') == 'none':
            why = ('search returned None instead of the goal state: return the state of the goal '
                   'when it is taken off the queue (printing the route is not enough)')
        else:
            why = (f'search returned a {returned.get("type", returned.get("kind"))}, not a State: '
                   'return the goal State, linked back to the start through previous')
        return [], None, [why], why
    chain = observation['chain']
    start, goal = case_input['start'], case_input['goal']
    end = observation['chain_end']
    problems = []
    if end == 'cycle':
        problems.append('following previous from the returned state comes back to a state '
                        'already seen (the list has a cycle) instead of ending in None')
    elif end == 'cut':
        problems.append('following previous from the returned state does not end in None')
    elif end == 'other':
        problems.append('a state\'s previous is neither a State nor None')
    if any(time is None for _, time in chain):
        problems.append("a state's get_time() is not a number")
    forwards = (chain and chain[0][0] != goal and chain[-1][0] == goal and chain[0][0] == start
                and len(chain) > 1)
    if forwards:
        problems.insert(0, 'the list is linked forwards (start first): search must return the '
                           'goal state, whose previous leads back stop by stop to the start state')
        hops = [tuple(h) for h in chain]
    else:
        hops = [tuple(h) for h in reversed(chain)]
    if hops and hops[-1][0] == goal:
        return hops, hops[-1][1], problems, None
    where = chain[0][0] if chain else None
    return hops, None, problems, f'the returned state is at stop {where}, not at the goal {goal}'


def search_call(network, case_input):
    return (f"CityMap.search(stop {stop_label(network, case_input['start'])}, "
            f"stop {stop_label(network, case_input['goal'])}, {case_input['departure']})")


def arrival_cause(hops, arrival, expected):
    if arrival > expected['arrival']:
        if 1 < len(hops) < len(expected['hops']):
            return ('The route has fewer stops than the optimal one but arrives later: the search '
                    'seems to minimise the number of stops (breadth-first), not the arrival time.')
        return ('The goal was taken off the queue before a faster route: order the queue by time '
                '+ heuristic(), make the heuristic a lower bound (distance / 260), and test for '
                'the goal when a state is popped, not when it is pushed.')
    return ('This is earlier than any tram allows: the time of a move must be the current time '
            'plus fastest_transition(from, to, current_time), waiting for the tram included.')


def route_cause(problems):
    text = ' '.join(problems)
    if 'linked forwards' in text:
        return 'Return the goal state as it comes off the queue; do not reverse the list.'
    if 'fastest tram reaches' in text:
        return ('Use the provided fastest_transition with the state\'s own time: the wait for the '
                'next tram depends on the clock.')
    if 'departure time' in text:
        return 'The start state\'s time is time_of_beginning.'
    return ''


@functools.lru_cache(maxsize=64)
def hop_levels(network, start):
    """Number of stops from ``start`` to every reachable stop (breadth-first).

    Kept per process (the same mapping for the same network and start: read it, never
    change it): both orders of every trip of an efficiency set ask for it."""
    level, frontier, hops = {start: 0}, [start], 0
    while frontier:
        hops += 1
        following = []
        for code in frontier:
            for neighbor in network.neighbors(code):
                if neighbor not in level:
                    level[neighbor] = hops
                    following.append(neighbor)
        frontier = following
    return level


def expansion_order(network, trip, order):
    """Which keys never decrease along one trip's expansions: a subset of {'f', 'time', 'hops'}.

    ``f`` is time + distance/260 (A*'s order with the handout's heuristic,
    which is consistent on the shipped cities), ``time`` the clock alone
    (Dijkstra), ``hops`` the number of stops from the start (breadth-first).
    Expansions without a time (no fastest_transition call: every neighbour
    already explored) are left out of the timed orders.  Fewer than ten
    expansions tell nothing.
    """
    stops = [(code, time) for code, time in order if code in network.stops]
    timed = [(code, time) for code, time in stops if time is not None]
    levels = hop_levels(network, trip['start'])
    series = {'hops': [levels.get(code, math.inf) for code, _ in stops]}
    if len(timed) >= len(stops) / 2:  # an expansion whose neighbours were all explored has no time
        series['f'] = [time + network.heuristic(code, trip['goal']) for code, time in timed]
        series['time'] = [time for _, time in timed]
    return {name for name, values in series.items()
            if len(values) >= 10 and all(b >= a - 1e-9 for a, b in zip(values, values[1:]))}


NOT_ASTAR = ('time only (Dijkstra)', 'breadth-first')
"""Orders of expansion that tell a search is not A* (an A* with the handout's heuristic, which
is consistent, expands in non-decreasing time + heuristic; 'unclear' tells nothing)."""


def describe_order(orders):
    """One name for the order seen on every trip: 'A*', 'time only (Dijkstra)',
    'breadth-first' or 'unclear'.
    """
    for key, name in (('f', 'A*'), ('time', 'time only (Dijkstra)'), ('hops', 'breadth-first')):
        if orders and all(key in steady for steady in orders):
            return name
    return 'unclear'


class Travel(base.Exercise):
    name = 'travel'
    title = 'Tram route planner: time-dependent A*'
    files = ('citymap.py',)
    api_hint = 'keep the classes and method names of the handout'
    probe = 'grader.exercises.travel.probe'
    observation_schema = OBSERVATION
    checks = (
        base.Check('arrival', 'the returned goal state has the earliest arrival', 1.5),
        base.Check('route',
                   'a valid backward-linked route from the start at the departure time', 1.0),
        base.Check('heuristic', 'heuristic() is the straight-line distance / 260', 0.5),
        base.Check('comparator', '__lt__ orders states by time + heuristic()', 0.5),
        base.Check('efficiency',
                   'A* expands clearly fewer stops than Dijkstra on the large city', 1.0),
        base.Check('timeouts', 'every query answered within its time limit', 0.5),
    )

    # -- the private copy ------------------------------------------------
    def prepare(self, settings):
        """Copy the configured network files into the private copy, as the handout lays them
        out.
        """
        stops_name, routes_name = provided_names(settings)
        options = settings.options
        placed = [(options['stops_file'], stops_name), (options['routes_file'], routes_name),
                  (options['large_stops_file'], f'{LARGE_FOLDER}/{STOPS_NAME}'),
                  (options['large_routes_file'], f'{LARGE_FOLDER}/{ROUTES_NAME}')]

        def place(copy):
            for source, name in placed:
                target = Path(copy) / name
                if target.is_dir() and not target.is_symlink():
                    shutil.rmtree(target)
                elif target.exists() or target.is_symlink():
                    target.unlink()
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, target)
        return place

    def child_options(self, settings):
        stops_name, routes_name = provided_names(settings)
        return {'data': {'small': [stops_name, routes_name],
                         'large': [f'{LARGE_FOLDER}/{STOPS_NAME}',
                                   f'{LARGE_FOLDER}/{ROUTES_NAME}']},
                **{k: v for k, v in settings.options.items() if k.endswith('_file')}}

    def load_warnings(self, loaded, settings):
        """A hint when the module stopped at import, likely looking for its data files elsewhere."""
        if not loaded.ok:
            return []
        warnings = loaded.observation.get('warnings', [])
        printed = loaded.observation.get('probe', {}).get('printed', '')
        if not any('sys.exit()' in w for w in warnings):
            return []
        stops_name, routes_name = provided_names(settings)
        looked = ''
        if 'not found' in printed or '.json' in printed:
            looked = f" It printed: '{' '.join(printed.split())[-200:]}'."
        return [f'The grader provides the network as {stops_name} and {routes_name} in the '
                f'exercise root (the folder above src/), where the handout\'s load_data looks, and '
                f'passes CityMap their full paths.{looked} Keep the handout\'s file names and '
                "load_data, and put code that runs searches under `if __name__ == '__main__':`."]

    # -- cases and requests ------------------------------------------------
    @staticmethod
    def expansion_limit(settings, network):
        """Expansions after which one search is stopped: a factor times the city's stops."""
        factor = settings.check_param('timeouts', 'large_expansion_limit' if network == 'large'
                                      else 'expansion_limit', 4 if network == 'large' else 100)
        return int(factor * stop_count(settings, network))

    @staticmethod
    def _baseline_request(network):
        """A request that builds ``network``'s CityMap and searches nothing."""
        return base.Request({'kind': 'baseline', 'network': network},
                            'large' if network == 'large' else 'default')

    def request_count(self, case, settings):
        """As many as :meth:`requests` makes, without reading a network for the limits."""
        inp = case.input
        if 'trips' in inp and 'baseline' not in case.tags:
            return len(with_baselines(len(inp['trips'])))
        return 1

    def requests(self, case, settings):
        inp = case.input
        if 'baseline' in case.tags:
            return [self._baseline_request(inp['network'])]
        if 'trips' in inp:
            reps = int(settings.check_param('efficiency', 'reps', 24))
            work = float(settings.check_param('efficiency', 'work_seconds', 0.05))
            limit = self.expansion_limit(settings, inp['network'])
            # The first trip is searched twice at least: a search that remembers answers
            # between calls shows it there (the others are searched again only while quick).
            trips = inp['trips']
            return [self._baseline_request(inp['network']) if k == 'baseline' else
                    base.Request({'kind': 'route', 'network': inp['network'],
                                  'start': trips[k]['start'], 'goal': trips[k]['goal'],
                                  'departure': trips[k]['departure'], 'count': True,
                                  'reps': reps, 'at_least': 2 if k == 0 else 1, 'work': work,
                                  'limit': limit},
                                 'large' if inp['network'] == 'large' else 'default')
                    for k in with_baselines(len(trips))]
        if 'first' in inp:
            return [base.Request({'kind': 'order', 'goal': inp['goal'], 'first': inp['first'],
                                  'second': inp['second'], 'count': False})]
        if 'stop' in inp:
            return [base.Request({'kind': 'heuristic', 'stop': inp['stop'], 'goal': inp['goal'],
                                  'count': False})]
        network = inp.get('network', 'small')
        return [base.Request({'kind': 'route', 'network': network, 'start': inp['start'],
                              'goal': inp['goal'], 'departure': inp['departure'], 'count': True,
                              'reps': 1, 'limit': self.expansion_limit(settings, network)},
                             'large' if network == 'large' else 'default')]

    # -- judging -----------------------------------------------------------
    def judge(self, case, replies, settings):
        inp = case.input
        if 'baseline' in case.tags:
            reply, = replies
            return [self._baseline_outcome(case, reply)]
        if 'trips' in inp:
            layout = with_baselines(len(inp['trips']))
            if len(replies) != len(layout):     # the trips' replies alone
                return [self._judge_efficiency(case, replies, settings)]
            baselines = [self._baseline_outcome(case, reply)
                         for k, reply in zip(layout, replies) if k == 'baseline']
            trips = [reply for k, reply in zip(layout, replies) if k != 'baseline']
            return [*baselines, self._judge_efficiency(case, trips, settings)]
        reply, = replies
        if 'first' in inp:
            return [judge_order(case, reply, settings)]
        if 'stop' in inp:
            return [judge_heuristic(case, reply, settings)]
        return self._judge_route(case, reply, settings)

    @staticmethod
    def _baseline_outcome(case, reply):
        return review.baseline_outcome(case, reply, not reply.observation.get('network_error'),
                                       network=case.input['network'])

    def _judge_route(self, case, reply, settings):
        inp, expected = case.input, case.expected
        network = network_of(settings, inp.get('network', 'small'))
        wanted = [f"expected: arrival at {minutes(expected['arrival'])}; one optimal route:",
                  draw(network, [tuple(h) for h in expected['hops']])]
        note = feedback.Note(case, [search_call(network, inp), f'case {case.name} ({case.source})'],
                             wanted, no_expected=('route', 'timeouts'))
        checks = ('arrival', 'route', 'timeouts')
        failed = failure(reply)
        if failed:
            message, cause = failed
            return note.fail(checks, message, cause=cause, expected=False)
        obs = reply.observation
        log = tallied.expansions(reply, network.stops)
        if log.get('stopped'):
            limit = self.expansion_limit(settings, inp.get('network', 'small'))
            message, cause = stopped_sentences(limit, network, case.expected)
            return note.fail(checks, message, cause=cause, expected=False, kind='timeout',
                             measured={'expansions': log.get('count')})
        hops, arrival, route_problems, arrival_problem = read_route(inp, obs)
        if hops and not route_problems:
            route_problems += tram.check_route(network, hops, inp['start'], inp['goal'],
                                               inp['departure'])
        returned = ['returned (start first):', draw(network, hops)] if hops else []
        right = arrival_problem is None and arrival == expected['arrival']
        results = [judge_arrival(note, arrival, arrival_problem, hops, returned, right)]
        if route_problems:
            results.append(note.outcome('route', False, route_problems[0],
                                        cause=route_cause(route_problems), lines=returned))
        else:
            results.append(note.outcome('route', True, f'{len(hops)} stops, valid'))
        results.append(note.timed('timeouts', reply, right, 'the arrival is wrong',
                                  measured={'expansions': log.get('count'), 'cpu': reply.cpu,
                                            'walk': max(0, len(hops) - 1), 'right': right}))
        return results

    def _judge_efficiency(self, case, replies, settings):
        inp, expected = case.input, case.expected
        network = network_of(settings, inp['network'])
        margin = settings.check_param('efficiency', 'margin', 1.5)
        share = settings.check_param('efficiency', 'floor_share', 0.5)
        trips = inp['trips']
        astar = sum(t['astar_expansions'] for t in expected['trips'])
        dijkstra = sum(t['dijkstra_expansions'] for t in expected['trips'])
        counts, wrong, orders, calls, samples = [], [], [], {}, []
        first_wrong, stopped, tampered = None, None, None
        measured = {'reference_astar': astar, 'reference_dijkstra': dijkstra, 'margin': margin,
                    'samples': samples}
        note = feedback.Note(case, [f"{len(trips)} far-apart trips on the {inp['network']} city "
                                    f"({len(network.stops)} stops), case {case.name} "
                                    f"({case.source})"])

        def outcome(passed, message, lines=(), kind=''):
            return note.outcome('efficiency', passed, message, measured=measured, kind=kind,
                                lines=lines)

        for k, (trip, reply, want) in enumerate(zip(trips, replies, expected['trips']), 1):
            failed = failure(reply)
            if failed:
                measured['expansions'] = None
                return outcome(False, f'trip {k}: {failed[0]}',
                               [search_call(network, trip), failed[1]])
            obs = reply.observation
            log = tallied.expansions(reply, network.stops)
            if log.get('stopped'):
                samples.append({'case': f'{case.name} trip {k}', 'counts': list(log['counts']),
                                'cpu': reply.cpu, 'right': False, 'hidden': case.hidden,
                                'floor': 0})
                stopped = stopped or (k, trip, want)
                continue
            hops, arrival, _, problem = read_route(trip, obs)
            right = not problem and arrival == want['arrival']
            if not right:
                wrong.append(k)
                first_wrong = first_wrong or problem or (
                    f'trip {k} arrives at {minutes(arrival)}, not at the earliest arrival')
            # Sampled even when its counts cannot be trusted: the review still asks the CPU
            # time whether a search ran at all.
            samples.append({'case': f'{case.name} trip {k}', 'counts': list(log['counts']),
                            'cpu': reply.cpu, 'right': right, 'hidden': case.hidden,
                            'every_astar': want.get('floor_expansions', 0),
                            'floor': math.ceil(share * want.get('floor_expansions', 0))})
            if not log.get('intact', False):
                tampered = tampered or (k, log['problem'])
                samples[-1].update(tampered=True, bypassed=log['bypassed'])
                continue
            counts.append(log['count'])
            for name, n in log['calls'].items():
                calls[name] = calls.get(name, 0) + n
            # The order of the events, and that of the states made from (either may show it).
            orders.append(expansion_order(network, trip, log['order']) |
                          expansion_order(network, trip, log['made_order']))
        if tampered:
            return note.tampered('efficiency', tampered[1], measured, where=f'trip {tampered[0]}: ')
        if stopped:
            k, trip, want = stopped
            limit = self.expansion_limit(settings, inp['network'])
            message, cause = stopped_sentences(limit, network, want)
            return outcome(False, f'trip {k}: {message}', [search_call(network, trip), cause],
                           kind='timeout')
        return efficiency_verdict(outcome, measured, counts, calls, orders, wrong, first_wrong,
                                  trips)

    # -- across cases -------------------------------------------------------
    def review(self, outcomes, settings, context):
        """Confirm the expansion counts with the CPU time, and require a search behind the answers.

        The counted trips of the efficiency sets are the samples
        (:func:`grader.judging.evidence.confirm`): on each trip whose
        arrival is right, every run's count at least ``floor_share`` of the
        stops every A* expands there, the same count when the trip is
        searched again, and a steady CPU time per expansion across trips.
        Unconfirmed counts earn no efficiency.  Answers count only where the
        submission's own search ran: confirmed counts, counts that meet every
        trip's floor on its first run but not on its repeats (a search that
        remembers its answers), or CPU time on the far-apart trips that no
        look-up spends; otherwise every answer check fails with "answered
        without a search".
        """
        baseline = review.baselines(outcomes, network='large') or \
            review.baselines(outcomes, network='small')
        efficiency = [o for o in outcomes if o.check == 'efficiency']
        rows = [row for o in efficiency for row in o.measured.get('samples', ())]
        samples = [evidence.Sample(row['case'], row['counts'], row['cpu'], row['floor'],
                                   hidden=bool(row.get('hidden')))
                   for row in rows if row['right'] and not row.get('tampered')]
        found = evidence.confirm(samples, baseline, unit_name='expansions',
                                 spread=settings.check_param('efficiency', 'spread', 6.0),
                                 min_work=settings.check_param('efficiency', 'min_work', 0.004))
        why = None if found.confirmed else evidence_sentence(found, rows)
        facts = {'evidence_status': found.status,
                 **review.evidence_facts(found, 'expansion', why)}
        if not found.confirmed:
            review.withdraw_uncounted(efficiency, 'efficiency', why)
        # A trip whose searches were not all the grader's runs tells no CPU time per search.
        timed = [row for row in rows if not row.get('bypassed')]
        heavy = review.search_works([evidence.Sample(row['case'], row['counts'], row['cpu'])
                                     for row in timed], baseline)
        unit = context.get('unit') or 0.0
        # Two floors, either enough: calibration units (measured once per run), and a share of
        # the baseline (measured in the same sandbox beside the trips, so a load that comes and
        # goes during the run moves both alike).
        floor = min(SEARCH_FLOOR_UNITS * unit,
                    SEARCH_FLOOR_SHARE * evidence.overhead(baseline)[0]) \
            if baseline else SEARCH_FLOOR_UNITS * unit
        # A search behind every answer, though its repeats were answered from memory
        # (caching, which earns no efficiency): each trip's first run counted at least the
        # trip's floor of expansions.  Such a search's CPU time per run is its one search
        # shared out over the repeats, as small as the floor below, so time alone would
        # call it a table on some runs and not on others.
        remembered = found.status == evidence.CACHED and all(
            s.counts and s.counts[0] >= max(1, s.floor) for s in samples)
        searched = found.confirmed or remembered or evidence.searched_by_time(heavy, floor)
        facts['searched'] = searched
        public = [work for work, row in zip(heavy, timed) if not row.get('hidden')]
        if heavy:       # the time of the public trips only: none of a hidden or drawn one
            facts['search_cpu_per_trip'] = review.median(public, 6)
            facts['search_cpu_floor'] = round(floor, 6)
        if rows and not searched:
            review.withdraw_unsearched(outcomes, ('arrival', 'route', 'timeouts', 'efficiency'),
                                       NO_SEARCH)
        return outcomes, facts

    def facts(self, outcomes, settings):
        # The public trip set's measurements (generated sets come redacted, without any).
        efficiency = [o for o in outcomes if o.check == 'efficiency' and o.measured][:1]
        facts = {}
        for o in efficiency:
            m = o.measured
            facts.update({'expansions': m.get('total'), 'expansions_per_trip': m.get('expansions'),
                          'expansions_reference_astar': m.get('reference_astar'),
                          'expansions_reference_dijkstra': m.get('reference_dijkstra'),
                          'expansion_ratio': m.get('ratio'), 'search_order': m.get('search_order'),
                          'counted_calls': m.get('calls'), 'tampered': bool(m.get('tampered'))})
        # The case's CPU time as the parent measured it (the CityMap built and the search),
        # never a clock of the case process.
        seconds = [o.measured['cpu'] for o in outcomes
                   if o.check == 'timeouts' and o.measured.get('cpu') is not None]
        if seconds:
            facts['search_seconds_median'] = review.median(seconds)
            facts['search_seconds_max'] = max(seconds)
        return facts


def failure(reply):
    """``(message, cause)`` when the reply carries no answer, else None."""
    if not reply.ok:
        if reply.status == 'timeout':
            return base.failure_message(reply), ('It may be an endless loop, or a search that adds '
                                                 'states for stops it has already expanded.')
        return base.failure_message(reply), ''
    obs = reply.observation
    if obs.get('network_error'):
        return (f"CityMap could not load the network: {obs['network_error']}",
                'The grader passes CityMap the full paths of its network files; load_data must '
                'open the file it is given (os.path.join keeps a full path).')
    if obs.get('error'):
        cause = ''
        if obs.get('goal_set') is False:
            cause = ('search did not set State.goal, so heuristic() had no goal: assign '
                     'State.goal = goal at the start of search.')
        return obs['error'], cause
    return None


def judge_arrival(note, arrival, problem, hops, returned, right):
    """``arrival``: the goal state's time is the earliest arrival."""
    expected = note.case.expected
    if problem:
        return note.outcome('arrival', False, problem, lines=returned)
    if right:
        return note.outcome('arrival', True, f'arrival {minutes(arrival)}')
    message = (f"arrival {minutes(arrival)}, expected {minutes(expected['arrival'])}"
               if not note.case.hidden else f'arrival {minutes(arrival)} is not the earliest')
    cause = arrival_cause(hops, arrival, expected) if isinstance(arrival, (int, float)) else ''
    return note.outcome('arrival', False, message, cause=cause, lines=returned)


def judge_heuristic(case, reply, settings):
    """``heuristic``: the straight-line distance to the goal / 260."""
    network = network_of(settings)
    inp, expected = case.input, case.expected['heuristic']
    distance = network.distance(inp['stop'], inp['goal'])
    note = feedback.Note(case, [f"State(stop {stop_label(network, inp['stop'])}).heuristic() with "
                                f"State.goal = stop {stop_label(network, inp['goal'])}"],
                         f'expected: {expected:.4f} (distance {distance:.0f} / '
                         f'{tram.MAX_TRAM_SPEED:g})')
    failed = failure(reply)
    if failed:
        return note.outcome('heuristic', False, failed[0], cause=failed[1], expected=False)
    value = answers.plain_number(reply.observation['value'])
    tolerance = settings.check_param('heuristic', 'tolerance', 1e-6)
    if value is not None and math.isclose(value, expected, rel_tol=tolerance, abs_tol=tolerance):
        return note.outcome('heuristic', True, f'{value:.4f} min')
    shown = answers.describe_item(reply.observation['value']) if value is None else f'{value:.4f}'
    message = f'heuristic() returned {shown}' + (f', expected {expected:.4f}'
                                                 if not case.hidden else '')
    return note.outcome('heuristic', False, message, shown, heuristic_cause(value, expected))



def efficiency_verdict(outcome, measured, counts, calls, orders, wrong, first_wrong, trips):
    """The efficiency outcome of a trip set whose every trip was counted: the summed
    expansions against ``margin`` times the reference A*'s (``measured``)."""
    astar, dijkstra, margin = (measured['reference_astar'], measured['reference_dijkstra'],
                               measured['margin'])
    total = sum(counts)
    order = describe_order(orders)
    measured.update({'expansions': counts, 'total': total, 'calls': calls,
                     'search_order': order,
                     'ratio': round(total / astar, 3) if astar else None})
    summary = (f'{total} expansions over {len(trips)} trips ({", ".join(map(str, counts))}); '
               f'reference A* {astar} on the same trips, Dijkstra {dijkstra}; '
               f'expansion order: {order}')
    cause = order_cause(order, total, dijkstra)
    if wrong:
        return outcome(False, f'the arrival is wrong on trip(s) {", ".join(map(str, wrong))} '
                              f'({first_wrong}); {summary}', [cause], kind='wrong answer')
    if total == 0 and any(t['start'] != t['goal'] for t in trips):
        return outcome(False, 'could not be counted: no expansions seen (the search never '
                              "listed a stop's neighbours through CityMap or the stops it "
                              'holds, and made no State from another)',
                       ['Expand stops with the provided CityMap methods and make a State for '
                        'each neighbour reached.'], kind='not measured')
    if total <= margin * astar and order in NOT_ASTAR:
        # Few counted expansions, yet in an order no A* follows: expansions went unseen.
        return outcome(False, f'{summary}: they come in the order of {order}, which no A* '
                              f'follows, yet are within {margin:g} x the reference A*\'s: not '
                              'every expansion of the search was counted',
                       [cause or 'Order the queue by time + heuristic().'], kind='not measured')
    if total <= margin * astar:
        return outcome(True, summary)
    return outcome(False, f'{summary}: more than {margin:g} x the reference A*',
                   [cause or 'Expand each stop once (a closed set, or a best-time map) and '
                             'order the queue by time + heuristic().'])


def judge_order(case, reply, settings):
    """``comparator``: ``__lt__`` orders two states by time + the submission's own heuristic()."""
    network = network_of(settings)
    inp = case.input
    states = [f"{name} = State(stop {stop_label(network, s['stop'])}, time {s['time']})"
              for name, s in (('a', inp['first']), ('b', inp['second']))]
    note = feedback.Note(case, states + [f"State.goal = stop {stop_label(network, inp['goal'])}"])
    failed = failure(reply)
    if failed:
        return note.outcome('comparator', False, failed[0], cause=failed[1])
    obs = reply.observation
    own = [answers.plain_number(h) for h in obs['heuristics']]
    if None in own:
        return note.outcome('comparator', False, 'heuristic() returned ' + ' and '.join(
            answers.describe_item(h) for h in obs['heuristics'])
            + ', so time + heuristic() cannot be compared')
    less = [answers.truth(x) for x in obs['less']]
    if None in less:
        return note.outcome('comparator', False, '__lt__ returned ' + ' and '.join(
            answers.describe_item(x) for x in obs['less']) + ', not True/False',
            cause='__lt__ must return the comparison, True or False.')
    times = [inp['first']['time'], inp['second']['time']]
    f = [t + h for t, h in zip(times, own)]
    if abs(f[0] - f[1]) < 1e-9:
        return note.outcome('comparator', True, 'time + heuristic() is equal for both: any order')
    wanted = [f[0] < f[1], f[1] < f[0]]
    got = f'a < b is {less[0]}, b < a is {less[1]}'
    if less == wanted:
        return note.outcome('comparator', True, got)
    detail = [f'with your heuristic(): a has time + h = {times[0]} + {own[0]:.2f} = {f[0]:.2f}, '
              f'b has {times[1]} + {own[1]:.2f} = {f[1]:.2f}', f'returned: {got}',
              f'expected: a < b is {wanted[0]}, b < a is {wanted[1]}']
    return note.outcome('comparator', False,
                        f'{got}, but time + heuristic() puts {"a" if wanted[0] else "b"} first',
                        cause=order_mistake(less, wanted, times, own), lines=detail)


def order_mistake(less, wanted, times, own):
    """Which order ``__lt__`` follows instead of time + heuristic()."""
    if less == [times[0] < times[1], times[1] < times[0]]:
        return '__lt__ compares the times only (Dijkstra\'s order): add heuristic() to both sides.'
    if less == [own[0] < own[1], own[1] < own[0]]:
        return ('__lt__ compares heuristic() only (greedy best-first), which can miss the earliest '
                'arrival: compare time + heuristic().')
    if less == [not wanted[0], not wanted[1]]:
        return ('The comparison is reversed: a < b must be True when a has the smaller '
                'time + heuristic().')
    return '__lt__ must compare self.time + self.heuristic() with other.time + other.heuristic().'


def evidence_sentence(found, rows):
    """Why the expansion counts were not confirmed, in the route planner's words.

    Counts of a trip drawn at grading time, or of a hidden one, are not shown.
    """
    row = next((r for r in rows if r['case'] == found.details.get('case')), None)
    shown = row is not None and not row.get('hidden')
    if found.status == evidence.NOT_COUNTED:
        where = (f"{row['counts'][0]} expansions counted on {row['case']}, where every A* with the "
                 f"handout's heuristic expands {row['every_astar']} stops" if shown
                 else 'on a trip drawn at grading time, far fewer expansions were counted than '
                      'any A* makes there')
        return (f'{where}: the search went past what is counted (a stop\'s neighbours listed '
                'through CityMap or the stops it holds, a State made from another state)')
    if found.status == evidence.CACHED:
        where = (f"{row['case']} searched again on the same CityMap counted {min(row['counts'])} "
                 f"expansions instead of {row['counts'][0]}" if shown
                 else 'a trip searched again on the same CityMap counted fewer expansions')
        return (f'{where}: the search remembers answers between calls, which is caching, '
                'not searching less')
    if found.status == evidence.INCONSISTENT:
        between = (f'their time per expansion differs {found.spread:g} times between trips'
                   if found.spread is not None else 'a hidden or drawn trip among them')
        return f'the counted expansions do not follow the CPU time the searches used ({between})'
    return found.reason


def stopped_sentences(limit, network, expected):
    """``(message, cause)`` for a search stopped after ``limit`` expansions."""
    reference = expected.get('astar_expansions') if expected else None
    against = f' (the reference A* makes {reference} on this trip)' if reference is not None else ''
    return (f'stopped after more than {limit} expansions, '
            f'{limit // max(1, len(network.stops))} times '
            f'the {len(network.stops)} stops of the city{against}',
            'The search expands the same stops again and again: keep a closed set of expanded '
            'stops (or the best time found for each stop) and skip a state whose stop was already '
            'expanded.')


def order_cause(order, total, dijkstra):
    if order == 'time only (Dijkstra)' or (dijkstra and total >= 0.9 * dijkstra):
        return ('The search expands stops in order of time alone, as Dijkstra does: the heuristic '
                'is not guiding it (is heuristic() 0, or left out of __lt__?).')
    if order == 'breadth-first':
        return ('The search expands stops breadth-first, by number of stops: use a priority queue '
                'ordered by time + heuristic().')
    return ''


def heuristic_cause(value, expected):
    if value is None:
        return ('heuristic() must return a number: the straight-line distance to State.goal / '
                'MAX_TRAM_SPEED.')
    if value == 0 and expected > 0:
        return ('heuristic() returns 0: that never overestimates, but then A* is Dijkstra and '
                'expands many more stops. Return dist(self.stop, State.goal) / MAX_TRAM_SPEED.')
    if expected > 0 and math.isclose(value / expected, 10, rel_tol=0.01):
        return ('The distance is divided by 26, not by MAX_TRAM_SPEED = 260: the heuristic '
                'overestimates, and A* can then miss the earliest arrival.')
    if value > expected:
        return ('This overestimates the time left, so A* can miss the earliest arrival: divide by '
                'MAX_TRAM_SPEED.')
    return ('heuristic() must be the straight-line distance to State.goal divided by '
            'MAX_TRAM_SPEED (260).')


EXERCISE = Travel()
