"""Route searches as the session gives them: the counts in the tally the runner read.

The route planner's probe reports no counts; the C counter's block (read by the runner from
the stopped case process) carries each run's expansions.  :func:`searched` runs the real
probe in a sandbox on a module (a submission's, or the reference with a search of the
test's own put in its place) and reads the counts as the judge does.
"""
import shutil
from pathlib import Path

from grader.exercises.travel import counts
from grader.sandbox import layers
from grader.sandbox.session import Session
from gradertest import read_yaml

ROOT = Path(__file__).resolve().parents[1]
SUBMISSIONS = ROOT / 'tests' / 'submissions' / 'travel'
NETWORK = ROOT / 'fixtures' / 'travel'


def source_of(variant):
    """The citymap.py of ``variant`` (``reference`` or a folder of tests/submissions/travel)."""
    path = (ROOT / 'reference/travel/src/citymap.py' if variant == 'reference'
            else SUBMISSIONS / variant / 'src' / 'citymap.py')
    return path.read_text()


def codes():
    """The small city's stop codes."""
    import json
    return tuple(stop['code'] for stop in json.loads((NETWORK / 'network.json').read_text()))


def route(case, **extra):
    """The request that searches ``case`` (a fixture case with a start, a goal, a departure)."""
    inp = case['input']
    return dict({'kind': 'route', 'network': 'small', 'start': inp['start'], 'goal': inp['goal'],
                 'departure': inp['departure'], 'count': True, 'reps': 1}, **extra)


def searched(source, payloads, folder):
    """``[(observation, expansions)]`` of each request in ``payloads``, run by the real probe
    in one sandbox on the module ``source`` (its text), the expansions as the judge reads
    them from the tally (:func:`grader.exercises.travel.counts.expansions`)."""
    folder.mkdir(exist_ok=True)
    (folder / 'citymap.py').write_text(source)
    for name in ('network.json', 'lines.json'):
        shutil.copy(NETWORK / name, folder / name)
    found, names = [], codes()
    with Session(folder, 'citymap.py', 'grader.exercises.travel.probe',
                 isolation=layers.detect()) as box:
        assert box.start().ok
        for payload in payloads:
            reply = box.call(payload, 30.0)
            assert reply.ok, reply.error
            found.append((reply.observation, counts.expansions(reply, names)))
    return found


CASES = read_yaml(ROOT / 'fixtures/travel.yaml')['cases']
ROUTES = [c for c in CASES if 'start' in c['input']]
