"""What a killed run leaves is removed by the next run, and nothing of a live run is touched.

Owners are marked in names (``grader-<pid>-t<start>-``); a dead owner is
made here by starting a process, reading its mark and ending it.  Processes
standing in for a dead run's sandboxed children are ``sleep`` commands this
test starts itself.
"""
import os
import signal
import subprocess
import sys

import psutil
import pytest

from grader.sandbox import cgroups, leftovers
from gradertest import ROOT
from test_interrupts import (
    copies_hold,
    grader,
    marked_groups,
    outlived,
    private_tmp,
    sandboxed,
    sleeping_submission,
    wait_until,
)


def dead_owner():
    """The mark ``(pid, start)`` of a process that has ended."""
    proc = subprocess.Popen(['sleep', '30'])
    mark = (proc.pid, leftovers._process_start(proc.pid))
    proc.kill()
    proc.wait()
    assert not leftovers.alive(*mark)
    return mark


def marked(folder, mark, rest='x'):
    path = folder / f'grader-{mark[0]}-t{mark[1]}-{rest}'
    path.mkdir()
    return path


def test_marks_name_a_live_owner_and_tell_a_reused_pid():
    mine = leftovers.owner_of(leftovers.prefix() + 'abc')
    assert mine[0] == os.getpid() and leftovers.alive(*mine)
    assert leftovers.owner_of(leftovers.prefix('batch') + 'abc') == mine
    assert not leftovers.alive(os.getpid(), mine[1] + 1)   # same pid, another process
    assert not leftovers.alive(*dead_owner())
    for kind in leftovers.KINDS:
        assert leftovers.owner_of(leftovers.prefix(kind) + 'abc') == mine, kind
    for unmarked in ('grader-abc123', 'grader-1234-5-deadbeef', 'grader-course-0123456789ab-k2j3',
                     'grader-other-1234-t5-x', 'other-1234-t5-x'):
        assert leftovers.owner_of(unmarked) is None, unmarked


def test_sweep_removes_dead_runs_folders_and_keeps_the_rest(tmp_path):
    dead = marked(tmp_path, dead_owner())
    deep = dead / 'submission'
    deep.mkdir()
    fd = os.open(deep, os.O_RDONLY)
    for _ in range(1200):                   # deeper than a recursive removal survives
        os.mkdir('d', dir_fd=fd)
        child = os.open('d', os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = child
    os.close(fd)
    dead_batch = tmp_path / f'grader-batch-{dead.name[len("grader-"):]}'
    dead_batch.mkdir()
    own = tmp_path / (leftovers.prefix() + 'mine')
    own.mkdir()
    unmarked = tmp_path / 'grader-k2j3h4'
    unmarked.mkdir()
    live_other = subprocess.Popen(['sleep', '30'])
    try:
        other = marked(tmp_path, (live_other.pid, leftovers._process_start(live_other.pid)))
        swept = leftovers.sweep(tmp_path, cgroups=False)
        assert swept.folders == 2 and not swept.problems, swept
        assert not dead.exists() and not dead_batch.exists()
        assert own.exists() and unmarked.exists() and other.exists()
        assert 'removed what 1 earlier grader run left when it was stopped: 2 private folders' \
            in swept.sentence()
        assert not leftovers.sweep(tmp_path, cgroups=False)      # nothing more to say
    finally:
        live_other.kill()
        live_other.wait()


def test_processes_working_in_a_dead_runs_folder_are_killed(tmp_path):
    dead = marked(tmp_path, dead_owner())
    (dead / 'tmp').mkdir()
    in_folder = subprocess.Popen(['sleep', '60'], cwd=dead, start_new_session=True)
    with_tmpdir = subprocess.Popen(['sleep', '60'], cwd='/', start_new_session=True,
                                   env={'TMPDIR': str(dead / 'tmp'), 'PATH': os.environ['PATH']})
    elsewhere = subprocess.Popen(['sleep', '60'], cwd=tmp_path, start_new_session=True)
    try:
        swept = leftovers.sweep(tmp_path, cgroups=False)
        assert swept.processes == 2 and swept.folders == 1, swept
        assert in_folder.wait(timeout=5) == -signal.SIGKILL
        assert with_tmpdir.wait(timeout=5) == -signal.SIGKILL
        assert elsewhere.poll() is None
    finally:
        for proc in (in_folder, with_tmpdir, elsewhere):
            proc.kill()
            proc.wait()


def test_a_killed_dask_workers_course_copy_is_swept(policy, tmp_path):
    """A worker unpacks the course it is sent (grader.batch.bundle.load) into the temporary
    folder; killed outright (SIGKILL), it leaves the copy, which the next sweep removes."""
    from grader.batch import bundle
    blob, digest = bundle.make(policy)
    (tmp_path / 'course.zip').write_bytes(blob)
    worker = subprocess.Popen(
        [sys.executable, '-c', 'import sys; from grader.batch import bundle; '
         'policy = bundle.load(open(sys.argv[1], "rb").read(), sys.argv[2]); '
         'print(policy.root, flush=True); sys.stdin.read()',
         str(tmp_path / 'course.zip'), digest],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        env=dict(os.environ, TMPDIR=str(tmp_path)))
    try:
        copy = tmp_path / os.path.basename(worker.stdout.readline().strip())
        assert copy.is_dir() and (copy / 'grading.yaml').is_file()
        assert leftovers.sweep(tmp_path, cgroups=False).folders == 0   # its worker lives
    finally:
        worker.kill()
        worker.wait()
    assert copy.is_dir() and oct(copy.stat().st_mode & 0o777) == '0o700'  # left by the kill
    swept = leftovers.sweep(tmp_path, cgroups=False)
    assert swept.folders == 1 and not swept.problems, swept
    assert not copy.exists() and (tmp_path / 'course.zip').exists()


def test_a_cache_file_a_killed_run_was_writing_is_swept(tmp_path):
    cache = tmp_path / 'cache'
    cache.mkdir()
    dead = dead_owner()
    unfinished = cache / f'grader-{dead[0]}-t{dead[1]}-0123abcd-x1y2.tmp'
    unfinished.write_text('{"key": ')
    mine = cache / f'{leftovers.prefix()}4567-z9.tmp'
    mine.write_text('{')
    entry = cache / 'child-0123abcd.zip'
    entry.write_text('a finished cache entry')
    swept = leftovers.sweep(tmp_path / 'tmp', cgroups=False, cache=cache)
    assert (swept.files, swept.folders) == (1, 0) and not swept.problems, swept
    assert not unfinished.exists() and mine.exists() and entry.exists()
    assert swept.sentence().endswith('stopped: 1 unfinished cache file')


@pytest.fixture
def cgroup_bases():
    support = cgroups.detect()
    if not support.usable:
        pytest.skip(f'no usable cgroups here: {"; ".join(support.problems)}')
    return ([support.v2] if support.v2 else []) + list(support.v1.values())


def test_a_dead_runs_cgroups_are_emptied_and_removed_a_live_runs_are_not(cgroup_bases):
    dead, mine = dead_owner(), leftovers.owner_of(leftovers.prefix())
    made = {}
    for owner in (dead, mine):
        name = f'grader-{owner[0]}-t{owner[1]}-1-test{os.getpid()}'
        made[owner] = [os.path.join(base, name) for base in cgroup_bases]
        for folder in made[owner]:
            os.mkdir(folder)
    inside = subprocess.Popen(['sleep', '60'], start_new_session=True)
    try:
        for folder in made[dead]:
            with open(os.path.join(folder, 'cgroup.procs'), 'w') as f:
                f.write(str(inside.pid))
        swept = leftovers.sweep(ROOT / 'nowhere')
        assert swept.groups >= len(made[dead]) and swept.processes >= 1, swept
        assert inside.wait(timeout=5) == -signal.SIGKILL
        assert not any(os.path.exists(f) for f in made[dead])
        assert all(os.path.exists(f) for f in made[mine])
    finally:
        inside.kill()
        inside.wait()
        for folder in made[mine] + made[dead]:
            if os.path.exists(folder):
                os.rmdir(folder)


def test_the_next_run_of_any_kind_removes_what_a_killed_run_left(tmp_path):
    scratch = private_tmp(tmp_path)
    proc = grader('grade', sleeping_submission(tmp_path), tmp=scratch)
    wait_until(copies_hold(scratch, 'tictactoe.py'), proc)
    wait_until(sandboxed(proc), proc)
    processes = psutil.Process(proc.pid).children(recursive=True)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert os.listdir(scratch), 'a killed run leaves its private copy'
    env = {**os.environ, 'TMPDIR': str(scratch)}
    nxt = subprocess.run([sys.executable, '-m', 'grader', '--config', str(ROOT / 'grading.yaml'),
                          'dist', str(tmp_path / 'dist')], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert nxt.returncode == 0, nxt.stderr
    notes = [line for line in nxt.stderr.splitlines() if 'earlier grader run' in line]
    assert len(notes) == 1 and 'private folder' in notes[0], nxt.stderr
    assert os.listdir(scratch) == []
    still = outlived(processes, 5)
    assert not still, still
    assert not marked_groups({proc.pid} | {p.pid for p in processes})
