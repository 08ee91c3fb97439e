"""The tram network of the route planner, as the trusted side sees it.

Standard library only: this module is imported both by the grader's own
process and inside the sandboxed child.

A network is read from two JSON files, in the format of the route-planner
handout (see grader/schemas/network/):

* the stops file (handout: ``network.json``), an array of stops
  ``{code, name, address, x, y, neighbors}``, where ``neighbors`` maps each
  neighbouring stop code to the codes of the route directions that serve
  that directed edge;
* the routes file (handout: ``lines.json``), an array of route directions
  ``{code, codeShort, name, x[], y[], stopCodes[], stopTimes[]}``, where
  ``stopTimes[i]`` is the number of minutes since the tram left its first
  stop.

Timetable rule of the handout: every route direction leaves its first stop
every ``TRAM_INTERVAL`` minutes, at whole multiples of ten, so a tram of
route ``r`` passes its i-th stop at minutes ``stopTimes[i] + 10k``.

A *route* (an answer to a query) is written here as a list of hops
``[(stop_code, time), ...]`` from the start to the goal, with absolute
times in minutes; the start hop's time is the departure time.
"""

import functools
import json
import math
import os

MAX_TRAM_SPEED = 260.0
"""Coordinate points per minute; the heuristic divides distance by this."""

TRAM_INTERVAL = 10
"""Minutes between two trams of one route direction."""


def load_json(path):
    """Return the JSON document stored at ``path`` (read as UTF-8)."""
    with open(path, encoding="utf-8") as file:
        return json.load(file)


def shared(stops_file, routes_file):
    """The :class:`Network` of two files, read once per process: the judge and the oracle
    that answers the drawn trips read the same files, and neither changes the network."""
    return _read(_real(stops_file), _real(routes_file))


@functools.lru_cache(maxsize=32)
def _real(path):
    """``os.path.realpath(path)``, kept per process: the judge asks for its network about
    once a case (a few system calls each time otherwise)."""
    return os.path.realpath(path)


@functools.lru_cache(maxsize=8)
def _read(stops_file, routes_file):
    return Network.from_files(stops_file, routes_file)


def time_to_string(minutes):
    """Render minutes as the handout does: ``23m`` or ``1h3m``."""
    if minutes >= 60:
        return "%dh%dm" % (minutes // 60, minutes % 60)
    return "%dm" % minutes


def dist(p1, p2):
    """Straight-line distance between two stops (mappings with ``x``, ``y``)."""
    return math.sqrt((p1["x"] - p2["x"]) ** 2 + (p1["y"] - p2["y"]) ** 2)


class Network:
    """Stops and route directions, with the handout's transition rule.

    ``stops`` and ``routes`` are the decoded JSON arrays; they are kept as
    dicts keyed by code, in file order.
    """

    def __init__(self, stops, routes):
        self.stops = {stop["code"]: stop for stop in stops}
        self.routes = {route["code"]: route for route in routes}
        self._position = {}
        for route in routes:
            for i, code in enumerate(route["stopCodes"]):
                # The handout looks the stop up with list.index: first occurrence.
                self._position.setdefault((route["code"], code), i)

    @classmethod
    def from_files(cls, stops_file, routes_file):
        """Load a network from its stops file and routes file."""
        return cls(load_json(stops_file), load_json(routes_file))

    def stop(self, code):
        """The stop mapping of ``code``."""
        return self.stops[code]

    def neighbors(self, code):
        """Mapping neighbouring stop code -> route codes serving the edge."""
        return self.stops[code]["neighbors"]

    def has_edge(self, from_code, dest_code):
        """True when some route runs directly from ``from_code`` to ``dest_code``."""
        return from_code in self.stops and dest_code in self.stops[from_code]["neighbors"]

    def fastest_transition(self, from_code, dest_code, current_time):
        """Minutes from ``current_time`` at ``from_code`` until arrival at ``dest_code``.

        The handout's provided rule: for each route r serving the edge, with
        i the index of ``from_code`` in r's stopCodes, the wait is
        ``(stopTimes[i] % 10 - current_time % 10) mod 10`` and the ride is
        ``stopTimes[i+1] - stopTimes[i]``; the result is the smallest
        wait + ride.
        """
        best = None
        for route_code in self.stops[from_code]["neighbors"][dest_code]:
            times = self.routes[route_code]["stopTimes"]
            i = self._position[(route_code, from_code)]
            wait = (times[i] % TRAM_INTERVAL - current_time % TRAM_INTERVAL) % TRAM_INTERVAL
            ride = times[i + 1] - times[i]
            if best is None or wait + ride < best:
                best = wait + ride
        return best

    def distance(self, code_a, code_b):
        """Straight-line distance between two stops, by code."""
        return dist(self.stops[code_a], self.stops[code_b])

    def heuristic(self, code, goal_code):
        """The handout's lower bound: distance to the goal / MAX_TRAM_SPEED."""
        return self.distance(code, goal_code) / MAX_TRAM_SPEED

    def segments(self):
        """Yield ``(route_code, from_code, dest_code, ride_minutes)`` for every hop of every
        route."""
        for route in self.routes.values():
            codes, times = route["stopCodes"], route["stopTimes"]
            for i in range(len(codes) - 1):
                yield route["code"], codes[i], codes[i + 1], times[i + 1] - times[i]


def check_network(network):
    """Consistency problems of a loaded network, as sentences (empty if none).

    Checks what a JSON Schema cannot: coordinates and times line up with the
    stop codes, stops are known, times start at 0 and never decrease, no
    route visits a stop twice, and the neighbour lists are exactly the hops
    of the routes.
    """
    problems = []
    from_routes = {}
    for route in network.routes.values():
        problems += _route_problems(network, route, from_routes)
    from_stops = {}
    for stop in network.stops.values():
        for dest, route_codes in stop["neighbors"].items():
            from_stops[(stop["code"], dest)] = list(route_codes)
    for edge in sorted(set(from_routes) | set(from_stops)):
        if sorted(from_routes.get(edge, [])) != sorted(from_stops.get(edge, [])):
            problems.append("edge %s -> %s: neighbours list %s, routes give %s"
                            % (edge[0], edge[1], from_stops.get(edge, []),
                               from_routes.get(edge, [])))
    return problems


def _route_problems(network, route, from_routes):
    """Problems of one route of ``network``; its hops are added to ``from_routes``
    ({(from, to): [route codes]}) when its lists have one length."""
    problems = []
    code, codes = route["code"], route["stopCodes"]
    lengths = {len(codes), len(route["stopTimes"]), len(route["x"]), len(route["y"])}
    if len(lengths) != 1:
        return ["route %r: stopCodes, stopTimes, x and y differ in length" % code]
    if len(set(codes)) != len(codes):
        problems.append("route %r visits a stop twice" % code)
    if route["stopTimes"][0] != 0:
        problems.append("route %r: the first stop time is not 0" % code)
    for i, stop_code in enumerate(codes):
        stop = network.stops.get(stop_code)
        if stop is None:
            problems.append("route %r: unknown stop %r" % (code, stop_code))
        elif (stop["x"], stop["y"]) != (route["x"][i], route["y"][i]):
            problems.append("route %r: coordinates of stop %r differ from the stops file"
                            % (code, stop_code))
        if i and route["stopTimes"][i] < route["stopTimes"][i - 1]:
            problems.append("route %r: stop times decrease at stop %r" % (code, stop_code))
        if i:
            from_routes.setdefault((codes[i - 1], stop_code), []).append(code)
    return problems


def check_route(network, hops, start=None, goal=None, departure=None):
    """Problems of a route given as hops ``[(stop_code, time), ...]``, start first.

    Returns a list of sentences, empty when the route is valid: it starts at
    ``start`` at the ``departure`` time and ends at ``goal`` (each checked
    only when given), every hop follows a tram edge, and every time equals
    the previous time plus the fastest transition between the two stops.
    """
    problems = []
    if not hops:
        return ["the route is empty"]
    first_code, first_time = hops[0]
    last_code = hops[-1][0]
    if start is not None and first_code != start:
        problems.append("the route starts at %s, not at the start stop %s" % (first_code, start))
    if departure is not None and first_time != departure:
        problems.append("the start state's time is %s, not the departure time %s"
                        % (first_time, departure))
    if goal is not None and last_code != goal:
        problems.append("the route ends at %s, not at the goal stop %s" % (last_code, goal))
    for (code, time), (next_code, next_time) in zip(hops, hops[1:]):
        if code not in network.stops or next_code not in network.stops:
            unknown = code if code not in network.stops else next_code
            problems.append("%s is not a stop of this network" % (unknown,))
            break
        if not network.has_edge(code, next_code):
            problems.append("no tram runs directly from %s to %s" % (code, next_code))
            break
        expected = time + network.fastest_transition(code, next_code, time)
        if next_time != expected:
            problems.append("leaving %s at %s, the fastest tram reaches %s at %s, not at %s"
                            % (code, time_to_string(time), next_code,
                               time_to_string(expected), time_to_string(next_time)))
            break
    return problems


def render_route(network, hops):
    """A route as text, one hop a line: time, stop code and stop name."""
    lines = []
    for code, time in hops:
        stop = network.stops.get(code)
        name = stop["name"] if stop else "(unknown stop)"
        lines.append("%7s  %s  %s" % (time_to_string(time), code, name))
    return "\n".join(lines)
