"""The route planner's course test, TMC style: unittest, in-process, exact strings.

This mirrors how the course's own runner tests the exercise: import the
student's ``citymap`` directly (no isolation), run three queries and compare
``str(state)`` with the expected route text exactly.  ``bench/run.py`` times
it against ``grader grade``.  The expected strings are produced by the
reference in ``setUpClass`` rather than typed in, so the test cannot drift
from the shipped network.

Environment: ``TMC_SUBMISSION`` (folder with ``src/citymap.py``),
``TMC_REFERENCE`` (the reference folder), ``TMC_DATA`` (the network folder),
``TMC_EXPECTED`` (optional JSON file of precomputed expected strings, so a
timed run pays only for the student's queries).
"""
import importlib.util
import json
import os
import sys
import unittest
from pathlib import Path

QUERIES = ['long-across-city', 'long-across-city-back', 'one-hop']


def load(folder, name):
    path = Path(folder) / 'src' / 'citymap.py'
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def plan(module, data, start, goal, departure):
    city = module.CityMap(str(Path(data) / 'network.json'), str(Path(data) / 'lines.json'))
    return str(city.search(city.get_stop(start), city.get_stop(goal), departure))


def expected_routes(root, data, cases):
    """(start, goal, departure, route text) for each query, from the reference."""
    if os.environ.get('TMC_EXPECTED'):
        return [tuple(q) for q in json.loads(Path(os.environ['TMC_EXPECTED']).read_text())]
    reference = load(os.environ.get('TMC_REFERENCE', root / 'reference' / 'travel'), 'ref_citymap')
    queries = []
    for name in QUERIES:
        q = cases[name]
        queries.append((q['start'], q['goal'], q['departure'],
                        plan(reference, data, q['start'], q['goal'], q['departure'])))
    return queries


class TestAStar(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import yaml
        root = Path(__file__).resolve().parents[2]
        cases = {c['name']: c['input'] for c in
                 yaml.safe_load((root / 'fixtures' / 'travel.yaml').read_text())['cases']}
        cls.data = os.environ.get('TMC_DATA', str(root / 'fixtures' / 'travel'))
        cls.queries = expected_routes(root, cls.data, cases)
        cls.student = load(os.environ['TMC_SUBMISSION'], 'citymap')

    def check(self, i):
        start, goal, departure, expected = self.queries[i]
        self.assertEqual(plan(self.student, self.data, start, goal, departure), expected)

    def test_query_1(self):
        self.check(0)

    def test_query_2(self):
        self.check(1)

    def test_query_3(self):
        self.check(2)


if __name__ == '__main__':
    unittest.main()
