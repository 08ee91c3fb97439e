"""Reliability of the sandbox: every adversarial case plus the reference, N rounds.

Usage: ``python bench/reliability.py [--rounds 10] [--no-load]``

Grades ``tests/adversarial/submissions/*.py`` and ``reference/tictactoe.py``
(tic-tac-toe only) ``--rounds`` times in a row through the real engine, then
the reference again with two busy processes running (CPU load, started here
and stopped afterwards).  Prints:

- survivals: gradings that finished with a result (the grader process itself
  surviving is implied by the script reaching its report);
- leaks: processes left running, sandbox cgroups left behind, private folders
  left, marker files written outside the sandbox;
- verdict stability: cases whose score or set of passed checks changed
  between rounds;
- under load: the reference's score and verdicts, which must equal the
  unloaded ones (calibrated limits, no false timeouts).
"""
import argparse
import dataclasses
import multiprocessing
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader import config, engine  # noqa: E402

CASES = ROOT / 'tests' / 'adversarial' / 'submissions'
MARKS = [Path('/tmp/grader-adversarial-mark.txt'), Path('/tmp/grader-adversarial-daemon.txt'),
         Path.home() / 'grader-adversarial-mark.txt', ROOT / 'grader-adversarial-mark.txt']


def busy():
    while True:
        pass


def leaks(private, before):
    found = []
    for process in psutil.Process().children(recursive=True):
        try:
            if process.pid not in before and process.status() != psutil.STATUS_ZOMBIE:
                found.append(f'process {process.pid} {process.name()}')
        except psutil.NoSuchProcess:
            pass
    mine = f'grader-{os.getpid()}-'
    for base in ('/sys/fs/cgroup/unified', '/sys/fs/cgroup/pids', '/sys/fs/cgroup'):
        if os.path.isdir(base):
            found += [f'cgroup {base}/{n}' for n in os.listdir(base) if n.startswith(mine)]
    found += [f'private folder {p}' for p in Path(private).iterdir()]
    found += [f'file {p}' for p in MARKS if p.exists()]
    return found


def grade(policy, run, source, work):
    folder = Path(tempfile.mkdtemp(dir=work))
    shutil.copy(source, folder / 'tictactoe.py')
    (folder / 'port.txt').write_text('9')            # nothing listens there
    (folder / 'target.txt').write_text(str(folder / 'daemon-mark.txt'))
    started = time.monotonic()
    result = engine.grade(policy, folder, run=run, only=['tictactoe']).exercise('tictactoe')
    seconds = time.monotonic() - started
    shutil.rmtree(folder)
    verdict = (round(result.score, 4), tuple(sorted(c.name for c in result.checks if c.passed)))
    return verdict, seconds


def under_load(policy, run, work, quiet, quiet_times):
    """Grade the reference three times with two busy processes: the verdict must not change."""
    reference = ROOT / 'reference' / 'tictactoe.py'
    workers = [multiprocessing.Process(target=busy, daemon=True) for _ in range(2)]
    for worker in workers:
        worker.start()
    try:
        loaded = [grade(policy, run, reference, work) for _ in range(3)]
    finally:
        for worker in workers:
            worker.terminate()
            worker.join()
    differing = sum(v != quiet for v, _ in loaded)
    same = differing == 0
    print(f'\nunder load (2 busy processes): reference verdict '
          f'{"the same in" if same else f"DIFFERENT in {differing} of"} {len(loaded)} '
          f'gradings: score {loaded[0][0][0]} vs {quiet[0]}; median '
          f'{statistics.median(s for _, s in loaded):.2f} s vs '
          f'{statistics.median(quiet_times):.2f} s unloaded')
    if not same:
        print(f'  loaded verdicts: {[v for v, _ in loaded]}')


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--rounds', type=int, default=10)
    parser.add_argument('--no-load', action='store_true')
    args = parser.parse_args()
    policy = config.load(ROOT / 'grading.yaml')
    policy = dataclasses.replace(policy, load_seconds=2.0)
    run = engine.Run(policy)
    print(f'isolation: {run.isolation.level} ({", ".join(run.isolation.layers)})')
    for line in run.isolation.missing:
        print(f'  missing: {line}')
    sources = sorted(CASES.glob('*.py')) + [ROOT / 'reference' / 'tictactoe.py']
    private = tempfile.mkdtemp(prefix='reliability-')
    work = tempfile.mkdtemp(prefix='reliability-work-')
    tempfile.tempdir = private            # the sessions' private folders go here
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    verdicts, times, survived, leaked = {}, {}, 0, []
    try:
        for round_ in range(args.rounds):
            for source in sources:
                try:
                    verdict, seconds = grade(policy, run, source, work)
                    survived += 1
                except Exception as exc:  # noqa: BLE001 - a crash of the grader is a finding
                    verdict, seconds = ('grader failed', repr(exc)), 0.0
                verdicts.setdefault(source.stem, []).append(verdict)
                times.setdefault(source.stem, []).append(seconds)
                found = leaks(private, before)
                leaked += [f'round {round_ + 1}, {source.stem}: {x}' for x in found]
                for path in MARKS:
                    path.unlink(missing_ok=True)
            print(f'round {round_ + 1}/{args.rounds} done', flush=True)
        total = args.rounds * len(sources)
        unstable = {name: set(v) for name, v in verdicts.items() if len(set(v)) > 1}
        print(f'\ngradings: {total}; survived: {survived}; leaks: {len(leaked)}; '
              f'unstable verdicts: {len(unstable)} of {len(sources)} cases')
        for line in leaked[:20]:
            print(f'  leak: {line}')
        for name, seen in unstable.items():
            print(f'  unstable: {name}: {seen}')
        for name in sorted(times):
            print(f'  {name:22s} median {statistics.median(times[name]):6.2f} s   '
                  f'verdict {verdicts[name][0][0]}')
        if not args.no_load:
            under_load(policy, run, work, verdicts['tictactoe'][0], times['tictactoe'])
    finally:
        shutil.rmtree(private, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)
    return 1 if leaked or unstable or survived < total else 0


if __name__ == '__main__':
    sys.exit(main())
