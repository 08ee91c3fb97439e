"""The sandbox's layers, one at a time, through :class:`grader.sandbox.session.Session`.

The child runs ``grader.child.selftest``, which calls one function of a
small module and reports what it returned.  Each test skips, with the reason,
when the layer it is about is missing on this machine.
"""
import json
import os
import subprocess
import sys
import textwrap
import time

import psutil
import pytest

from grader.sandbox import layers
from grader.sandbox.session import Session

ISOLATION = layers.detect()

MODULE = '''
import os, socket, sys, threading, time

def identity():
    status = dict(line.split(':', 1) for line in open('/proc/self/status'))
    return [os.getuid(), os.getgid(), len(os.getgroups()), int(status['NoNewPrivs']),
            int(status['Seccomp']), os.getpid(), os.getppid(),
            len([p for p in os.listdir('/proc') if p.isdigit()])]

def visible():
    names = ['/work/main/reference', '/work/main/fixtures', '/work/main/grading.yaml',
             '/root/.ssh', '/etc/passwd', '/etc/shadow', '/var/run/docker.sock']
    return [n for n in names if os.path.exists(n)]

def fork():
    return os.fork()

def inet_socket():
    return socket.socket(socket.AF_INET, socket.SOCK_STREAM).fileno()

def threads():
    box = []
    worker = threading.Thread(target=lambda: box.append(6 * 7))
    worker.start()
    worker.join()
    return box[0]

def spin():
    while True:
        pass

def stubborn():
    while True:
        try:
            while True:
                pass
        except BaseException:
            pass

def burn():
    began = time.thread_time()
    while time.thread_time() - began < 0.05:
        pass
    return 1

def forged_mark():
    # Claims a setup as long as the whole call, on every descriptor it can reach.
    for fd in range(3, 64):
        try:
            os.write(fd, b'mark 1000.0\\n')
        except OSError:
            pass
    return burn()

def work_then_block():
    # Computes for a while, then waits for ever (a queue.get on an empty queue).
    began = time.thread_time()
    while time.thread_time() - began < 0.6:
        pass
    time.sleep(60)

def daemon():
    if os.fork() == 0:
        os.setsid()
        if os.fork():
            os._exit(0)
        time.sleep(30)
        os._exit(0)
    return 1
'''


def session(tmp_path, isolation, **kwargs):
    folder = tmp_path / 'sub'
    folder.mkdir(exist_ok=True)
    (folder / 'tictactoe.py').write_text(textwrap.dedent(MODULE))
    return Session(folder, 'tictactoe.py', 'grader.child.selftest', isolation=isolation,
                   **kwargs)


def value(reply):
    assert reply.ok, (reply.status, reply.error)
    item = reply.observation['value']
    return [i.get('value') for i in item] if isinstance(item, list) else item.get('value')


def require(*names, isolation=ISOLATION):
    missing = [n for n in names if not isolation.has(n)]
    if missing:
        pytest.skip(f'layer(s) {", ".join(missing)} unavailable: {"; ".join(isolation.missing)}')


def test_detect_names_every_missing_layer_in_one_line():
    isolation = layers.detect()
    assert isolation.level in ('advisory', 'standard', 'strong')
    assert all('\n' not in line and ':' in line for line in isolation.missing)
    if isolation.level == 'strong':
        assert all(isolation.has(layer) for layer in layers.STRONG)
    for layer in layers.STRONG:
        assert isolation.has(layer) or any(m.startswith(layer + ':') for m in isolation.missing)


def test_strong_child_is_unprivileged_and_alone(tmp_path):
    require(*layers.STRONG)
    with session(tmp_path, ISOLATION) as box:
        assert box.start().ok
        uid, gid, groups, no_new_privs, seccomp, pid, ppid, seen = \
            value(box.call({'function': 'identity'}, 5))
        assert (uid, gid, groups) == (box.uid, box.uid, 0) and uid in layers.SANDBOX_UIDS
        assert no_new_privs == 1 and seccomp == 2
        # Its own PID namespace: the only other process it sees is its parent,
        # the runner (PID 1), which never runs student code.
        assert ppid == 1 and pid > 1 and seen == 2
        assert value(box.call({'function': 'visible'}, 5)) == []
        child = psutil.Process(box.proc.pid).children(recursive=True)
        assert any(p.uids().real == box.uid for p in child)


def test_seccomp_alone_denies_processes_and_sockets_but_not_threads(tmp_path):
    require('seccomp')
    isolation = layers.weaker(ISOLATION, ['audit-hook'])
    with session(tmp_path, isolation) as box:
        assert box.start().ok
        for function in ('fork', 'inet_socket'):
            reply = box.call({'function': function}, 5)
            assert reply.status == 'error' and 'PermissionError' in reply.error, reply.error
        assert value(box.call({'function': 'threads'}, 5)) == 42


def test_network_namespace_alone_has_no_route(tmp_path):
    require('namespaces')
    isolation = layers.weaker(ISOLATION, ['audit-hook', 'seccomp'])
    with session(tmp_path, isolation) as box:
        assert box.start().ok
        reply = box.call({'function': 'inet_socket'}, 5)
        assert reply.ok   # a socket can be made, but nothing can be reached from it
        probe = ('import socket\ndef connect():\n    s = socket.socket()\n'
                 '    s.settimeout(1)\n    s.connect(("10.255.255.1", 9))\n')
        assert 'Network is unreachable' in _run_source(tmp_path, isolation, probe, 'connect')


def _run_source(tmp_path, isolation, source, function):
    folder = tmp_path / 'extra'
    folder.mkdir(exist_ok=True)
    (folder / 'tictactoe.py').write_text(source)
    with Session(folder, 'tictactoe.py', 'grader.child.selftest', isolation=isolation) as box:
        assert box.start().ok
        reply = box.call({'function': function}, 5)
        return reply.error


@pytest.mark.parametrize('function', ['spin', 'stubborn'])
def test_call_time_limit_holds_and_the_next_call_starts_afresh(tmp_path, function):
    with session(tmp_path, ISOLATION) as box:
        assert box.start().ok
        started = time.monotonic()
        reply = box.call({'function': function}, 0.5)
        assert reply.status == 'timeout' and reply.cpu >= 0.5
        # CPU limit 0.5 s, read by the parent from outside: the case process
        # is stopped there, whatever it does with exceptions or signals, and
        # the sandbox stays up for the next case.
        from grader.sandbox.session import GRACE_SECONDS
        assert time.monotonic() - started < 0.5 + GRACE_SECONDS + 1.0
        assert value(box.call({'function': 'threads'}, 5)) == 42
        assert box.starts == 1


def test_a_call_that_computes_then_waits_is_stopped_soon_after_it_stops_computing(tmp_path):
    """Its CPU share over the whole call stays above IDLE_SHARE for a long time; the share
    over its last IDLE_WINDOW seconds falls to nothing at once, and that stops it, not the
    wall allowance (four times the limit)."""
    from grader.sandbox.session import GRACE_SECONDS, IDLE_WINDOW, wall_allowance
    limit = 2.0
    with session(tmp_path, ISOLATION) as box:
        assert box.start().ok
        if box.clock is None or box.clock.resolution > 0.05:
            pytest.skip('no fine CPU clock for the sandbox here: waits end at the wall allowance')
        started = time.monotonic()
        reply = box.call({'function': 'work_then_block'}, limit)
        took = time.monotonic() - started
        assert reply.status == 'timeout' and reply.waited
        assert 'waited without computing' in reply.error
        assert 0.5 <= reply.cpu < limit
        assert limit < took < limit + GRACE_SECONDS + IDLE_WINDOW + 1.0 < wall_allowance(limit)
        assert value(box.call({'function': 'threads'}, 5)) == 42


def test_a_call_s_cpu_is_its_own_and_a_forged_mark_changes_nothing(tmp_path):
    """The case process's setup (fork, layers) is measured before any student code runs and
    kept out of the call's CPU time; a mark the submission writes later is not the runner's."""
    with session(tmp_path, ISOLATION) as box:
        assert box.start().ok
        reply = box.call({'function': 'burn'}, 5)
        assert value(reply) == 1
        assert reply.setup_cpu > 0 and 0.05 <= reply.cpu < 0.05 + 0.05
        forged = box.call({'function': 'forged_mark'}, 5)
        assert forged.cpu >= 0.05 and forged.setup_cpu < 0.05
        assert not forged.ok or value(forged) == 1


def test_teardown_without_cgroup_or_namespaces_sweeps_a_daemon(tmp_path):
    """The weakest Linux level: a double-forked setsid() daemon is still killed."""
    require('rlimits')
    if not os.uname().sysname == 'Linux':
        pytest.skip('the subreaper sweep is Linux only')
    isolation = layers.weaker(ISOLATION, ['audit-hook', 'seccomp', 'namespaces', 'cgroup',
                                          'uid-drop'])
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    with session(tmp_path, isolation) as box:
        assert box.start().ok
        assert value(box.call({'function': 'daemon'}, 5)) == 1
    time.sleep(0.2)
    left = [p for p in psutil.Process().children(recursive=True)
            if p.pid not in before and p.status() != psutil.STATUS_ZOMBIE]
    assert not left, left


def test_start_cost_per_level(tmp_path, capsys):
    """Child start (process, layers, import of a small module), median of 5, per level."""
    levels = {'strong': ISOLATION,
              'standard': layers.weaker(ISOLATION, ['namespaces', 'seccomp', 'cgroup',
                                                    'uid-drop'])}
    costs = {}
    for name, isolation in levels.items():
        times = []
        with session(tmp_path, isolation) as box:
            for _ in range(5):
                started = time.monotonic()
                assert box.start().ok
                times.append(time.monotonic() - started)
        costs[name] = sorted(times)[2]
    with capsys.disabled():
        print('\nchild start, median of 5: ' + ', '.join(
            f'{name} ({levels[name].level}) {1000 * s:.0f} ms' for name, s in costs.items()))
    assert all(s < 2.0 for s in costs.values())


@pytest.mark.parametrize('data,total,expected', [
    (b'mark 0.003\n{"id": 1}\n', 0.01, (0.003, b'{"id": 1}\n')),
    (b'{"id": 1}\n', 0.01, (0.0, b'{"id": 1}\n')),          # no mark: the process failed first
    (b'mark 0.5\n{"id": 1}\n', 0.01, (0.0, b'{"id": 1}\n')),  # more than the whole process
    (b'mark nan?\n{"id": 1}\n', 0.01, (0.0, b'mark nan?\n{"id": 1}\n')),
    (b'mark 0.003', 0.01, (0.0, b'mark 0.003')),            # no whole line
])
def test_the_runner_reads_only_a_whole_sane_mark(data, total, expected):
    from grader.child import runner
    assert runner.split_mark(data, total) == expected
    assert runner.replied(b'mark 0.003\n') is False
    assert runner.replied(b'mark 0.003\n{"id": 1}\n') is True


MEMORY_ROUTES = """
import sys


def memory_routes():
    found = [name for name in ('ctypes', '_ctypes', 'pyseccomp', '_cffi_backend')
             if name in sys.modules]
    seen, todo = set(), [object]
    while todo:
        for sub in type.__subclasses__(todo.pop()):
            if sub not in seen:
                seen.add(sub)
                todo.append(sub)
    found += sorted({'class of ' + c.__module__ for c in seen
                     if c.__module__ in ('ctypes', '_ctypes')})
    for name in ('ctypes', '_ctypes', 'ctypes.util', '_testcapi', '_testinternalcapi'):
        try:
            __import__(name)
            found.append('import ' + name)
        except BaseException:
            pass
    return found
"""


def test_a_case_process_has_no_route_to_its_own_memory(tmp_path):
    """ctypes, once loaded, reads and writes any memory with no audit event (``ctypes.cast``):
    the counter's tallies with it.  The runner loads no ctypes (its layers go through the
    counter's extension), so a case process finds none: not in ``sys.modules``, not among
    the classes alive, and it cannot import it (nor ``_ctypes`` or the C test modules)."""
    from grader import instruments
    from grader.child import tally
    if not tally.loaded() and not tally.load(None):
        pytest.skip(instruments.missing_counter_line(official=False))
    folder = tmp_path / 'sub'
    folder.mkdir()
    (folder / 'tictactoe.py').write_text(MEMORY_ROUTES)
    with Session(folder, 'tictactoe.py', 'grader.child.selftest', isolation=ISOLATION) as box:
        assert box.start().ok
        assert value(box.call({'function': 'memory_routes'}, 10)) == []


def test_the_case_filter_compiled_once_is_what_libseccomp_builds_for_each_pid():
    """Each case loads the runner's compiled filter with its pid written in: byte for byte
    the program libseccomp builds for that pid (so the cache changes nothing of the layer)."""
    require('seccomp')
    from grader.child import layers as child
    seccomp = child._load_pyseccomp()
    compiled = child.CaseFilter(seccomp)
    assert compiled.program is not None and compiled.slots, 'the filter was not cached'
    for pid in (2, 3, 77, 4242, 65535, 4194304):
        assert compiled.program_for(pid) == child._bpf(child.case_rules(seccomp, pid))
    # Programs that differ elsewhere than in the pid are not patched, but built per case.
    assert child._slots(b'\0' * 16, b'\1' * 16, child.CaseFilter.SENTINELS) == ()


def test_without_the_counter_the_layers_still_hold(tmp_path, monkeypatch):
    """A grader whose counter could not be built ships none: the runner then sets its
    layers through the C library (ctypes) and compiles the filters itself, and a case
    process is as unprivileged, alone and filtered as with it."""
    require(*layers.STRONG)
    from grader.child import tally
    from grader.sandbox import bundle
    monkeypatch.setattr(tally, 'extension_path', lambda: None)
    monkeypatch.setattr(bundle, '_cache', {})
    assert tally.MEMBER not in bundle.members()
    with session(tmp_path, ISOLATION) as box:
        assert box.start().ok
        uid, gid, groups, no_new_privs, seccomp, pid, ppid, seen = \
            value(box.call({'function': 'identity'}, 5))
    assert (uid, gid, groups) == (box.uid, box.uid, 0)
    assert no_new_privs == 1 and seccomp == 2 and ppid == 1 and seen == 2


def test_the_programs_compiled_in_the_graders_process_are_libseccomps(tmp_path, monkeypatch):
    """The runner loads the programs the grader compiled (and cached) for it: byte for byte
    the runner filter libseccomp builds, and the case filter it builds for each pid."""
    require('seccomp')
    import base64

    from grader.child import layers as child
    from grader.sandbox import session as sessions
    monkeypatch.setenv('GRADER_CACHE_DIR', str(tmp_path))
    sessions.seccomp_programs.cache_clear()
    fresh = sessions.seccomp_programs()
    sessions.seccomp_programs.cache_clear()
    cached = sessions.seccomp_programs()
    sessions.seccomp_programs.cache_clear()
    assert fresh == cached and list(tmp_path.glob('*.json'))
    seccomp = child._load_pyseccomp()
    assert base64.b64decode(cached['runner']) == child._bpf(child.seccomp_rules(seccomp))
    case = child.CaseFilter.compiled(base64.b64decode(cached['case']), cached['slots'])
    for pid in (2, 77, 4194304):
        assert case.program_for(pid) == child._bpf(child.case_rules(seccomp, pid))


HOLDER = '''
import sys, textwrap
from pathlib import Path
from grader.sandbox import layers
from grader.sandbox.session import Session
folder, without = Path(sys.argv[1]), sys.argv[2].split(",") if sys.argv[2] else []
(folder / "tictactoe.py").write_text("import time\\ndef sleepy():\\n    time.sleep(60)\\n")
isolation = layers.weaker(layers.detect(), without)
with Session(folder, "tictactoe.py", "grader.child.selftest", isolation=isolation) as box:
    assert box.start().ok
    print(box.proc.pid, flush=True)
    box.call({"function": "sleepy"}, 30)
'''

WATCHER = '''
import ctypes, json, os, signal, subprocess, sys, time
import psutil
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)     # PR_SET_CHILD_SUBREAPER: orphans come here
holder = subprocess.Popen([sys.executable, "-c", *sys.argv[1:]], stdout=subprocess.PIPE)
first, expected = int(holder.stdout.readline()), 3 if sys.argv[3] == "" else 2
sandbox, deadline = [psutil.Process(first)], time.monotonic() + 10
while len(sandbox) < expected and time.monotonic() < deadline:
    time.sleep(0.05)
    sandbox = [psutil.Process(first)] + psutil.Process(first).children(recursive=True)
time.sleep(0.3)                             # the case process is in its call
os.kill(holder.pid, signal.SIGKILL)         # the grading process alone, outright

def running():
    return [p.pid for p in sandbox if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]

deadline = time.monotonic() + 2.0
while running() and time.monotonic() < deadline:
    time.sleep(0.05)
alive = running()
print(json.dumps({"sandbox": len(sandbox), "alive": alive}), flush=True)
for pid in alive:
    os.kill(pid, signal.SIGKILL)            # what this test started, by pid
'''
"""Grades in a process of its own (the holder), kills that process outright in the middle
of a call, and reports which of its sandbox's processes still run 2 s later (it stops
looking as soon as none does).  It adopts
the orphans (a subreaper that never sweeps them), as no grader is left to."""


@pytest.mark.parametrize('without', ['', 'namespaces,cgroup'], ids=['strong', 'no-namespaces'])
def test_a_grader_killed_outright_takes_its_sandbox_with_it(tmp_path, without):
    """SIGKILL to the grading process alone (no clean-up can run): its sandbox, the runner
    and the case process in the middle of a call, ends with it, at every level."""
    if without == '' and ISOLATION.level != 'strong':
        pytest.skip(f'the strong level is unavailable: {"; ".join(ISOLATION.missing)}')
    folder = tmp_path / 'held'
    folder.mkdir()
    done = subprocess.run([sys.executable, '-c', WATCHER, HOLDER, str(folder), without],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen['sandbox'] == (3 if without == '' else 2), seen
    assert seen['alive'] == [], f'outlived the grader: {seen}'


def test_polling_is_called_while_a_call_runs_and_meanwhile_once(tmp_path):
    """``meanwhile`` runs once when the request is sent; ``polling`` at every look at the
    clock until the reply (the engine judges the cases answered before as soon as the
    calibration's unit is known, not a long call later)."""
    from grader.sandbox.session import POLL_SECONDS
    with session(tmp_path, ISOLATION) as box:
        assert box.start().ok
        once, polls = [], []
        started = time.monotonic()
        reply = box.call({'function': 'work_then_block'}, 0.3, meanwhile=lambda: once.append(1),
                         polling=lambda: polls.append(time.monotonic()))
        took = time.monotonic() - started
        assert reply.status == 'timeout' and once == [1]
        # Every POLL_SECONDS while it runs (a quarter of them at least, on a busy machine).
        assert len(polls) >= 0.25 * took / POLL_SECONDS and polls[-1] - polls[0] > 0.5 * took, \
            (len(polls), took)
