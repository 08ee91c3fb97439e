"""Oracle of the tram route planner (time-dependent A*, the CityMap exercise).

Route cases, input ``{start, goal, departure}`` with stop codes and the
departure minute 0-9 (plus ``network: large`` for the efficiency city), give

* ``arrival`` — the earliest arrival at the goal, in absolute minutes (the
  start state's time is the departure), by exact time-dependent Dijkstra;
* ``hops`` — one optimal route, ``[[stop_code, time], ...]`` start first
  (information only: equal-arrival alternatives exist);
* ``dijkstra_expansions`` and ``astar_expansions`` — stops expanded before
  the goal is popped by plain time-dependent Dijkstra and by A* with the
  handout's heuristic (tie-breaking in reference/oracles/tdijkstra.py);
* ``floor_expansions`` — the stops every A* with the handout's heuristic
  expands, whatever its tie-breaking: those whose earliest arrival plus
  heuristic is below the goal's earliest arrival (with a consistent
  heuristic A* expands each of them before it pops the goal; Dijkstra, whose
  heuristic is 0, expands them too).  The judge holds confirmed expansion
  counts to a share of it.

Heuristic cases, input ``{stop, goal}``, give ``heuristic``: the
straight-line distance divided by the top tram speed (260 points a minute).

Comparator cases, input ``{goal, first: {stop, time}, second: {stop, time}}``
(two states and the goal), give ``heuristics`` (of the two states) and, for
each ordering, whether the first state leaves the queue before the second:
``f_first`` (time + heuristic, A*), ``time_first`` and ``heuristic_first``.
The pairs are built so that f disagrees with one of the other two.

The efficiency case, input ``{network: large, trips: [{start, goal,
departure}, ...]}``, gives ``trips``: the route expectations above for each
trip, in order.  Its expansion counts are judged as a total over the trips.

``options`` holds absolute paths ``stops_file`` and ``routes_file`` (the
graded city) and ``large_stops_file`` and ``large_routes_file`` (the
efficiency city); missing keys default to the shipped cities.

Trips drawn at grading time (:func:`generate`, for every official grade):
route queries on the graded city of several lengths (short, middle, long
by straight-line distance) at every departure minute, and one set of
far-apart trips on the efficiency city.

``python -m reference.oracles.travel --write fixtures/travel.yaml`` writes the
fixture file.
"""

import argparse
import functools
import random
from pathlib import Path

from reference.oracles import tdijkstra, trams

REPO = Path(__file__).resolve().parents[2]
DEFAULT_OPTIONS = {
    "stops_file": str(REPO / "fixtures/travel/network.json"),
    "routes_file": str(REPO / "fixtures/travel/lines.json"),
    "large_stops_file": str(REPO / "fixtures/travel/large/network.json"),
    "large_routes_file": str(REPO / "fixtures/travel/large/lines.json"),
}
MAX_TRIES = 10000
"""Seeded draws tried before a case generator settles for fewer cases."""
SMALL_SOURCE = "generated: small city (reference/citygen.py)"
LARGE_SOURCE = "generated: large city (reference/citygen.py)"


def load(stops_file, routes_file):
    """The network of two files, read by the oracle's own reader (:mod:`trams`) once per
    process: the oracle is called once per case."""
    return trams.city(stops_file, routes_file)


def network_for(input, options):
    """The network a case runs on: the graded city, or the large one for ``network: large``."""
    options = {**DEFAULT_OPTIONS, **(options or {})}
    if input.get("network", "small") == "large":
        return load(options["large_stops_file"], options["large_routes_file"])
    return load(options["stops_file"], options["routes_file"])


def expect(input, options=None):
    """Expected mapping of one case (route, heuristic, comparator or trip-set case)."""
    network = network_for(input, options)
    if "trips" in input:
        return {"trips": [expect_route(network, trip) for trip in input["trips"]]}
    if "first" in input:
        return expect_order(network, input)
    if "stop" in input:
        return {"heuristic": network.heuristic(input["stop"], input["goal"])}
    return expect_route(network, input)


def expect_order(network, input):
    """The three orderings of a comparator case's two states."""
    first, second = input["first"], input["second"]
    h1 = network.heuristic(first["stop"], input["goal"])
    h2 = network.heuristic(second["stop"], input["goal"])
    return {"heuristics": [h1, h2],
            "f_first": first["time"] + h1 < second["time"] + h2,
            "time_first": first["time"] < second["time"],
            "heuristic_first": h1 < h2}


def expect_route(network, input):
    """Earliest arrival, one optimal route and the expansion counts of one trip."""
    start, goal, departure = input["start"], input["goal"], input["departure"]
    (hops, dijkstra_expansions), (astar_hops, astar_expansions), floor = solve(
        network, start, goal, departure)
    if hops is None:
        raise ValueError("no route from %s to %s in this network" % (start, goal))
    if astar_hops[-1][1] != hops[-1][1]:
        raise ValueError("on this network the handout's heuristic overestimates between %s and %s: "
                         "A* arrives at %d, the earliest arrival is %d; drop this case"
                         % (start, goal, astar_hops[-1][1], hops[-1][1]))
    return {
        "arrival": hops[-1][1],
        "hops": [[code, time] for code, time in hops],
        "dijkstra_expansions": dijkstra_expansions,
        "astar_expansions": astar_expansions,
        "floor_expansions": floor,
    }


@functools.lru_cache(maxsize=256)
def solve(network, start, goal, departure):
    """``(dijkstra, astar, floor)`` of one trip: the results of the two searches and the
    :func:`surely_expanded` count, read off the arrivals Dijkstra found (None when the goal
    cannot be reached).  Kept: drawing a trip solves it before expect does."""
    arrival = {}
    dijkstra = tdijkstra.dijkstra(network, start, goal, departure, arrival)
    floor = arriving_sooner(network, goal, arrival) if goal in arrival else None
    return dijkstra, tdijkstra.astar(network, start, goal, departure), floor


def surely_expanded(network, start, goal, departure):
    """Stops other than the goal whose earliest arrival + heuristic is below the goal's arrival.

    Each of them arrives before the goal, so the search for the arrivals ends at the goal:
    the stops it leaves unsettled arrive no earlier than the goal and are never counted.
    """
    return arriving_sooner(network, goal,
                           tdijkstra.earliest_arrivals(network, start, departure, until=goal))


def arriving_sooner(network, goal, arrival):
    """How many stops of ``arrival`` (stop -> arrival time, the goal's its earliest, every
    stop arriving before it exact) other than the goal arrive, heuristic added, before it."""
    best = arrival[goal]
    return sum(1 for code, time in arrival.items()
               if code != goal and time + network.heuristic(code, goal) < best - 1e-9)


def route_case(name, source, tags, start, goal, departure, network=None):
    input = {"start": start, "goal": goal, "departure": departure}
    if network:
        input["network"] = network
    return {"name": name, "source": source, "tags": list(tags), "input": input}


def needs_transfer(network, start, goal):
    """True when no single route direction runs from ``start`` to ``goal``."""
    for route in network.routes.values():
        codes = route["stopCodes"]
        if start in codes and goal in codes[codes.index(start) + 1:]:
            return False
    return True


def farthest_pair(network):
    """The two stops farthest apart in straight line (ties: smallest codes, as numbers).

    One pass over the pairs with the stops at hand, the codes compared only on a tie.
    """
    stops = sorted(network.stops.items())
    farthest, pair = -1.0, None
    for index, (a, stop_a) in enumerate(stops):
        for b, stop_b in stops[index + 1:]:
            distance = trams.straight_line(stop_a, stop_b)
            if distance > farthest or distance == farthest and \
                    (int(a), int(b)) < (int(pair[0]), int(pair[1])):
                farthest, pair = distance, (a, b)
    return pair


def small_city_cases(network):
    rng = random.Random("travel-small")
    codes = sorted(network.stops)
    cases = []
    start = rng.choice(codes)
    cases.append(route_case("start-is-goal", SMALL_SOURCE + ", start equal to goal",
                            ["required", "start-is-goal"], start, start, 3))
    start = rng.choice(codes)
    cases.append(route_case("one-hop", SMALL_SOURCE + ", two neighbouring stops",
                            ["required", "short"], start, sorted(network.neighbors(start))[0], 5))
    one_way = [c for c in codes if any(c not in network.neighbors(n) for n in network.neighbors(c))]
    if one_way:  # a network whose every edge runs both ways has no such case
        start = rng.choice(one_way)
        back = [n for n in sorted(network.neighbors(start)) if start not in network.neighbors(n)][0]
        cases.append(route_case("one-way-street",
                                SMALL_SOURCE + ", neighbours along a one-way loop, back again",
                                ["required", "one-way"], back, start, 1))
    a, b = farthest_pair(network)
    cases.append(route_case("long-across-city", SMALL_SOURCE + ", the two stops farthest apart",
                            ["required", "long"], a, b, 0))
    cases.append(route_case("long-across-city-back",
                            SMALL_SOURCE + ", the two stops farthest apart, back",
                            ["required", "long"], b, a, 7))
    transfers = []
    far = min(1500, 0.3 * network.distance(*farthest_pair(network)))
    for _ in range(MAX_TRIES):  # a small foreign network may offer fewer than four
        if len(transfers) == 4:
            break
        a, b = rng.sample(codes, 2)
        if needs_transfer(network, a, b) and network.distance(a, b) > far:
            transfers.append((a, b))
    for k, (a, b) in enumerate(transfers, start=1):
        cases.append(route_case("transfer-%d" % k,
                                SMALL_SOURCE + ", no single line joins the stops, seeded pick",
                                ["required", "transfer"], a, b, rng.randrange(10)))
    for k in range(1, 4):
        a, b = rng.sample(codes, 2)
        for departure in range(10):
            cases.append(route_case("sweep-%d-minute-%d" % (k, departure),
                                    SMALL_SOURCE + ", seeded pair %d at every departure minute" % k,
                                    ["required", "departure-sweep"], a, b, departure))
    for k in range(1, 9):
        a, b = rng.sample(codes, 2)
        cases.append(route_case("random-%d" % k, SMALL_SOURCE + ", seeded pick",
                                ["required"], a, b, rng.randrange(10)))
    return cases


def heuristic_cases(network):
    rng = random.Random("travel-heuristic")
    codes = sorted(network.stops)
    a, b = farthest_pair(network)
    pairs = [("heuristic-at-goal", "the stop is the goal", codes[0], codes[0]),
             ("heuristic-farthest", "the two stops farthest apart", a, b),
             ("heuristic-neighbours", "two neighbouring stops", a, sorted(network.neighbors(a))[0])]
    for k in range(1, 6):
        stop, goal = rng.sample(codes, 2)
        pairs.append(("heuristic-%d" % k, "seeded pick", stop, goal))
    return [{"name": name, "source": SMALL_SOURCE + ", " + what, "tags": ["heuristic"],
             "input": {"stop": stop, "goal": goal}} for name, what, stop, goal in pairs]


def comparator_cases(network):
    """Pairs of states where ordering by f = time + heuristic disagrees with another ordering.

    ``time-misleads``: the first state is earlier but so much farther from the
    goal that f puts the second first.  ``heuristic-misleads``: the first
    state is farther but so much earlier that f puts it first.  The order of
    the two states in the input is seeded, so "first" carries no meaning.
    """
    rng = random.Random("travel-comparator")
    codes = sorted(network.stops)
    cases = []
    for kind in ("time-misleads", "heuristic-misleads"):
        made = 0
        for _ in range(MAX_TRIES):
            if made == 3:
                break
            goal, a, b = rng.sample(codes, 3)
            far, near = network.heuristic(a, goal), network.heuristic(b, goal)
            if far - near < 3:
                continue
            start = rng.randrange(10) + 10 * rng.randrange(4)
            if kind == "time-misleads":
                later = start + int((far - near) // 2)
            else:
                later = start + int(far - near) + 2
            states = [{"stop": a, "time": start}, {"stop": b, "time": later}]
            if rng.random() < 0.5:
                states.reverse()
            made += 1
            cases.append({"name": "comparator-%s-%d" % (kind, made),
                          "source": SMALL_SOURCE
                          + ", seeded states where f and %s-only ordering disagree"
                          % kind.split("-")[0],
                          "tags": ["comparator", kind],
                          "input": {"goal": goal, "first": states[0], "second": states[1]}})
    return cases


def efficiency_cases(network):
    """One set of far-apart trips on the large city: each at least 40 % of its width."""
    rng = random.Random("travel-large")
    codes = sorted(network.stops)
    xs = [s["x"] for s in network.stops.values()]
    far = 0.4 * (max(xs) - min(xs))
    trips = []
    for _ in range(MAX_TRIES):
        if len(trips) == 5:
            break
        a, b = rng.sample(codes, 2)
        # the departure is drawn only for a pair far enough apart, as the fixtures were made
        trip = ({"start": a, "goal": b, "departure": rng.randrange(10)}
                if network.distance(a, b) >= far else None)
        if trip and well_posed(network, {"input": trip}):
            trips.append(trip)
    return [{"name": "large-far-trips",
             "source": LARGE_SOURCE
             + ", five seeded pairs, each at least 40 % of the city width apart",
             "tags": ["efficiency"], "input": {"network": "large", "trips": trips}}]


def far_trips(network, rng, count, share=0.4, departures=None):
    """``count`` well-posed trips of ``network``, each at least ``share`` of its width apart."""
    codes = sorted(network.stops)
    xs = [s["x"] for s in network.stops.values()]
    far = share * (max(xs) - min(xs))
    trips = []
    for _ in range(MAX_TRIES):
        if len(trips) == count:
            break
        a, b = rng.sample(codes, 2)
        departure = (rng.randrange(10) if departures is None
                     else departures[len(trips) % len(departures)])
        trip = ({"start": a, "goal": b, "departure": departure}
                if network.distance(a, b) >= far else None)
        if trip and well_posed(network, {"input": trip}):
            trips.append(trip)
    return trips


def well_posed(network, case):
    """False for a route case on which the handout's A* misses the earliest arrival.

    Never so on the shipped cities (their heuristic is admissible); a
    foreign network whose trams outrun MAX_TRAM_SPEED may have such pairs,
    and grading a correct handout solution on them would be unfair.
    """
    inp = case["input"]
    if "start" not in inp:
        return True
    (hops, _), (astar_hops, _), _ = solve(network, inp["start"], inp["goal"], inp["departure"])
    return hops is not None and astar_hops[-1][1] == hops[-1][1]


def default_cases(options=None):
    """The fixture cases: route queries, heuristic pairs, comparator pairs, the large-city trip
    set."""
    small = network_for({}, options)
    large = network_for({"network": "large"}, options)
    routes = [c for c in small_city_cases(small) if well_posed(small, c)]
    return routes + heuristic_cases(small) + comparator_cases(small) + efficiency_cases(large)


def fixture_cases(options=None):
    """The default cases, each with its generated ``expected`` block."""
    return [{**case, "expected": expect(case["input"], options)} for case in default_cases(options)]


LENGTHS = ("short", "middle", "long")
"""Trips drawn at grading time cycle through these, by straight-line distance as a share of
the farthest pair's: short below 0.25, middle 0.25-0.55, long above 0.55."""


def generate(rng, count, options=None):
    """``count`` cases for one submission, drawn with ``rng`` (inputs only).

    With ``large_trips`` (default 3) and a count of at least 2, the first
    case is a set of that many far-apart trips on the efficiency city, each
    at its own departure minute, judged like the fixture's trip set (the
    efficiency check).  The others are route queries on the graded city:
    start and goal distinct, the goal reachable (and, on a foreign network,
    the handout's A* exact on the pair), cycling through short, middle and
    long trips, their departure minutes a seeded permutation of 0-9 repeated.
    """
    options = options or {}
    small = network_for({}, options)
    cases = []
    large_trips = int(options.get("large_trips", 3))
    if large_trips > 0 and count >= 2:
        large = network_for({"network": "large"}, options)
        minutes = list(range(10))
        rng.shuffle(minutes)
        trips = far_trips(large, rng, large_trips, departures=minutes)
        cases.append({"input": {"network": "large", "trips": trips}, "tags": ["efficiency"]})
    codes = sorted(small.stops)
    width = small.distance(*farthest_pair(small))
    bounds = {"short": (0, 0.25), "middle": (0.25, 0.55), "long": (0.55, 1.01)}
    minutes, seen = [], set()
    for _ in range(MAX_TRIES):
        if len(cases) == count:
            break
        length = LENGTHS[len(cases) % len(LENGTHS)]
        low, high = bounds[length]
        a, b = rng.sample(codes, 2)
        if not low * width <= small.distance(a, b) < high * width or (a, b) in seen:
            continue
        if not minutes:
            minutes = list(range(10))
            rng.shuffle(minutes)
        case = route_case("", "", ["required", length], a, b, minutes.pop())
        if well_posed(small, case):
            seen.add((a, b))
            cases.append({"input": case["input"], "tags": case["tags"]})
    return cases


def tags(input):
    """The tags of a case that did not come from :func:`generate` (a case of the pool,
    ``grader fixtures --select``): those of its kind in the fixture file."""
    if "trips" in input:
        return ["efficiency"]
    if "start" in input:
        return ["required"]
    return ["heuristic"] if "stop" in input else ["comparator"]


def main(argv=None):
    parser = argparse.ArgumentParser(description="Write the route planner's fixture file.")
    parser.add_argument("--write", metavar="PATH", required=True, help="fixture file to write")
    args = parser.parse_args(argv)
    from grader import fixtures  # the grader's own writer: same header and layout as --regenerate
    fixtures.dump(Path(args.write), "travel", "reference/oracles/travel.py", fixture_cases())


if __name__ == "__main__":
    main()
