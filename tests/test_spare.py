"""A child spawned before its session (grader/sandbox/spare.py) grades like one spawned by it.

- the first session with the same isolation and settings adopts the spare:
  the same process, which until then had no submission;
- a session with other settings, or a spare that died, is not adopted, and
  the session spawns its own;
- :func:`spare.discard` leaves no process and no folder, also after a
  command that stops with an error;
- ``grader check`` gives the same verdicts with and without the spare;
- while a grade's lanes run, spares boot for the lanes still to come: every
  lane but the first ones adopts one, and none is left at the end.
"""
import dataclasses
import json
import os
import signal
import tempfile
import textwrap
import time

import psutil
import pytest

from grader import cli, config, engine
from grader.sandbox import layers, spare
from grader.sandbox.session import SandboxSettings, Session, start_spare
from gradertest import ROOT, SUBMISSIONS, quick_course

ISOLATION = layers.detect()
MODULE = 'def answer():\n    return 42\n'


@pytest.fixture(autouse=True)
def no_spares_left():
    yield
    spare.discard()


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    """The private folders of this test's children are made here, to be seen."""
    folder = tmp_path / 'tmp'
    folder.mkdir()
    monkeypatch.setattr(tempfile, 'tempdir', str(folder))
    return folder


def folder_with(tmp_path, source=MODULE, name='tictactoe.py'):
    folder = tmp_path / 'sub'
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(textwrap.dedent(source))
    return folder


def session(folder, settings=None):
    return Session(folder, 'tictactoe.py', 'grader.child.selftest', isolation=ISOLATION,
                   settings=settings or SandboxSettings())


def children():
    return {p.pid for p in psutil.Process().children(recursive=True)
            if p.status() != psutil.STATUS_ZOMBIE}


def running(pid):
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def waiting_spare(scratch, settings=None):
    """Start a spare: ``(pid, private folder)`` of the one child it started."""
    before, folders = {p.pid for p in psutil.Process().children()}, set(scratch.iterdir())
    start_spare(ISOLATION, settings or SandboxSettings())
    started = [p.pid for p in psutil.Process().children() if p.pid not in before]
    made = set(scratch.iterdir()) - folders
    assert len(started) == 1 and len(made) == 1, (started, made)
    return started[0], made.pop()


def test_the_first_session_adopts_the_spare_which_had_no_submission(tmp_path, scratch):
    pid, workdir = waiting_spare(scratch)
    assert list((workdir / 'submission').iterdir()) == []    # nothing copied before the hello
    with session(folder_with(tmp_path)) as box:
        assert box.start().ok
        assert box.proc.pid == pid and box.workdir == workdir
        assert box.call({'function': 'answer'}, 5).observation['value']['value'] == 42
        assert spare.take(ISOLATION, SandboxSettings()) is None      # taken once
    assert not workdir.exists() and not psutil.pid_exists(pid)


def test_other_settings_do_not_adopt_and_discard_stops_the_spare(tmp_path, scratch):
    pid, workdir = waiting_spare(scratch)
    other = dataclasses.replace(SandboxSettings(), memory_mb=512)
    with session(folder_with(tmp_path), settings=other) as box:
        assert box.start().ok and box.proc.pid != pid
    assert running(pid) and workdir.exists()      # still waiting for a session like it
    spare.discard()
    assert not running(pid) and not workdir.exists()
    assert spare.take(ISOLATION, SandboxSettings()) is None


def test_a_spare_that_died_is_not_adopted(tmp_path, scratch):
    pid, workdir = waiting_spare(scratch)
    os.kill(pid, signal.SIGKILL)                  # this test's own child
    deadline = time.monotonic() + 10
    while running(pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not running(pid)
    with session(folder_with(tmp_path)) as box:
        assert box.start().ok
        assert box.workdir != workdir and box.proc.pid != pid
        assert box.call({'function': 'answer'}, 5).observation['value']['value'] == 42
    assert not workdir.exists() and not psutil.pid_exists(pid)
    assert list(scratch.iterdir()) == []


def test_a_copy_that_fails_is_a_failed_start_not_a_crash(tmp_path, scratch):
    pid, _ = waiting_spare(scratch, SandboxSettings(max_copy_mb=0))
    with session(folder_with(tmp_path), settings=SandboxSettings(max_copy_mb=0)) as box:
        loaded = box.start()
        assert not loaded.ok and 'could not be copied' in loaded.error
        assert 'larger than 0 MB' in loaded.error
        assert box.proc is None
    assert not running(pid)
    assert list(scratch.iterdir()) == []


def test_a_command_that_stops_with_an_error_leaves_no_spare(tmp_path, scratch, capsys):
    before = children()
    empty = tmp_path / 'empty'
    empty.mkdir()
    assert cli.main(['--config', str(ROOT / 'grading.yaml'), 'check', str(empty)]) == 2
    assert 'grader: error:' in capsys.readouterr().err
    assert children() <= before
    assert list(scratch.iterdir()) == []


def takes(monkeypatch):
    """Record whether each :func:`spare.take` found a spare (a list filled as they come)."""
    taken, take = [], spare.take

    def recording(isolation, settings):
        found = take(isolation, settings)
        taken.append(found is not None)
        return found
    monkeypatch.setattr(spare, 'take', recording)
    return taken


def verdicts(path):
    result = json.loads(path.read_text())
    return [(e['name'], c['name'], c['score'], c['passed'], c['cases_passed'])
            for e in result['exercises'] for c in e['checks']]


def test_check_gives_the_same_verdicts_with_and_without_the_spare(policy, tmp_path,
                                                                   monkeypatch):
    """Under the quick course (fewer cases): whether the spare is adopted does not depend on
    how many cases the lanes have."""
    folder = tmp_path / 'handout'
    folder.mkdir()
    for source, target in (('tictactoe/bug_no_undo.py', 'tictactoe.py'),
                           ('connect4/alphabeta_make_unmake.py', 'connect4.py')):
        (folder / target).write_text((SUBMISSIONS / source).read_text())
    taken = takes(monkeypatch)
    config = ['--config', str(quick_course(policy, tmp_path / 'course'))]
    assert cli.main([*config, 'check', str(folder), '-q', '--json', str(tmp_path / 'a.json')]) == 0
    # every lane that booted a sandbox adopted a spare (one per worker booted at the start,
    # the others as the lanes before them started)
    assert len(taken) >= min(2, os.cpu_count() or 1) and all(taken), taken
    monkeypatch.setattr('grader.sandbox.session.start_spare', lambda isolation, settings: None)
    taken.clear()
    assert cli.main([*config, 'check', str(folder), '-q', '--json', str(tmp_path / 'b.json')]) == 0
    assert taken and not any(taken)
    assert verdicts(tmp_path / 'a.json') == verdicts(tmp_path / 'b.json')


def test_the_settings_read_before_the_policy_are_the_policys(tmp_path):
    """The command line spawns the spare from the document alone; the policy must agree."""
    text = (ROOT / 'grading.yaml').read_text()
    assert '  memory_mb: 1024' in text
    custom = tmp_path / 'grading.yaml'
    custom.write_text(text.replace('  memory_mb: 1024', '  memory_mb: 700\n  processes: 9', 1)
                      .replace('fixtures/', f'{ROOT}/fixtures/'))
    for path in (ROOT / 'grading.yaml', custom):
        document = config.read(path)
        policy = config.load(document=document)
        assert config.sandbox_settings(document[1]) == policy.sandbox
        assert policy == config.load(path)
    assert config.load(custom).sandbox.memory_mb == 700


def test_the_lanes_still_to_come_adopt_spares_and_none_is_left(tmp_path, monkeypatch):
    folder = tmp_path / 'reference'
    folder.mkdir()
    for name in ('tictactoe.py', 'eightpuzzle.py'):
        (folder / name).write_text((ROOT / 'reference' / name).read_text())
    taken = takes(monkeypatch)
    policy = config.load(ROOT / 'grading.yaml')
    run = engine.Run(policy, jobs=2)
    before = children()
    result = engine.grade_many(policy, folder, ['oulu-exercise-1'], run=run)[0]
    # Tic-tac-toe's lane and the eight puzzle's boot their own; of the eight puzzle's
    # own-worker lanes (public starts), one may find neither a spare nor a sandbox kept by
    # an earlier lane that ran public cases only (see engine.Sandboxes): it boots its own.
    assert len(taken) >= 2
    assert taken.count(False) <= 3 and taken.count(True) >= 1, taken
    assert spare.kept(run.isolation, policy.sandbox) == 0
    assert children() <= before
    for name in ('tictactoe', 'eightpuzzle'):
        exercise = result.exercise(name)
        assert exercise.score == exercise.max_score, [c.message for c in exercise.checks]


def test_no_sandbox_boots_for_an_exercise_not_handed_in(tmp_path, monkeypatch):
    """One exercise of a three-exercise assignment: its lane's sandbox is the only one.  The
    exercises without a file are planned slowly here, so that the lane's child has started
    (and asked for sandboxes for the lanes still to come) while they are still unplanned:
    they have no lane, and no sandbox boots for them, early or spare."""
    folder = tmp_path / 'alone'
    folder.mkdir()
    (folder / 'tictactoe.py').write_text((ROOT / 'reference' / 'tictactoe.py').read_text())
    make = engine.ExercisePlan.make.__func__

    def slowly(cls, run, name, submission_dir, content=None):
        if name != 'tictactoe':
            time.sleep(0.5)
        return make(cls, run, name, submission_dir, content)
    monkeypatch.setattr(engine.ExercisePlan, 'make', classmethod(slowly))
    booted, keep = [], engine.keep_spares

    def recording(*args):
        made = keep(*args)
        booted.extend(made)
        return made
    monkeypatch.setattr(engine, 'keep_spares', recording)
    taken = takes(monkeypatch)
    policy = config.load(ROOT / 'grading.yaml')
    run = engine.Run(policy, jobs=2)
    result = engine.grade_many(policy, folder, ['oulu-exercise-1'], run=run)[0]
    assert booted == [] and taken == [False], (booted, taken)
    exercise = result.exercise('tictactoe')
    assert exercise.score == exercise.max_score, [c.message for c in exercise.checks]
