"""Trips drawn at grading time for the route planner, checked against an independent oracle.

The oracle's ``generate`` draws the inputs and its ``expect`` answers them
with the reference's time-dependent Dijkstra (reference/oracles/tdijkstra.py,
through the grader's own Network).  Here every answer is recomputed on many
seeds by a different method written from the raw JSON files: label-correcting
relaxation of route segments from a first-in first-out work list until
nothing improves (exact on a FIFO network, in any order), with the wait for
the next tram read from ``stopTimes`` directly.
"""
import functools
import json
import random
from collections import deque
from pathlib import Path

import pytest

from reference.oracles import travel as oracle

ROOT = Path(__file__).resolve().parents[1]
SEEDS = range(40)
LARGE_SEEDS = range(8)
"""Seeds whose far-apart trips on the large city are answered again too (each costs a few
searches of 4,334 stops)."""


class RawCity:
    """The network from its JSON files: segments and coordinates, nothing of the grader's."""

    def __init__(self, folder):
        stops = json.loads((folder / 'network.json').read_text(encoding='utf-8'))
        routes = json.loads((folder / 'lines.json').read_text(encoding='utf-8'))
        self.xy = {s['code']: (s['x'], s['y']) for s in stops}
        self.leaving = {}
        for route in routes:
            codes, times = route['stopCodes'], route['stopTimes']
            for i in range(len(codes) - 1):
                self.leaving.setdefault(codes[i], []).append(
                    (codes[i + 1], times[i] % 10, times[i + 1] - times[i]))

    def reach(self, a, b, now):
        """Earliest arrival at ``b`` leaving ``a`` at ``now`` by one segment, or None."""
        times = [now + (offset - now) % 10 + ride
                 for to, offset, ride in self.leaving.get(a, ()) if to == b]
        return min(times) if times else None

    def earliest(self, start, departure):
        """Earliest arrival at every stop: relax segments from a work list until no change."""
        best, work, queued = {start: departure}, deque([start]), {start}
        while work:
            a = work.popleft()
            queued.discard(a)
            now = best[a]
            for b, offset, ride in self.leaving.get(a, ()):
                reached = now + (offset - now) % 10 + ride
                if reached < best.get(b, float('inf')):
                    best[b] = reached
                    if b not in queued:
                        queued.add(b)
                        work.append(b)
        return best

    def distance(self, a, b):
        (xa, ya), (xb, yb) = self.xy[a], self.xy[b]
        return ((xa - xb) ** 2 + (ya - yb) ** 2) ** 0.5

    def lower_bound_count(self, best, goal):
        """Stops (goal excluded) whose earliest arrival + distance/260 is below the goal's
        arrival."""
        return sum(1 for code, time in best.items()
                   if code != goal and time + self.distance(code, goal) / 260.0 < best[goal] - 1e-9)


@pytest.fixture(scope='module')
def cities():
    return {'small': RawCity(ROOT / 'fixtures/travel'),
            'large': RawCity(ROOT / 'fixtures/travel/large')}


def drawn(seed, count=12, large_trips=3):
    return oracle.generate(random.Random(seed), count, {'large_trips': large_trips})


@functools.lru_cache(maxsize=None)
def drawn_once(seed):
    """:func:`drawn` with the course's counts, drawn once per seed for the tests that only
    read the trips (drawing checks every far trip on the large city: about 0.1 s a seed)."""
    return drawn(seed)


def test_every_generated_trip_is_answered_as_an_independent_oracle_answers_it(cities):
    checked = 0
    for seed in SEEDS:
        for case in drawn_once(seed):
            if 'trips' in case['input'] and seed not in LARGE_SEEDS:
                continue
            expected = oracle.expect(case['input'])
            network = case['input'].get('network', 'small')
            trips = case['input'].get('trips', [case['input']])
            wanted = expected.get('trips', [expected])
            for trip, want in zip(trips, wanted):
                city = cities[network]
                best = city.earliest(trip['start'], trip['departure'])
                assert want['arrival'] == best[trip['goal']], (seed, trip)
                hops = want['hops']
                assert hops[0] == [trip['start'], trip['departure']] and hops[-1][0] == trip['goal']
                for (a, t), (b, u) in zip(hops, hops[1:]):
                    assert u == city.reach(a, b, t), (seed, trip, a, b)
                # the efficiency floors (small-city ones are equally computed)
                if network == 'large':
                    assert want['floor_expansions'] == city.lower_bound_count(best, trip['goal'])
                    assert (want['floor_expansions'] <= want['astar_expansions']
                            <= want['dijkstra_expansions'])
                checked += 1
    assert checked == len(SEEDS) * 11 + len(LARGE_SEEDS) * 3


def test_generated_trips_are_varied_and_well_formed(cities):
    lengths, departures, pairs = set(), set(), set()
    for seed in SEEDS:
        cases = drawn_once(seed)
        assert len(cases) == 12
        first, rest = cases[0], cases[1:]
        assert first['tags'] == ['efficiency'] and first['input']['network'] == 'large'
        trips = first['input']['trips']
        assert len(trips) == 3 and len({t['departure'] for t in trips}) == 3
        xs = [x for x, _ in cities['large'].xy.values()]
        width = max(xs) - min(xs)
        assert all(cities['large'].distance(t['start'], t['goal']) >= 0.4 * width for t in trips)
        for case in rest:
            inp = case['input']
            assert set(inp) == {'start', 'goal', 'departure'} and inp['start'] != inp['goal']
            assert 0 <= inp['departure'] <= 9 and 'required' in case['tags']
            lengths.add(case['tags'][1])
            departures.add(inp['departure'])
            pairs.add((inp['start'], inp['goal']))
        assert len({(c['input']['start'], c['input']['goal']) for c in rest}) == len(rest)
    assert lengths == {'short', 'middle', 'long'}
    assert departures == set(range(10))
    assert len(pairs) > 300        # different seeds draw different trips


def test_the_same_seed_draws_the_same_trips_and_no_large_set_when_switched_off():
    assert drawn(7) == drawn(7)
    assert drawn(7) != drawn(8)
    cases = drawn(3, count=5, large_trips=0)
    assert len(cases) == 5 and all('trips' not in c['input'] for c in cases)


def test_the_official_grade_adds_the_drawn_trips_and_check_does_not(policy):
    from grader import generated
    cases = generated.draw(policy, 'travel', generated.seed_for(policy.course, 'travel', 'x' * 64))
    drawn = policy.exercises['travel'].generated
    assert len(cases) > drawn['count'] if drawn.get('killers') else len(cases) == drawn['count']
    assert all(c.hidden and c.generated and c.expected for c in cases)
    assert cases[0].input['network'] == 'large' and len(cases[0].expected['trips']) == 3
