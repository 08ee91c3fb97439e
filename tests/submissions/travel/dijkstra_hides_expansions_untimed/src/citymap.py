"""The Dijkstra of dijkstra_hides_expansions (two expansions in five out of the counter's
sight) that also asks fastest_transition for no time at all: every ride comes from its own
copy, so the expansions it lets the counter see carry no clock time.  The States it makes
from one another still do: made from in the order of time alone, they show no A*.
"""

import json
import math
import os
from queue import PriorityQueue
import heapq

MAX_TRAM_SPEED = 260.0
"""Coordinate points per minute; no tram is faster."""

STOPS_FILE = "network.json"
ROUTES_FILE = "lines.json"


def dist(p1, p2):
    """Straight-line distance between two stops (dicts with "x" and "y")."""
    return math.sqrt((p1["x"] - p2["x"]) ** 2 + (p1["y"] - p2["y"]) ** 2)


def time_to_string(t):
    """Minutes as text: 23 -> "23m", 63 -> "1h3m"."""
    if t >= 60:
        return "%dh%dm" % (t // 60, t % 60)
    return "%dm" % t


def load_data(file):
    """Read a JSON data file from the exercise root (the folder above src/)."""
    root = os.path.join(os.path.dirname(os.path.realpath(__file__)), "..")
    path = os.path.join(root, file)
    if not os.path.exists(path):
        print("Data file %s not found" % path)
        exit()
    with open(path, encoding="utf-8") as f:
        return json.load(f)


class State:
    """A stop reached at an absolute clock time (minutes), linked to the state before it.

    ``State.goal`` holds the goal stop while a search runs; the heuristic and
    the ordering use it.
    """

    goal = None

    def __init__(self, stop, time=0, previous=None):
        self.stop = stop
        self.time = time
        self.previous = previous

    def get_stop_code(self):
        return self.stop["code"]

    def get_stop(self):
        return self.stop

    def get_previous(self):
        return self.previous

    def get_time(self):
        return self.time

    def heuristic(self):
        """Lower bound on the minutes left: distance to State.goal / MAX_TRAM_SPEED."""
        return dist(self.stop, State.goal) / MAX_TRAM_SPEED

    def __lt__(self, other):
        """Order states by f = time so far + heuristic, as A* pops them."""
        return self.time + self.heuristic() < other.time + other.heuristic()

    def __str__(self):
        """The route from this state back to the start, goal first."""
        parts = []
        state = self
        while state is not None:
            parts.append("[%s]%s(%s)" % (time_to_string(state.time), state.stop["code"], state.stop["name"]))
            state = state.previous
        return " -> ".join(parts)


class CityMap:
    """The tram network: stops and routes by code, and the A* route search."""

    def __init__(self, stops_file, routes_file):
        self.stops = {stop["code"]: stop for stop in load_data(stops_file)}
        self.routes = {route["code"]: route for route in load_data(routes_file)}

    def get_stop(self, code):
        return self.stops[code]

    def get_neighbors(self, code):
        """Neighbouring stop code -> codes of the routes running there directly."""
        return self.stops[code]["neighbors"]

    def get_neighbors_codes(self, code):
        return list(self.stops[code]["neighbors"])

    def fastest_transition(self, from_code, dest_code, current_time):
        """Minutes from current_time until a tram from from_code reaches dest_code.

        Trams of a route pass its i-th stop at stopTimes[i] + 10k, so the wait
        is (stopTimes[i] % 10 - current_time % 10) mod 10; the ride is
        stopTimes[i+1] - stopTimes[i]. The best route serving the edge wins.
        """
        best = None
        for route_code in self.stops[from_code]["neighbors"][dest_code]:
            times = self.routes[route_code]["stopTimes"]
            i = self.routes[route_code]["stopCodes"].index(from_code)
            wait = (times[i] % 10 - current_time % 10) % 10
            ride = times[i + 1] - times[i]
            if best is None or wait + ride < best:
                best = wait + ride
        return best

    def search(self, start, goal, time_of_beginning):
        """Dijkstra: the queue ordered by time alone; two expansions in five out of sight."""
        State.goal = goal
        frontier, pushed = [(time_of_beginning, 0, State(start, time_of_beginning))], 1
        explored = set()
        while frontier:
            _, _, state = heapq.heappop(frontier)
            code = state.get_stop_code()
            if code == goal["code"]:
                return state
            if code in explored:
                continue
            explored.add(code)
            hidden = len(explored) % 5 < 2
            neighbours = dict.keys(self.stops[code]["neighbors"]) if hidden \
                else self.get_neighbors_codes(code)
            for neighbor in list(neighbours):
                if neighbor not in explored:
                    if hidden:
                        time = state.get_time() + _ride(self, code, neighbor, state.get_time())
                        child = State(self.get_stop(neighbor), time)
                        child.previous = state
                    else:
                        time = state.get_time() + _ride(self, code, neighbor, state.get_time())
                        child = State(self.get_stop(neighbor), time, state)
                    pushed += 1
                    heapq.heappush(frontier, (time, pushed, child))
        return None


def _ride(city, from_code, dest_code, current_time):
    """fastest_transition's own lines, out of the counter's sight."""
    best = None
    for route_code in dict.__getitem__(city.stops[from_code]["neighbors"], dest_code):
        times = city.routes[route_code]["stopTimes"]
        i = city.routes[route_code]["stopCodes"].index(from_code)
        wait = (times[i] % 10 - current_time % 10) % 10
        ride = times[i + 1] - times[i]
        if best is None or wait + ride < best:
            best = wait + ride
    return best
