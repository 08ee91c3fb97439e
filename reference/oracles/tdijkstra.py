"""Exact earliest-arrival search on a tram network (time-dependent Dijkstra).

Used by the route planner's oracle to produce expected arrivals and to
count expansions. The cost of a hop depends on the clock (waiting for the
next tram), and the network is FIFO (arriving later never lets one leave
earlier, since one may wait for the same tram), so settling each stop at
its earliest arrival time is exact.

Tie-breaking, which fixes the expansion counts: the frontier is a heap of
``(priority, stop_code)``; among equal priorities the smaller stop code (as
a string) is popped first. A stop's predecessor is replaced only by a
strictly earlier arrival.

Expansions: the number of stops settled (popped for the first time) before
the goal is popped. The start counts; the goal does not. Start equal to goal
gives 0.
"""

import heapq

from reference.oracles.trams import TOP_SPEED


def best_first(network, start, goal, departure, heuristic, arrival=None):
    """Best-first search on ``time + heuristic(stop)``; returns (hops, expansions).

    ``hops`` is the found route ``[(stop_code, time), ...]`` from start to
    goal, or None if the goal is unreachable.  ``arrival``, an empty dict when
    given, receives the arrival time the search found at every stop it reached.
    """
    arrival = {} if arrival is None else arrival
    arrival[start] = departure
    previous = {start: None}
    frontier = [(departure + heuristic(start), start)]
    explored = set()
    expansions = 0
    while frontier:
        _, code = heapq.heappop(frontier)
        if code in explored:
            continue
        if code == goal:
            return route_to(code, previous, arrival), expansions
        explored.add(code)
        expansions += 1
        time = arrival[code]
        for neighbor in network.neighbors(code):
            if neighbor in explored:
                continue
            reached = time + network.fastest_transition(code, neighbor, time)
            if neighbor not in arrival or reached < arrival[neighbor]:
                arrival[neighbor] = reached
                previous[neighbor] = code
                heapq.heappush(frontier, (reached + heuristic(neighbor), neighbor))
    return None, expansions


def route_to(code, previous, arrival):
    """Follow predecessors back from ``code``; return the hops start first."""
    hops = []
    while code is not None:
        hops.append((code, arrival[code]))
        code = previous[code]
    hops.reverse()
    return hops


def dijkstra(network, start, goal, departure, arrival=None):
    """Plain time-dependent Dijkstra (priority = arrival time).

    The arrival times it leaves in ``arrival`` (see :func:`best_first`) are those of
    :func:`earliest_arrivals` with ``until=goal``: the same stops are popped in the same
    order (a stop already settled is never improved on a FIFO network, so skipping it
    changes nothing), up to the goal.
    """
    return best_first(network, start, goal, departure, lambda code: 0, arrival)


def astar(network, start, goal, departure):
    """A* with the handout's heuristic, straight-line distance / TOP_SPEED."""
    goal_stop = network.stop(goal)

    def heuristic(code):
        stop = network.stop(code)
        distance = ((stop["x"] - goal_stop["x"]) ** 2 + (stop["y"] - goal_stop["y"]) ** 2) ** 0.5
        return distance / TOP_SPEED

    return best_first(network, start, goal, departure, heuristic)


def earliest_arrivals(network, start, departure, until=None):
    """Earliest arrival time at every stop reachable from ``start`` (full Dijkstra).

    With ``until`` (a stop code) the search ends when that stop is settled: the stops that
    arrive before it then have their earliest arrival, and every other stop listed an
    arrival no earlier than ``until``'s (stops not listed arrive no earlier either).
    """
    arrival = {start: departure}
    frontier = [(departure, start)]
    explored = set()
    while frontier:
        time, code = heapq.heappop(frontier)
        if code in explored:
            continue
        if code == until:
            break
        explored.add(code)
        for neighbor in network.neighbors(code):
            reached = time + network.fastest_transition(code, neighbor, time)
            if neighbor not in arrival or reached < arrival[neighbor]:
                arrival[neighbor] = reached
                heapq.heappush(frontier, (reached, neighbor))
    return arrival
