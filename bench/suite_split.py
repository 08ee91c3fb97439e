"""Where the suite's time goes, test by test, and its floor without the verdict modules.

    .venv/bin/python bench/suite_split.py [--workers N] [--top 15] [PYTEST ARGS ...]

Runs the suite as ``make test`` runs it (pytest-xdist, ``--dist loadgroup``, ``TEST_WORKERS``
workers, 2 by default), with this file loaded into every worker as a pytest plug-in that
notes for each test its wall time, the CPU time its worker spent (``RUSAGE_SELF``) and the
CPU time of the processes it started and reaped (``RUSAGE_CHILDREN``: command-line grades,
sandboxes and their case processes, installs).  The calibration unit is measured before and
after, so the suite's time can be compared across machines in units (wall seconds / unit).

Printed: the run's wall and CPU time and its wall time in units; per worker its tests, wall
and CPU; the modules that cost the most; and the split between the modules ``make matrix``
runs again under every Python (named in ``scripts/matrix.sh``: the verdicts, the forging
tricks, the code routes, every call seen) and the rest, with the rest's floor on the same
workers: its tests' wall time divided among them, which no change to the verdict tests can
go below.  Figures of one run: the split, not the seconds, is the point.
"""
import argparse
import collections
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OUT = 'SUITE_SPLIT_OUT'
"""The folder each worker writes its notes to (``<worker>.json``)."""


# -- the plug-in, in each worker -----------------------------------------------------------

def _cpu(who):
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


_noted = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Note ``[test id, worker CPU, children's CPU, wall]`` around the whole test (set-up
    and tear-down included)."""
    before = (_cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN), time.perf_counter())
    yield
    _noted.append([item.nodeid, _cpu(resource.RUSAGE_SELF) - before[0],
                   _cpu(resource.RUSAGE_CHILDREN) - before[1], time.perf_counter() - before[2]])


def pytest_sessionfinish(session):
    folder = os.environ.get(OUT)
    if folder and _noted:       # xdist's controller runs no test
        worker = os.environ.get('PYTEST_XDIST_WORKER', 'main')
        Path(folder, f'{worker}.json').write_text(json.dumps(_noted))


# -- the report, in the bench's process ----------------------------------------------------

def matrix_modules():
    """The test modules ``scripts/matrix.sh`` runs under every Python."""
    script = (ROOT / 'scripts' / 'matrix.sh').read_text()
    return sorted(set(re.findall(r'tests/[\w/]+\.py', script)))


def unit():
    sys.path.insert(0, str(ROOT))
    from grader import calibrate
    return calibrate.measure(5)['unit_seconds']


def run_suite(workers, extra, folder):
    """``(exit status, wall seconds, CPU seconds, {worker: notes})`` of one run."""
    command = [sys.executable, '-m', 'pytest', '-q', '-p', 'suite_split', '-n', str(workers),
               '--dist', 'loadgroup', *extra]
    env = dict(os.environ, **{OUT: str(folder)})
    env['PYTHONPATH'] = os.pathsep.join(filter(None, [str(ROOT / 'bench'),
                                                      env.get('PYTHONPATH')]))
    before = _cpu(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    wall = time.perf_counter() - started
    cpu = _cpu(resource.RUSAGE_CHILDREN) - before
    print(done.stdout.strip().splitlines()[-1] if done.stdout.strip() else '(no output)')
    notes = {path.stem: json.loads(path.read_text()) for path in sorted(folder.glob('*.json'))}
    return done.returncode, wall, cpu, notes


def module_of(test_id):
    return test_id.split('::')[0]


def totals(notes):
    """``{'tests', 'self', 'children', 'wall'}`` of a list of notes."""
    return {'tests': len(notes), 'self': sum(n[1] for n in notes),
            'children': sum(n[2] for n in notes), 'wall': sum(n[3] for n in notes)}


def report(wall, cpu, units, notes, workers, top):
    every = [n for worker in notes.values() for n in worker]
    unit_seconds = statistics.median(units)
    print(f'unit {units[0]:.4f} s before, {units[1]:.4f} s after; wall {wall:.0f} s '
          f'({wall / 60:.0f} min {wall % 60:02.0f} s) = {wall / unit_seconds:,.0f} units; '
          f'CPU {cpu:.0f} s ({cpu / wall:.2f} cores busy)')
    print('\nworker | tests | wall | worker CPU | children CPU')
    for worker, noted in notes.items():
        t = totals(noted)
        print(f'{worker} | {t["tests"]} | {t["wall"]:.1f} s | {t["self"]:.1f} s '
              f'| {t["children"]:.1f} s')
    by_module = collections.defaultdict(list)
    for note in every:
        by_module[module_of(note[0])].append(note)
    print('\nmodule | tests | wall | worker CPU | children CPU')
    ranked = sorted(by_module.items(), key=lambda item: -totals(item[1])['wall'])
    for module, noted in ranked[:top]:
        t = totals(noted)
        print(f'{module} | {t["tests"]} | {t["wall"]:.1f} s | {t["self"]:.1f} s '
              f'| {t["children"]:.1f} s')
    matrix = set(matrix_modules())
    parts = {'the modules make matrix runs': [n for n in every if module_of(n[0]) in matrix],
             'the rest': [n for n in every if module_of(n[0]) not in matrix]}
    print(f'\npart | tests | wall | CPU | its wall on {workers} workers')
    for name, noted in parts.items():
        t = totals(noted)
        print(f'{name} | {t["tests"]} | {t["wall"]:.1f} s | {t["self"] + t["children"]:.1f} s '
              f'| {t["wall"] / workers:.0f} s ({t["wall"] / workers / unit_seconds:,.0f} units)')
    start = wall - max((totals(n)['wall'] for n in notes.values()), default=0.0)
    print(f'start and collection (the run\'s wall time less its longest worker): {start:.0f} s')


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--workers', type=int, default=int(os.environ.get('TEST_WORKERS', 2)))
    parser.add_argument('--top', type=int, default=15, help='modules listed')
    args, extra = parser.parse_known_args(argv)
    before = unit()
    with tempfile.TemporaryDirectory() as tmp:
        status, wall, cpu, notes = run_suite(args.workers, extra, Path(tmp))
    after = unit()
    if not notes:
        raise SystemExit('suite_split: no worker wrote its notes (was the plug-in loaded?)')
    report(wall, cpu, (before, after), notes, args.workers, args.top)
    return status


if __name__ == '__main__':
    sys.exit(main())
