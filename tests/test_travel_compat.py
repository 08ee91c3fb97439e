"""The route planner grades on any network named in grading.yaml, after one regeneration.

Each test writes a temporary grading.yaml whose travel options point at other
stops and routes files, makes the fixture file with
``grader fixtures --regenerate --create`` (the command line, in a subprocess),
and grades the reference solution through the sandboxed engine: it must
score full marks with nothing else changed.

- The course's real Helsinki network (../shared/data/helsinki-tram/, never
  copied into the project): the regenerated expectations reproduce the
  course's known arrivals 23, 33 and 25.  Trams there run faster than 260
  points a minute on some segments, so distance / 260 is not strictly
  admissible; the correct heuristic must still pass.
- A second small network written here (a four-by-four grid of streets).
"""
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]

HELSINKI = ROOT.parent / 'shared' / 'data' / 'helsinki-tram'
COURSE_CASES = [  # SOURCE.md: the course's own tests (stop codes, departure minute, arrival)
    ('course-meilahdentie-caloniuksenkatu-4', '1150435', '1130446', 4, 23),
    ('course-meilahdentie-caloniuksenkatu-9', '1150435', '1130446', 9, 33),
    ('course-1250429-1121480-3', '1250429', '1121480', 3, 25),
]


def write_policy(folder, stops_file, routes_file):
    """A grading.yaml with the repository's travel settings on another graded network."""
    policy = yaml.safe_load((ROOT / 'grading.yaml').read_text(encoding='utf-8'))
    travel = policy['exercises']['travel']
    travel['fixtures'] = ['travel.yaml']
    travel['hidden_fixtures'] = []
    travel['generated'].pop('killers', None)     # the pool's routes are the shipped city's
    travel['options'].update({
        'stops_file': str(stops_file), 'routes_file': str(routes_file),
        'large_stops_file': str(ROOT / 'fixtures/travel/large/network.json'),
        'large_routes_file': str(ROOT / 'fixtures/travel/large/lines.json'),
    })
    document = {'version': 1, 'reference': str(ROOT / 'reference'),
                'calibration': policy.get('calibration', {}), 'sandbox': policy.get('sandbox', {}),
                'exercises': {'travel': travel},
                'assignments': {'routeplanner': {'exercises': ['travel']}}}
    path = folder / 'grading.yaml'
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding='utf-8')
    return path


def grader_cli(config, *args):
    completed = subprocess.run([sys.executable, '-m', 'grader', '--config', str(config), *args],
                               cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr + completed.stdout
    return completed.stdout


def grade_reference(config, tmp_path):
    from grader import config as policies
    from grader import engine
    policy = policies.load(config)
    folder = tmp_path / 'submission'
    shutil.copytree(ROOT / 'reference' / 'travel', folder)
    result = engine.grade(policy, folder, assignment='routeplanner').exercise('travel')
    lost = {c.name: c.message for c in result.checks if not c.passed}
    assert result.score == result.max_score == 5.0 and not lost, lost
    assert not result.warnings, result.warnings
    return result


@pytest.mark.skipif(not HELSINKI.is_dir(), reason=f'the course network is not at {HELSINKI}')
def test_helsinki_network_through_configuration(tmp_path):
    config = write_policy(tmp_path, HELSINKI / 'graph.json', HELSINKI / 'routes.json')
    grader_cli(config, 'fixtures', '--regenerate', '--create')
    fixture = tmp_path / 'travel.yaml'
    document = yaml.safe_load(fixture.read_text(encoding='utf-8'))
    assert len(document['cases']) > 40
    document['cases'] += [
        {'name': name, 'source': 'seed: course tests (helsinki-tram/SOURCE.md)',
         'tags': ['required'],
         'input': {'start': start, 'goal': goal, 'departure': departure}}
        for name, start, goal, departure, _ in COURSE_CASES]
    fixture.write_text(yaml.safe_dump(document, sort_keys=False), encoding='utf-8')
    grader_cli(config, 'fixtures', '--regenerate')

    expected = {c['name']: c['expected']
                for c in yaml.safe_load(fixture.read_text(encoding='utf-8'))['cases']}
    assert [expected[name]['arrival'] for name, *_ in COURSE_CASES] == [23, 33, 25]
    assert [len(expected[name]['hops']) for name, *_ in COURSE_CASES] == [9, 9, 12]
    grader_cli(config, 'fixtures', '--verify')

    result = grade_reference(config, tmp_path)
    heuristic = next(c for c in result.checks if c.name == 'heuristic')
    assert heuristic.cases_passed > 0


def test_helsinki_heuristic_is_not_admissible_there():
    """Why admissibility is a property of the shipped network, not a per-query check."""
    if not HELSINKI.is_dir():
        pytest.skip(f'the course network is not at {HELSINKI}')
    from grader.exercises.travel import network as tram
    city = tram.Network.from_files(HELSINKI / 'graph.json', HELSINKI / 'routes.json')
    assert any(city.heuristic(a, b) > ride for _, a, b, ride in city.segments())


def grid_city(size=4, spacing=400):
    """A grid of streets: a line along every row and every column, each run both ways.

    Rides last ceil(distance * slowness / 260) minutes with slowness >= 1, so
    distance / 260 is admissible here too; lines differ in slowness so that
    transfers and waiting matter.
    """
    x0, y0 = 2550000, 6670000
    position = {}
    for i in range(size):
        for j in range(size):
            position['20%02d%02d' % (i, j)] = (x0 + i * spacing + 7 * j, y0 + j * spacing + 5 * i)
    lines = [['20%02d%02d' % (i, j) for i in range(size)] for j in range(size)] + \
            [['20%02d%02d' % (i, j) for j in range(size)] for i in range(size)]
    routes, neighbors = [], {code: {} for code in position}
    for number, codes in enumerate(lines, start=1):
        slowness = 1.0 + 0.15 * (number % 4)
        for direction, path in ((1, codes), (2, codes[::-1])):
            code = '%04d  %d' % (3000 + number, direction)
            times = [0]
            for a, b in zip(path, path[1:]):
                ride = math.ceil(math.dist(position[a], position[b]) * slowness / 260)
                times.append(times[-1] + max(1, ride))
                neighbors[a].setdefault(b, []).append(code)
            routes.append({'code': code, 'codeShort': str(number),
                           'name': f'{path[0]} - {path[-1]}',
                           'x': [position[c][0] for c in path], 'y': [position[c][1] for c in path],
                           'stopCodes': path, 'stopTimes': times})
    stops = [{'code': code, 'address': f'Ruutukatu {k + 1}', 'name': f'Ruutu {code[2:]}',
              'x': x, 'y': y, 'neighbors': neighbors[code]}
             for k, (code, (x, y)) in enumerate(position.items())]
    return stops, routes


def test_a_small_network_written_here(tmp_path):
    from grader.exercises.travel import network as tram
    stops, routes = grid_city()
    stops_file, routes_file = tmp_path / 'ruutu.json', tmp_path / 'ruutu-lines.json'
    stops_file.write_text(json.dumps(stops), encoding='utf-8')
    routes_file.write_text(json.dumps(routes), encoding='utf-8')
    assert tram.check_network(tram.Network(stops, routes)) == []
    config = write_policy(tmp_path, stops_file, routes_file)
    grader_cli(config, 'fixtures', '--regenerate', '--create')
    cases = yaml.safe_load((tmp_path / 'travel.yaml').read_text(encoding='utf-8'))['cases']
    route_cases = [c for c in cases if 'start' in c['input']]
    assert len(route_cases) >= 20
    assert all(c['input']['start'] in {s['code'] for s in stops} for c in route_cases)
    assert any('transfer' in c['tags'] for c in route_cases)
    grade_reference(config, tmp_path)
