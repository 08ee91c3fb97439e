"""Helpers for the adversarial suite: a watched grading run and leak checks.

``graded(case, isolation)`` grades ``submissions/<case>.py`` as the
tic-tac-toe file of a folder that also holds the reference solutions of the
assignment's other exercises, through the real engine, and returns what the
test needs to assert the outcome: the tic-tac-toe result, the other
exercises' results, and the leaks found afterwards (processes, files,
cgroups, private folders).
"""
import dataclasses
import os
import shutil
import socket
import sys
import tempfile
import time
from pathlib import Path

import psutil
import pytest

from gradertest import one_of_each_kind
from spawning import DAEMON_WAIT, STARTS_PROCESSES

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SUBMISSIONS = HERE / 'submissions'
MARK = 'grader-adversarial-mark.txt'
DAEMON_MARK = Path('/tmp/grader-adversarial-daemon.txt')
WRITTEN = 'written by a submission'
LOAD_SECONDS = 2.0
"""Import limit for this suite (the policy's 5 s would only make it slower)."""
SLOW_TAGS = ('deep',)
"""Cases the other exercises do without here: connect four's searches at depth 6 (their
checks have cases of every other kind)."""


@dataclasses.dataclass
class Outcome:
    result: object            # ExerciseResult of tic-tac-toe
    others: dict              # name -> ExerciseResult of the other exercises
    connected: bool           # the submission reached the test's TCP listener
    leaks: list               # sentences: processes, files, cgroups left behind
    seconds: float

    def check(self, name):
        return next(c for c in self.result.checks if c.name == name)


def _mark_places():
    places = {Path.home(), Path('/tmp'), ROOT, ROOT.parent}
    places |= {Path(p) for p in sys.path if p and Path(p).is_dir()}
    return [p / MARK for p in places]


def _stray_processes(before):
    """Processes started by this test that are still alive (zombies are ignored)."""
    stray = []
    for process in psutil.Process().children(recursive=True):
        try:
            if process.pid not in before and process.status() != psutil.STATUS_ZOMBIE:
                stray.append(f'pid {process.pid} {process.name()}')
        except psutil.NoSuchProcess:
            pass
    mine = f'grader-{os.getpid()}-'
    for process in psutil.process_iter():
        try:
            if mine in Path(f'/proc/{process.pid}/cgroup').read_text():
                stray.append(f'pid {process.pid} {process.name()} (in a sandbox cgroup)')
        except (OSError, psutil.NoSuchProcess):
            pass
    return stray


def _stray_cgroups():
    from grader.sandbox import layers
    support = layers.detect().cgroups
    if support is None:
        return []
    mine = f'grader-{os.getpid()}-'
    bases = ([support.v2] if support.v2 else []) + list(support.v1.values())
    return [os.path.join(b, n) for b in bases for n in os.listdir(b) if n.startswith(mine)]


@pytest.fixture(scope='module')
def attack_policy(policy, tmp_path_factory):
    """The course for this suite: imports stopped after :data:`LOAD_SECONDS`, and the
    other exercises (graded beside every attack, to show it cannot reach them) with one
    public case of each kind (:func:`one_of_each_kind`), none of :data:`SLOW_TAGS`, and no
    positions drawn at grading time: whether an attack changes their score does not
    depend on how many cases they have (every check still has its cases, and the score is
    compared with the same course's grade of the reference).  The attacked tic-tac-toe
    keeps two public cases of each kind and two drawn positions: what an attack reaches,
    and what its report says, does not depend on how many cases it is called on (its
    verdicts under the whole course are test_forging.py's and test_submissions.py's)."""
    folder = tmp_path_factory.mktemp('attack-fixtures')
    exercises = dict(policy.exercises)
    for name in _other_exercises(policy):
        fixtures = tuple(one_of_each_kind(path, folder / f'{name}-{i}.yaml', without=SLOW_TAGS)
                         for i, path in enumerate(exercises[name].fixtures))
        exercises[name] = dataclasses.replace(exercises[name], generated={},
                                              fixtures=fixtures, hidden_fixtures=())
    attacked = exercises['tictactoe']
    fixtures = tuple(one_of_each_kind(path, folder / f'tictactoe-{i}.yaml', per_kind=2)
                     for i, path in enumerate(attacked.fixtures))
    exercises['tictactoe'] = dataclasses.replace(
        attacked, fixtures=fixtures, generated=dict(attacked.generated, count=2))
    return dataclasses.replace(policy, load_seconds=LOAD_SECONDS, exercises=exercises)


@pytest.fixture(scope='module')
def baseline(attack_policy, run, tmp_path_factory):
    """Scores of the other exercises when their reference is graded with the reference."""
    from grader import engine
    folder = tmp_path_factory.mktemp('baseline')
    shutil.copy(ROOT / 'reference' / 'tictactoe.py', folder / 'tictactoe.py')
    for source in _other_exercises(attack_policy).values():
        _add_reference(folder, source)
    result = engine.grade(attack_policy, folder, run=run)
    return {e.name: e.score for e in result.exercises}


@pytest.fixture
def graded(attack_policy, run, tmp_path, monkeypatch):
    """Grade one adversarial case at an isolation (default: everything available)."""
    from grader import engine
    others = _other_exercises(attack_policy)
    private = tmp_path / 'private'
    private.mkdir()
    # The sessions' private folders go here, so that leftovers are ours to find.
    monkeypatch.setattr(tempfile, 'tempdir', str(private))

    def grade(case, isolation=None):
        folder = tmp_path / 'submission'
        folder.mkdir()
        shutil.copy(SUBMISSIONS / f'{case}.py', folder / 'tictactoe.py')
        for name, source in others.items():
            _add_reference(folder, source)
        listener = socket.socket()
        listener.bind(('127.0.0.1', 0))
        listener.listen(4)
        listener.setblocking(False)
        (folder / 'port.txt').write_text(str(listener.getsockname()[1]))
        target = tmp_path / 'reachable'
        target.mkdir(mode=0o777)
        os.chmod(target, 0o777)
        (folder / 'target.txt').write_text(str(target / 'daemon-mark.txt'))
        os.chmod(tmp_path, 0o755)
        decoy = tmp_path / 'grading.yaml'   # ../grading.yaml seen from the submission
        decoy.write_text('decoy: true\n')
        before_children = {p.pid for p in psutil.Process().children(recursive=True)}
        marks_before = {p for p in _mark_places() if p.exists()}
        this_run = engine.Run(attack_policy, calibration=run.calibration,
                              isolation=isolation or run.isolation)
        started = time.monotonic()
        try:
            result = engine.grade(attack_policy, folder, run=this_run)
        finally:
            seconds = time.monotonic() - started
        if case in STARTS_PROCESSES:
            time.sleep(DAEMON_WAIT)     # a daemon that outlived the sandbox would write now
        try:
            listener.accept()[0].close()
            connected = True
        except BlockingIOError:
            connected = False
        listener.close()
        leaks = [f'process left running: {p}' for p in _stray_processes(before_children)]
        leaks += [f'cgroup left behind: {g}' for g in _stray_cgroups()]
        leaks += [f'file written outside the sandbox: {p}' for p in _mark_places()
                  if p.exists() and p not in marks_before]
        for path in (target / 'daemon-mark.txt', DAEMON_MARK):
            if path.exists():
                leaks.append(f'file written outside the sandbox: {path}')
        if decoy.read_text() != 'decoy: true\n':
            leaks.append(f'{decoy} changed')
        if WRITTEN in Path(attack_policy.path).read_text():
            leaks.append(f'{attack_policy.path} changed')
        if any(private.iterdir()):
            leaks.append(f'private folders left: {sorted(p.name for p in private.iterdir())}')
        by_name = {e.name: e for e in result.exercises}
        return Outcome(result=by_name['tictactoe'],
                       others={n: by_name[n] for n in others if n in by_name},
                       connected=connected, leaks=leaks, seconds=seconds)

    return grade


def _other_exercises(policy):
    """name -> reference source of the exercises graded with tic-tac-toe."""
    assignment = next(a for a in policy.assignments.values() if 'tictactoe' in a.exercises)
    found = {}
    for name in assignment.exercises:
        if name == 'tictactoe' or name not in policy.exercises:
            continue
        folder = ROOT / 'reference' / name
        files = policy.exercises[name].files
        if folder.is_dir():
            found[name] = folder
        elif any((ROOT / 'reference' / f).is_file() for f in files):
            found[name] = next(ROOT / 'reference' / f for f in files
                               if (ROOT / 'reference' / f).is_file())
    return found


def _add_reference(folder, source):
    if source.is_dir():
        shutil.copytree(source, folder, dirs_exist_ok=True)
    else:
        shutil.copy(source, folder / source.name)
