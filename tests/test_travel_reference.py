"""Route planner: network files, generator, fixture file, oracle and reference A* agree."""
import importlib.util
import json
import math
import pathlib

import jsonschema
import pytest
import yaml

from grader import fixtures
from grader.exercises.travel import network as tram
from gradertest import read_yaml
from reference import citygen
from reference.oracles import tdijkstra
from reference.oracles import travel as oracle

ROOT = pathlib.Path(__file__).resolve().parents[1]
HELSINKI = ROOT.parent / 'shared' / 'data' / 'helsinki-tram'
SCHEMAS = ROOT / 'grader' / 'schemas'
FIXTURE = ROOT / 'fixtures' / 'travel.yaml'
SUBMISSIONS = ROOT / 'tests' / 'submissions' / 'travel'
CHECKS = {'arrival', 'route', 'heuristic', 'comparator', 'efficiency', 'timeouts'}
SHIPPED = {
    'small': (ROOT / 'fixtures/travel/network.json', ROOT / 'fixtures/travel/lines.json'),
    'large': (ROOT / 'fixtures/travel/large/network.json',
              ROOT / 'fixtures/travel/large/lines.json'),
}
CITIES = dict(SHIPPED)
if HELSINKI.is_dir():
    CITIES['helsinki'] = (HELSINKI / 'graph.json', HELSINKI / 'routes.json')

CASES = read_yaml(FIXTURE)['cases']
TRIP_SET = next(c for c in CASES if 'trips' in c['input'])
ROUTE_CASES = [c for c in CASES if 'start' in c['input']] + [
    {'name': '%s-%d' % (TRIP_SET['name'], k), 'tags': TRIP_SET['tags'],
     'input': dict(trip, network=TRIP_SET['input']['network']), 'expected': expected}
    for k, (trip, expected) in enumerate(zip(TRIP_SET['input']['trips'],
                                             TRIP_SET['expected']['trips']), 1)]
COMPARATOR_CASES = [c for c in CASES if 'comparator' in c['tags']]
needs_helsinki = pytest.mark.skipif(not HELSINKI.is_dir(),
                                    reason='Helsinki tram data not found at %s' % HELSINKI)


def schema(name):
    return json.loads((SCHEMAS / name).read_text(encoding='utf-8'))


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope='module')
def networks():
    return {name: tram.Network.from_files(*files) for name, files in CITIES.items()}


# ---------------------------------------------------------------- network files

@pytest.mark.parametrize('city', sorted(CITIES))
def test_network_files_match_schemas(city):
    stops_file, routes_file = CITIES[city]
    for document, name in [(stops_file, 'network/stops.schema.json'),
                           (routes_file, 'network/routes.schema.json')]:
        jsonschema.Draft202012Validator.check_schema(schema(name))
        jsonschema.validate(json.loads(document.read_text(encoding='utf-8')), schema(name),
                            cls=jsonschema.Draft202012Validator)


@pytest.mark.parametrize('city', sorted(CITIES))
def test_network_is_consistent(networks, city):
    assert tram.check_network(networks[city]) == []


def test_schema_rejects_a_stop_without_neighbors():
    stops = json.loads(SHIPPED['small'][0].read_text(encoding='utf-8'))
    del stops[0]['neighbors']
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(stops, schema('network/stops.schema.json'),
                            cls=jsonschema.Draft202012Validator)


def test_check_network_finds_a_wrong_neighbour_list(networks):
    stops = json.loads(SHIPPED['small'][0].read_text(encoding='utf-8'))
    routes = json.loads(SHIPPED['small'][1].read_text(encoding='utf-8'))
    first = stops[0]
    first['neighbors'][next(iter(first['neighbors']))] = ['1099  1']
    assert tram.check_network(tram.Network(stops, routes))


@pytest.mark.parametrize('city', sorted(SHIPPED))
def test_heuristic_is_admissible_on_every_hop(networks, city):
    """No tram of the shipped cities is faster than MAX_TRAM_SPEED."""
    network = networks[city]
    for route_code, a, b, ride in network.segments():
        assert network.heuristic(a, b) <= ride, (route_code, a, b)


@pytest.mark.parametrize('city', sorted(SHIPPED))
def test_shipped_cities_are_strongly_connected(city):
    stops = json.loads(SHIPPED[city][0].read_text(encoding='utf-8'))
    assert citygen.strongly_connected(stops)


@pytest.mark.parametrize('city', sorted(SHIPPED))
def test_generator_rewrites_the_shipped_cities_exactly(city):
    plan, folder = citygen.TARGETS[city]
    for name, data in citygen.city_files(plan).items():
        assert (folder / name).read_bytes() == data, 'run python -m reference.citygen'


def test_student_template_ships_the_small_city():
    for path in SHIPPED['small']:
        assert (ROOT / 'student_template/travel' / path.name).read_bytes() == path.read_bytes()


# ---------------------------------------------------------------- route checks

def test_check_route_accepts_an_optimal_route_and_rejects_a_wrong_time(networks):
    network = networks['small']
    case = next(c for c in ROUTE_CASES if c['name'] == 'long-across-city')
    hops = [tuple(hop) for hop in case['expected']['hops']]
    start, goal, departure = (case['input'][key] for key in ('start', 'goal', 'departure'))
    assert tram.check_route(network, hops, start, goal, departure) == []
    late = hops[:-1] + [(hops[-1][0], hops[-1][1] + 1)]
    assert tram.check_route(network, late, start, goal, departure)
    assert tram.check_route(network, hops[::-1], start, goal, departure)
    assert tram.check_route(network, hops[:1] + hops[2:], start, goal, departure)
    assert '\n' in tram.render_route(network, hops)


def test_time_to_string():
    assert [tram.time_to_string(m) for m in (23, 63, 60)] == ['23m', '1h3m', '1h0m']


# ---------------------------------------------------------------- fixture file

def test_fixture_file_matches_schema():
    document = yaml.safe_load(FIXTURE.read_text(encoding='utf-8'))
    jsonschema.validate(document, fixtures.schema_for('travel'),
                        cls=jsonschema.Draft202012Validator)
    names = [c['name'] for c in document['cases']]
    assert len(names) == len(set(names))


def test_fixture_file_regenerates_exactly():
    """Every case, in order, with its expected block, is what the oracle makes today."""
    made = {'exercise': 'travel', 'cases': oracle.fixture_cases()}
    assert yaml.safe_load(FIXTURE.read_text(encoding='utf-8')) == made, \
        ('run grader fixtures --regenerate '
         '(or python -m reference.oracles.travel --write fixtures/travel.yaml)')


def test_fixture_covers_every_departure_minute_and_the_tags():
    tags = {tag for c in CASES for tag in c['tags']}
    assert {'required', 'heuristic', 'efficiency', 'transfer', 'start-is-goal'} <= tags
    sweep = {c['input']['departure'] for c in ROUTE_CASES if 'departure-sweep' in c['tags']}
    assert sweep == set(range(10))
    assert all(c['input'].get('network') == 'large' for c in CASES if 'efficiency' in c['tags'])


@pytest.mark.parametrize('case', ROUTE_CASES, ids=lambda c: c['name'])
def test_fixture_hops_form_a_valid_route(networks, case):
    network = networks[case['input'].get('network', 'small')]
    hops = [tuple(hop) for hop in case['expected']['hops']]
    assert tram.check_route(network, hops, case['input']['start'], case['input']['goal'],
                            case['input']['departure']) == []
    assert hops[-1][1] == case['expected']['arrival']


def test_efficiency_cases_separate_astar_from_dijkstra():
    trips = TRIP_SET['expected']['trips']
    assert len(trips) == 5
    astar = sum(t['astar_expansions'] for t in trips)
    dijkstra = sum(t['dijkstra_expansions'] for t in trips)
    assert dijkstra >= 1.8 * astar


def test_comparator_pairs_separate_the_orderings():
    """f disagrees with time-only ordering on some pairs and with heuristic-only on others."""
    kinds = {'time-misleads': 'time_first', 'heuristic-misleads': 'heuristic_first'}
    for kind, key in kinds.items():
        cases = [c for c in COMPARATOR_CASES if kind in c['tags']]
        assert len(cases) >= 3, kind
        for case in cases:
            assert case['expected']['f_first'] != case['expected'][key], case['name']
    assert {c['expected']['f_first'] for c in COMPARATOR_CASES} == {True, False}


# ---------------------------------------------------------------- oracle and reference

@pytest.mark.parametrize('case', ROUTE_CASES, ids=lambda c: c['name'])
def test_reference_astar_matches_dijkstra(networks, reference_map, case):
    """The reference in the student API arrives when exact Dijkstra does, by a valid route."""
    inp = case['input']
    which = inp.get('network', 'small')
    city = reference_map(which)
    state = city.search(city.get_stop(inp['start']), city.get_stop(inp['goal']), inp['departure'])
    hops = []
    while state is not None:
        hops.append((state.get_stop_code(), state.get_time()))
        state = state.get_previous()
    hops.reverse()
    dijkstra_hops, _ = tdijkstra.dijkstra(networks[which], inp['start'], inp['goal'],
                                          inp['departure'])
    assert hops[-1][1] == dijkstra_hops[-1][1] == case['expected']['arrival']
    assert tram.check_route(networks[which], hops, inp['start'], inp['goal'],
                            inp['departure']) == []


@pytest.fixture(scope='module')
def reference_module():
    return load_module(ROOT / 'reference/travel/src/citymap.py', 'travel_reference_citymap')


@pytest.fixture(scope='module')
def reference_map(reference_module):
    cities = {}

    def city(which):
        # Absolute paths: the handout's load_data joins them onto the exercise root unchanged.
        if which not in cities:
            cities[which] = reference_module.CityMap(*(str(p) for p in SHIPPED[which]))
        return cities[which]
    return city


def test_reference_heuristic_and_ordering(reference_module, reference_map):
    city = reference_map('small')
    for case in (c for c in CASES if 'heuristic' in c['tags']):
        reference_module.State.goal = city.get_stop(case['input']['goal'])
        state = reference_module.State(city.get_stop(case['input']['stop']), 0)
        assert math.isclose(state.heuristic(), case['expected']['heuristic'],
                            rel_tol=1e-12, abs_tol=1e-12)
    codes = sorted(city.stops)
    reference_module.State.goal = city.get_stop(codes[0])
    near, far = (reference_module.State(city.get_stop(code), 5) for code in (codes[0], codes[-1]))
    assert near < far and not far < near


def test_reference_matches_dijkstra_from_every_eighth_stop_of_the_small_city(networks,
                                                                             reference_map):
    """Every goal from every eighth start, departure minutes cycling 0-9 (about 3,400 queries)."""
    network, city = networks['small'], reference_map('small')
    codes = sorted(network.stops)
    for k, start in enumerate(codes[::8]):
        departure = k % 10
        earliest = tdijkstra.earliest_arrivals(network, start, departure)
        for goal in codes:
            state = city.search(city.get_stop(start), city.get_stop(goal), departure)
            assert state.get_time() == earliest[goal], (start, goal, departure)


@pytest.mark.parametrize('city', ['small', 'large'])
def test_the_floor_read_off_dijkstra_is_the_count_over_every_earliest_arrival(city):
    """solve() counts the stops every A* expands from the arrivals its Dijkstra found (and
    surely_expanded from a search ended at the goal): the same count as over the earliest
    arrivals at every stop of the city."""
    import random
    network = oracle.network_for({'network': city}, None)
    rng = random.Random(3)
    codes = sorted(network.stops)
    trips = [(codes[0], codes[0], 4)] + [(*rng.sample(codes, 2), rng.randrange(10))
                                         for _ in range(25)]
    for start, goal, departure in trips:
        earliest = tdijkstra.earliest_arrivals(network, start, departure)
        everywhere = sum(1 for code, time in earliest.items() if code != goal and
                         time + network.heuristic(code, goal) < earliest[goal] - 1e-9)
        assert oracle.solve(network, start, goal, departure)[2] == everywhere
        assert oracle.surely_expanded(network, start, goal, departure) == everywhere


def test_oracle_heuristic_is_distance_over_speed(networks):
    case = next(c for c in CASES if c['name'] == 'heuristic-farthest')
    network = networks['small']
    a, b = network.stop(case['input']['stop']), network.stop(case['input']['goal'])
    assert (oracle.expect(case['input'], {})['heuristic']
            == math.hypot(a['x'] - b['x'], a['y'] - b['y']) / 260.0)


# ---------------------------------------------------------------- Helsinki (course data)

@needs_helsinki
@pytest.mark.parametrize('start, goal, departure, arrival, stops', [
    ('1150435', '1130446', 4, 23, 9),
    ('1150435', '1130446', 9, 33, 9),
    ('1250429', '1121480', 3, 25, 12),
])
def test_oracle_reproduces_the_course_answers_on_helsinki(start, goal, departure, arrival, stops):
    options = {'stops_file': str(HELSINKI / 'graph.json'),
               'routes_file': str(HELSINKI / 'routes.json')}
    expected = oracle.expect({'start': start, 'goal': goal, 'departure': departure}, options)
    assert expected['arrival'] == arrival
    assert len(expected['hops']) == stops


@needs_helsinki
def test_reference_reproduces_the_course_route_text_on_helsinki():
    module = load_module(ROOT / 'reference/travel/src/citymap.py', 'travel_reference_helsinki')
    city = module.CityMap(str(HELSINKI / 'graph.json'), str(HELSINKI / 'routes.json'))
    text = str(city.search(city.get_stop('1150435'), city.get_stop('1130446'), 4))
    assert text.startswith('[23m]1130446(Caloniuksenkatu) -> ')
    assert text.endswith(' -> [4m]1150435(Meilahdentie)')


# ---------------------------------------------------------------- example submissions

def test_verdicts_name_every_variant_and_only_known_checks():
    verdicts = yaml.safe_load((SUBMISSIONS / 'verdicts.yaml').read_text(encoding='utf-8'))
    template = '../../../student_template/travel'   # the template itself is graded
    folders = {p.name for p in SUBMISSIONS.iterdir() if p.is_dir()} | {template}
    assert set(verdicts) == folders
    for name, verdict in verdicts.items():
        assert (SUBMISSIONS / name / 'src' / 'citymap.py').is_file()
        assert set(verdict['fails']) <= CHECKS, name
    assert set(verdicts[template]['fails']) == CHECKS
    assert (SUBMISSIONS / template).resolve() == ROOT / 'student_template' / 'travel'
