"""Seeded generator of the route planner's tram cities.

``python -m reference.citygen`` rewrites, byte for byte the same every run:

* ``fixtures/travel/network.json`` + ``lines.json`` — a small city of about
  150 stops and 10 lines (graded queries);
* ``fixtures/travel/large/network.json`` + ``lines.json`` — a city of a few
  thousand stops (efficiency checks and benchmarks).

The files follow the handout's format (grader/schemas/network/). How a city
is made:

* Stops sit on a jittered square lattice of streets, in coordinates of the
  same magnitude as the Helsinki data (7-digit integers). Every third row
  and column is a main street; lines run along main streets, so lines share
  trunk sections and meet at transfer stops.
* A line is a path through a few main-street crossings chosen near the
  centre, joined by L-shaped legs. Every line runs both ways as two route
  directions. The return direction leaves the main street on some stretches
  (a one-way loop through the parallel side street) and each line ends in
  a one-way terminal loop.
* Every ride between two stops lasts ``ceil(distance * slowness / 260)``
  whole minutes (at least 1) with slowness >= 1, so no tram is faster than
  MAX_TRAM_SPEED and the straight-line heuristic is admissible (and
  consistent) on these cities.
"""

import argparse
import json
import math
import random
import sys
from collections import namedtuple
from pathlib import Path

from reference.oracles.trams import TOP_SPEED as MAX_TRAM_SPEED

CityPlan = namedtuple("CityPlan", "seed size spacing jitter main_every lines waypoints detours "
                                   "x0 y0 max_slowness")

SMALL = CityPlan(seed=2024, size=19, spacing=250, jitter=20, main_every=3, lines=10,
                 waypoints=(1, 2), detours=2, x0=2549000, y0=6671500, max_slowness=1.4)
LARGE = CityPlan(seed=7, size=100, spacing=240, jitter=10, main_every=3, lines=60,
                 waypoints=(1, 2), detours=3, x0=2538000, y0=6660000, max_slowness=1.05)

REPO = Path(__file__).resolve().parents[1]
TARGETS = {"small": (SMALL, REPO / "fixtures/travel"),
           "large": (LARGE, REPO / "fixtures/travel/large")}
STOPS_FILE, ROUTES_FILE = "network.json", "lines.json"

PREFIXES = ["Koivu", "Mänty", "Kuusi", "Vaahtera", "Pihlaja", "Tammi", "Leppä", "Haapa", "Saarni",
            "Lehmus", "Kataja", "Paju", "Kallio", "Kivi", "Hiekka", "Meri", "Ranta", "Niitty",
            "Pelto",
            "Metsä", "Mylly", "Sepän", "Kirkko", "Kauppa", "Satama", "Asema", "Puisto", "Linna",
            "Torni", "Silta", "Ratsu", "Kulta", "Hopea", "Rauta", "Kaari", "Lähde", "Järvi",
            "Saari",
            "Vuori", "Laakso"]
SUFFIXES = ["katu", "tie", "kuja", "polku", "raitti", "väylä"]


class City:
    """The lattice of one plan: node positions, main streets, street names."""

    def __init__(self, plan):
        self.plan = plan
        rng = random.Random("%d:names" % plan.seed)
        names = [p + s for p in PREFIXES for s in SUFFIXES]
        rng.shuffle(names)
        self.row_names = names[:plan.size]
        self.col_names = names[plan.size:2 * plan.size]
        self.main = [k for k in range(plan.size) if k % plan.main_every == 0]

    def position(self, node):
        """Integer coordinates of lattice node (i, j), jittered deterministically."""
        i, j = node
        rng = random.Random("%d:%d:%d" % (self.plan.seed, i, j))
        plan = self.plan
        return (plan.x0 + i * plan.spacing + rng.randint(-plan.jitter, plan.jitter),
                plan.y0 + j * plan.spacing + rng.randint(-plan.jitter, plan.jitter))

    def inside(self, node):
        return 0 <= node[0] < self.plan.size and 0 <= node[1] < self.plan.size


def leg(a, b, horizontal_first):
    """Lattice nodes from crossing a to crossing b (b included, a not), L-shaped."""
    (i, j), (ti, tj) = a, b
    nodes = []
    axes = ("i", "j") if horizontal_first else ("j", "i")
    for axis in axes:
        if axis == "i":
            while i != ti:
                i += 1 if ti > i else -1
                nodes.append((i, j))
        else:
            while j != tj:
                j += 1 if tj > j else -1
                nodes.append((i, j))
    return nodes


def line_path(city, rng):
    """One line's outbound path along main streets, without repeated nodes."""
    plan, main = city.plan, city.main
    edge_band = [k for k in main if k <= plan.size // 4 or k >= plan.size - 1 - plan.size // 4]
    centre = [k for k in main if plan.size // 5 <= k <= plan.size - 1 - plan.size // 5]
    while True:
        start = (rng.choice(edge_band), rng.choice(main))
        if rng.random() < 0.5:
            start = start[::-1]
        end = (plan.size - 1 - start[0] + rng.choice([-1, 0, 1]) * plan.main_every,
               plan.size - 1 - start[1] + rng.choice([-1, 0, 1]) * plan.main_every)
        end = tuple(min(max(k, 0), main[-1]) for k in end)
        end = tuple(k - k % plan.main_every for k in end)
        stops = [start] + [(rng.choice(centre), rng.choice(centre))
                           for _ in range(rng.randint(*plan.waypoints))] + [end]
        path = [start]
        for a, b in zip(stops, stops[1:]):
            path += leg(a, b, rng.random() < 0.5)
        if len(set(path)) == len(path) and len(path) >= 8:
            return path


def offset(node, towards):
    return (node[0] + towards[0], node[1] + towards[1])


def side_of(a, b):
    """A unit step perpendicular to the hop a -> b."""
    di, dj = b[0] - a[0], b[1] - a[1]
    return (dj, di) if (dj, di) != (0, 0) else (1, 0)


def directions(city, path, rng):
    """Outbound and return node sequences of one line, with one-way loops.

    The outbound direction follows ``path`` and ends with a terminal loop
    node; the return direction starts at that node and, on up to
    ``plan.detours`` straight stretches, takes the parallel side street.
    """
    side = side_of(path[-2], path[-1])
    terminal = offset(path[-1], side)
    if not city.inside(terminal) or terminal in path:
        side = (-side[0], -side[1])
        terminal = offset(path[-1], side)
    outbound = path + [terminal]
    back = [terminal] + path[-2::-1]
    used = set(outbound)
    for _ in range(city.plan.detours):
        k = rng.randrange(1, len(back) - 4)
        a, b, c, d = back[k:k + 4]
        straight = (b[0] - a[0] == c[0] - b[0] == d[0] - c[0]
                    and b[1] - a[1] == c[1] - b[1] == d[1] - c[1])
        if not straight:
            continue
        step = side_of(a, b)
        if rng.random() < 0.5:
            step = (-step[0], -step[1])
        b2, c2 = offset(b, step), offset(c, step)
        if city.inside(b2) and city.inside(c2) and not {b2, c2} & used and not {b2, c2} & set(back):
            back[k + 1:k + 3] = [b2, c2]
            used |= {b2, c2}
    assert len(set(back)) == len(back)
    return outbound, back


def ride_minutes(p, q, slowness):
    """Whole minutes for a ride p -> q: never faster than MAX_TRAM_SPEED."""
    minutes = max(1, math.ceil(math.dist(p, q) * slowness / MAX_TRAM_SPEED))
    assert (p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 <= (MAX_TRAM_SPEED * minutes) ** 2
    return minutes


def stop_codes(city, nodes):
    """Seven-digit stop codes in the HSL style: '1', zone (2 digits), '0', serial."""
    blocks = max(1, math.ceil(city.plan.size / 9))
    codes, serial = {}, {}
    for node in sorted(nodes):
        zone = 10 + (node[1] // blocks) * 9 + node[0] // blocks
        serial[zone] = serial.get(zone, 399) + 1
        codes[node] = "1%02d0%03d" % (zone, serial[zone])
    return codes


def stop_name(city, node):
    i, j = node
    if j in city.main:
        return city.col_names[i], "%s %d" % (city.row_names[j], 2 * i + 1)
    return city.row_names[j], "%s %d" % (city.col_names[i], 2 * j + 2)


def generate(plan):
    """Return (stops, routes): the two JSON arrays of the city of ``plan``."""
    city = City(plan)
    rng = random.Random(plan.seed)
    lines = []
    for number in range(1, plan.lines + 1):
        outbound, back = directions(city, line_path(city, rng), rng)
        slowness = [[1 + rng.random() * (plan.max_slowness - 1) for _ in seq[1:]]
                    for seq in (outbound, back)]
        lines.append((number, (outbound, back), slowness))
    nodes = {node for _, seqs, _ in lines for seq in seqs for node in seq}
    codes = stop_codes(city, nodes)
    stops = {}
    for node in sorted(nodes, key=codes.get):
        x, y = city.position(node)
        name, address = stop_name(city, node)
        stops[codes[node]] = {"code": codes[node], "address": address, "name": name,
                              "x": x, "y": y, "neighbors": {}}
    routes = []
    for number, seqs, slowness in lines:
        first, last = stops[codes[seqs[0][0]]]["name"], stops[codes[seqs[0][-2]]]["name"]
        for direction, (seq, slow) in enumerate(zip(seqs, slowness), start=1):
            route_code = "%04d  %d" % (1000 + number, direction)
            points = [city.position(node) for node in seq]
            times = [0]
            for p, q, s in zip(points, points[1:], slow):
                times.append(times[-1] + ride_minutes(p, q, s))
            routes.append({"code": route_code, "codeShort": str(number),
                           "name": "%s - %s" % (first, last),
                           "x": [p[0] for p in points], "y": [p[1] for p in points],
                           "stopCodes": [codes[node] for node in seq], "stopTimes": times})
            for a, b in zip(seq, seq[1:]):
                stops[codes[a]]["neighbors"].setdefault(codes[b], []).append(route_code)
    stops = list(stops.values())
    assert strongly_connected(stops), \
        "plan %r gives a network that is not strongly connected" % (plan,)
    return stops, routes


def strongly_connected(stops):
    """True when every stop reaches every other one along the neighbour lists."""
    forward = {s["code"]: list(s["neighbors"]) for s in stops}
    backward = {code: [] for code in forward}
    for code, targets in forward.items():
        for target in targets:
            backward[target].append(code)
    for graph in (forward, backward):
        seen, todo = {stops[0]["code"]}, [stops[0]["code"]]
        while todo:
            for nxt in graph[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        if len(seen) != len(forward):
            return False
    return True


def dumps(document):
    """The exact bytes written: compact JSON like the handout's files, ASCII only."""
    return (json.dumps(document, separators=(",", ":"), ensure_ascii=True) + "\n").encode("ascii")


def city_files(plan):
    """Mapping file name -> bytes for the city of ``plan``."""
    stops, routes = generate(plan)
    return {STOPS_FILE: dumps(stops), ROUTES_FILE: dumps(routes)}


def write(plan, folder):
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in city_files(plan).items():
        (folder / name).write_bytes(data)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("which", nargs="*",
                        help="cities to write: %s (default: all)" % ", ".join(sorted(TARGETS)))
    args = parser.parse_args(argv)
    unknown = set(args.which) - set(TARGETS)
    if unknown:
        parser.error("unknown city %s; choose from %s"
                     % (", ".join(sorted(unknown)), ", ".join(sorted(TARGETS))))
    for which in args.which or sorted(TARGETS):
        plan, folder = TARGETS[which]
        write(plan, folder)
        print("wrote %s city to %s" % (which, folder.relative_to(REPO)))


if __name__ == "__main__":
    sys.exit(main())
