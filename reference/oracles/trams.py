"""The tram network as the answer key reads it: stops, route directions, timetable, speed.

Written for the oracle alone, sharing no code with the judge's
``grader/exercises/travel/network.py`` (``tests/test_rules_against_oracles.py``
compares the two on every edge and many times of day), so that a mistake in
either shows as a disagreement instead of being made twice.

The files are the handout's: the stops file, an array of
``{code, name, x, y, neighbors: {stop code: [route codes]}, ...}``, and the
routes file, an array of route directions ``{code, stopCodes, stopTimes, ...}``
where ``stopTimes[i]`` counts minutes since the tram left its first stop.

The handout's timetable: a tram of every route direction leaves its first stop
at each whole multiple of ten minutes.  Leaving a stop at minute ``t`` on the
edge to a neighbour, one waits for the next tram of a route serving that edge
and rides to the neighbour; the transition is the fastest such wait plus ride.
Within a route the stop is found as the handout's ``list.index`` finds it (its
first visit).  The handout's heuristic divides the straight-line distance by the
top speed of a tram, :data:`TOP_SPEED` coordinate points a minute.
"""
import functools
import json
import math
import os

TOP_SPEED = 260.0
"""The handout's MAX_TRAM_SPEED: coordinate points a tram covers in a minute, at most."""

HEADWAY = 10
"""Minutes between two trams of one route direction."""


def read(path):
    with open(path, encoding="utf-8") as file:
        return json.load(file)


@functools.lru_cache(maxsize=8)
def _city(stops_path, routes_path):
    return City(read(stops_path), read(routes_path))


def city(stops_file, routes_file):
    """The :class:`City` of two files, read once per process."""
    return _city(os.path.realpath(stops_file), os.path.realpath(routes_file))


def straight_line(a, b):
    """Straight-line distance between two stop mappings (the handout's ``dist``)."""
    return math.sqrt((a["x"] - b["x"]) ** 2 + (a["y"] - b["y"]) ** 2)


def _first_visits(route):
    """Stop code -> index of its first visit in ``route``'s stopCodes (what ``list.index``
    finds), for every stop of the route at once."""
    found = {}
    for at, code in enumerate(route["stopCodes"]):
        found.setdefault(code, at)
    return found


class City:
    """Stops (``stops``: code -> stop mapping, file order) and route directions (``routes``)."""

    def __init__(self, stops, routes):
        self.stops = {stop["code"]: stop for stop in stops}
        self.routes = {route["code"]: route for route in routes}
        first_visits = {code: _first_visits(route) for code, route in self.routes.items()}
        self._departures = {}
        for stop in stops:
            for dest in stop["neighbors"]:
                self._departures[(stop["code"], dest)] = [
                    self._leg(self.routes[code], first_visits[code][stop["code"]])
                    for code in stop["neighbors"][dest]]

    @staticmethod
    def _leg(route, at):
        """(minute past each ten when a tram of ``route`` leaves its stop ``at``, minutes of
        the ride)."""
        times = route["stopTimes"]
        return times[at] % HEADWAY, times[at + 1] - times[at]

    def stop(self, code):
        return self.stops[code]

    def neighbors(self, code):
        """Neighbouring stop code -> the route codes serving the edge."""
        return self.stops[code]["neighbors"]

    def fastest_transition(self, from_code, dest_code, minute):
        """Minutes from ``minute`` at ``from_code`` until the fastest arrival at ``dest_code``."""
        clock = minute % HEADWAY
        fastest = None
        for leaves, ride in self._departures[(from_code, dest_code)]:
            minutes = (leaves - clock) % HEADWAY + ride
            if fastest is None or minutes < fastest:
                fastest = minutes
        return fastest

    def distance(self, code_a, code_b):
        """Straight-line distance between two stops (the handout's ``dist``, rounded as it is)."""
        return straight_line(self.stops[code_a], self.stops[code_b])

    def heuristic(self, code, goal_code):
        """The handout's lower bound on the minutes left: distance / :data:`TOP_SPEED`."""
        return self.distance(code, goal_code) / TOP_SPEED
