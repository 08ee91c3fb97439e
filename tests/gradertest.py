"""Paths and helpers shared by the tests (imported by name: ``from gradertest import ROOT``).

Kept out of ``conftest.py`` because several conftest modules exist in the
tree and only one of them can be imported as ``conftest``.
"""
import dataclasses
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUBMISSIONS = ROOT / 'tests' / 'submissions'


def read_yaml(path):
    """The data of the YAML file at ``path``, read as the grader reads it
    (:func:`grader.yamlio.load`: with libyaml, about 7 times faster than the pure-Python
    loader, which matters for files read while the suite is collected)."""
    from grader import yamlio
    return yamlio.load(path)[0]


def with_exercise(policy, exercise, **changes):
    """``policy`` with the settings of ``exercise`` changed as :func:`dataclasses.replace`
    changes them (``min_seconds=0.1``, ``factors={...}``, ``fixtures=(...)``)."""
    settings = dataclasses.replace(policy.exercises[exercise], **changes)
    return dataclasses.replace(policy, exercises={**policy.exercises, exercise: settings})


TEST_DRAWS = 2
"""Positions a verdict test's grade draws per exercise in ``make test`` (the course draws
8-12 and then its killers): the checks, their rules and the positions of the fixtures are
the course's; ``make slow`` (``GRADER_SLOW_TESTS=1``) grades under the course itself."""


def drawing_less(policy, exercise):
    """``policy`` with ``exercise`` drawing :data:`TEST_DRAWS` positions and no killers from
    the pool (options of the draw such as the route planner's ``large_trips`` at most as
    many), unless ``GRADER_SLOW_TESTS`` is set; ``policy`` itself when it draws none.

    Each position drawn is one more case of every check that looks at drawn positions,
    never a check of its own, so a verdict holds under fewer of them, except one that a
    killer from the pool finds (a variant then grades under the course's own draws)."""
    import os
    drawn = policy.exercises[exercise].generated
    if not drawn or os.environ.get('GRADER_SLOW_TESTS'):
        return policy
    fewer = {key: min(int(value), TEST_DRAWS) if key in ('count', 'large_trips') else value
             for key, value in drawn.items() if key != 'killers'}
    return with_exercise(policy, exercise, generated=fewer)


UNSOLVABLE_TEST_SECONDS = 0.3
"""CPU seconds a verdict test's grade gives the eight puzzle's unsolvable start in ``make
test`` (the course: 150 units, about 6.5 s here).  Exhausting its 181,440 states takes an
honest heap-based search 1.5-2.3 s: about a fifth of the verdict tests' CPU time."""


def cutting_unsolvable(policy, exercise, unit):
    """``policy`` with ``exercise``'s ``unsolvable`` limit cut to :data:`UNSOLVABLE_TEST_SECONDS`
    and every other limit exactly as the course sets it under ``unit`` (the floor
    ``min_seconds`` lowered to the cut, the factors below the old floor raised to keep their
    limits, the import's among them), unless ``GRADER_SLOW_TESTS`` is set; ``policy`` itself
    when the exercise has no ``unsolvable`` limit.

    Under the cut an exhaustive search is stopped while it is still searching: its
    ``unsolvable`` check fails with the outcome ``timed out`` where the course's limit would
    have seen it return None.  A search that returns a path, raises or returns garbage on
    that start does so within the cut as well (tests/test_submissions.py)."""
    import os

    from grader.config import IMPORT_FACTOR
    settings = policy.exercises[exercise]
    if 'unsolvable' not in settings.factors or os.environ.get('GRADER_SLOW_TESTS'):
        return policy
    floor = settings.min_seconds
    factors = {'import': IMPORT_FACTOR, **settings.factors}
    factors = {key: max(value, floor / unit) for key, value in factors.items()}
    factors['unsolvable'] = UNSOLVABLE_TEST_SECONDS / unit
    cut = with_exercise(policy, exercise, factors=factors, min_seconds=UNSOLVABLE_TEST_SECONDS)
    for key in settings.factors:
        if key != 'unsolvable':
            assert abs(cut.exercises[exercise].limit(key, unit) - settings.limit(key, unit)) < 1e-9
    assert abs(cut.exercises[exercise].import_limit(unit) - settings.import_limit(unit)) < 1e-9
    return cut


def spawns(monkeypatch):
    """Record each sandbox booted (:meth:`Session.spawn`, spares included) in the list
    returned."""
    from grader.sandbox.session import Session
    booted, spawn = [], Session.spawn

    def recording(self):
        booted.append(self)
        return spawn(self)
    monkeypatch.setattr(Session, 'spawn', recording)
    return booted


def course_copy(folder, edit):
    """A copy of the repository's course in ``folder``: its grading.yaml as ``edit(document)``
    changed it (the document as YAML loads it), beside links to the fixtures, hidden
    fixtures and reference solutions it names.  Returns the new grading.yaml's path.

    For tests whose subject is not a limit: a submission that times out on a case under
    any limit (the handout's list-style eight puzzle on its unsolvable start) gets the
    same verdict sooner under a smaller one."""
    import yaml
    folder.mkdir(parents=True, exist_ok=True)
    for name in ('fixtures', 'hidden', 'reference'):
        if (ROOT / name).exists():
            (folder / name).symlink_to(ROOT / name, target_is_directory=True)
    document = yaml.safe_load((ROOT / 'grading.yaml').read_text())
    edit(document)
    path = folder / 'grading.yaml'
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def without_long_eightpuzzle_waits(document):
    """Edit for :func:`course_copy`: the eight puzzle's hard and unsolvable cases get 10
    units (the course gives 120 and 150), and no limit is under 0.3 s (the course's floor
    is 1 s; the other limits, 60 units, stay above it).  The handout's list style, which
    cannot answer the 31-move start or exhaust an unsolvable one under any limit, then
    fails both information checks in about 0.5 s each instead of 5-7 s."""
    limits = document['exercises']['eightpuzzle']['time_limit']
    limits['factors'].update(hard=10, unsolvable=10)
    limits['min_seconds'] = 0.3


def one_of_each_kind(path, target, per_kind=1, without=(), keep=()):
    """A copy of the fixture file ``path`` at ``target`` with the first ``per_kind`` cases
    of each set of tags only (in the file's order) and the cases named in ``keep``, and none
    tagged with a tag of ``without``; returns ``target``."""
    import collections

    import yaml
    data = yaml.safe_load(Path(path).read_text())
    kept, seen = [], collections.Counter()
    for case in data['cases']:
        kind = tuple(sorted(case.get('tags', [])))
        if set(kind) & set(without):
            continue
        if case['name'] in keep:
            kept.append(case)
        elif seen[kind] < per_kind:
            seen[kind] += 1
            kept.append(case)
    data['cases'] = kept
    target.write_text(yaml.safe_dump(data, sort_keys=False))
    return target


def fewer_cases(policy, exercise, folder, named=False):
    """``policy`` with the first two public cases of each kind of ``exercise`` only (copies
    of its fixture files in ``folder``), and at most two positions drawn; with ``named``,
    also the cases a check names (its ``cases`` parameter: the eight puzzle's graded hard
    starts).  For tests whose subject is not the number of cases: a run that waits for
    every case to time out is then short, and stopping after three in a row still leaves
    cases not run; the pruning positions (a kind of their own) are still there."""
    settings = policy.exercises[exercise]
    folder.mkdir(parents=True, exist_ok=True)
    keep = {name.strip() for check in settings.checks.values() if named
            for name in str(check.params.get('cases') or '').split(',') if name.strip()}
    fixtures = tuple(one_of_each_kind(path, folder / f'{exercise}-{i}.yaml', per_kind=2,
                                      keep=keep)
                     for i, path in enumerate(settings.fixtures))
    drawn = dict(settings.generated, count=min(2, settings.generated.get('count', 0)))
    drawn.pop('killers', None)
    return with_exercise(policy, exercise, fixtures=fixtures, generated=drawn)


DRAWN = 2
"""Positions drawn per exercise in :func:`quick_course`."""


def quick_course(policy, folder, edit=None, per_kind=2):
    """A copy of ``policy``'s course in ``folder`` (as the batch ships it, so every file it
    names is there), with :data:`DRAWN` positions (and one large-network trip, and none
    from the pools of killers) drawn per exercise, ``per_kind`` public cases of each kind in
    every exercise's fixtures (:func:`one_of_each_kind`; connect four's searches at depth 6
    left out) and imports stopped after 2 s; returns its grading.yaml.  For the tests of the
    batch and of the ways in (command line, pytest, several assignments): whether a batch
    gives the grade of grading alone, resumes, regrades or stops cleanly, or an entry point
    grades what the engine grades, does not depend on how many cases there are or how long
    an import may run; the verdicts under the course's own settings are
    tests/test_submissions.py's.
    ``edit(document)`` changes its grading.yaml further, as for :func:`course_copy`."""
    import yaml

    from grader.batch import archives, bundle
    blob, _ = bundle.make(policy)
    archives.unpack(blob, folder, archives.Limits(max_bytes=500 * 2**20, max_files=10**5))
    for exercise in policy.exercises.values():
        for fixture in exercise.fixtures:
            path = folder / fixture.relative_to(policy.root)
            one_of_each_kind(path, path, per_kind=per_kind, without=('deep',))
    path = folder / 'grading.yaml'
    data = yaml.safe_load(path.read_text())
    data['sandbox']['load_seconds'] = 2
    for exercise in data['exercises'].values():
        drawn = exercise.get('generated', {})
        if drawn.get('count', 0) > DRAWN:
            drawn['count'] = DRAWN
        if drawn.get('large_trips', 0) > 1:
            drawn['large_trips'] = 1
        drawn.pop('killers', None)
    if edit is not None:
        edit(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


# -- which tests share a worker under pytest-xdist (see conftest.pytest_itemcollected) --
SHARED_BY_MODULE = (
    'test_attacks.py', 'test_forging.py', 'test_batch_classpage.py', 'test_batch_moodle.py',
    'test_batch_run.py',
    'test_batch_safety.py', 'test_canary.py', 'test_chaos.py', 'test_eightpuzzle_generated.py',
    'test_entry_points.py', 'test_many_assignments.py', 'test_plugin_course.py', 'test_hangs.py',
    'test_eightpuzzle_judge.py', 'test_eightpuzzle_reference.py', 'test_gradescope.py',
    'test_prairielearn.py', 'test_hidden_fixtures.py',
    'test_travel_generated.py', 'test_travel_plugin.py', 'test_travel_reference.py',
    'test_writers.py', 'test_self_check.py', 'test_every_call_seen.py', 'test_instruments.py',
    'test_platform_routes.py', 'test_copy_obfuscation.py')
"""Test modules with a module-scoped fixture (a class, a course or a baseline graded once)."""

SHARED_WITH = {
    'test_fixtures.py::test_expected_values_match_the_reference[eightpuzzle]':
        'test_eightpuzzle_reference'}
"""Single tests run in another module's group, on the worker of that module's tests.

The eight puzzle's oracle keeps its slow A* runs per process (``functools`` caches in
reference/oracles/eightpuzzle.py), and three tests work out the fixture file's expected
values: ``fixtures.verify`` here, the oracle writing the file and ``grader fixtures
--regenerate`` in test_eightpuzzle_reference.py.  Alone each takes about 9 s; in one
process the three take about 10.6 s (the first 9.2 s, the others 1.1 s and 0.25 s)."""

MODULES_WITH = {
    'test_eightpuzzle_judge.py': 'test_eightpuzzle_reference',
    'test_eightpuzzle_generated.py': 'test_eightpuzzle_reference'}
"""Whole modules run in another module's group: these three use the table of every eight
puzzle state's distance (reference/oracles/puzzle_table.py, a breadth-first search of
181,440 states, about 1.7 s, kept per process)."""


def bypassing_pythons():
    """Pythons on this machine that run a specialised subscript's ``__getitem__`` past a
    frame-evaluation hook (CPython 3.11.0-3.11.3, gh-104405: Debian 12's), with the ABI of
    the Python running the tests."""
    found = []
    for path in sorted({'/usr/bin/python3', '/usr/local/bin/python3',
                        shutil.which('python3.11') or ''} - {''}):
        try:
            done = subprocess.run([path, '-c', 'import sys; print(*sys.version_info[:3])'],
                                  capture_output=True, text=True, timeout=30)
        except OSError:
            continue
        version = tuple(map(int, done.stdout.split() or (0,)))
        if (3, 11, 0) <= version < (3, 11, 4) and version[:2] == sys.version_info[:2]:
            found.append(path)
    return found
