"""The in-process guard on its own: every way to start a process is refused.

With the kernel layers switched off (seccomp, namespaces, the uid drop, the
cgroup), only the in-process guard (the audit hook and the stand-ins of
:func:`grader.child.layers.install_guards`) stands between a submission and
a new process.  ``submissions/process_starts.py`` tries every way it knows,
each of which, when it works, only writes a marker into a folder this test
owns; the sandbox is torn down with everything in it.  The result's
isolation says what held: the guard as in-process and best effort, the
kernel layers as switched off.
"""
import ast
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from grader.child import layers as guards
from grader.sandbox import layers
from test_attacks import attack, full_marks, warned  # noqa: F401 - attack is a fixture

KERNEL = ('seccomp', 'namespaces', 'uid-drop', 'cgroup')


ROOT = Path(__file__).resolve().parents[2]
ATTEMPTS = Path(__file__).parent / 'submissions' / 'process_starts.py'


def ways():
    """The names of the ways ``process_starts.py`` tries (its ``WAYS``)."""
    tree = ast.parse(ATTEMPTS.read_text())
    table = next(node.value for node in tree.body if isinstance(node, ast.Assign)
                 and getattr(node.targets[0], 'id', '') == 'WAYS')
    return [key.value for key in table.keys]


@pytest.mark.skipif(not sys.platform.startswith('linux'), reason='the sandbox runs on Linux')
def test_the_guard_alone_refuses_every_way_to_start_a_process(attack, run, tmp_path):  # noqa: F811
    isolation = layers.weaker(run.isolation, KERNEL)
    assert isolation.has('audit-hook') and not any(isolation.has(layer) for layer in KERNEL)
    outcome = attack('process_starts', isolation)
    started = sorted(p.name for p in (tmp_path / 'reachable').glob('started-*'))
    assert not started, f'processes started: {started}'
    warned(outcome, f'{len(ways())} ways tried; not refused: none')
    full_marks(outcome)


@pytest.mark.skipif(not sys.platform.startswith('linux'), reason='the sandbox runs on Linux')
def test_without_the_guard_the_same_ways_start_processes(graded, run, tmp_path):
    """The test above can fail: with the guard off too, processes start and are seen."""
    isolation = layers.weaker(run.isolation, (*KERNEL, 'audit-hook'))
    outcome = graded('process_starts', isolation)
    started = {p.name for p in (tmp_path / 'reachable').glob('started-*')}
    assert {'started-fork', 'started-posix_spawn', 'started-system', 'started-subprocess',
            'started-fork_exec', 'started-mp-fork', 'started-mp-spawn'} <= started, started
    assert not outcome.leaks, outcome.leaks


def test_only_the_attacks_listed_as_starting_processes_name_a_way_to_start_one():
    """The leak check waits for a late daemon after the attacks of STARTS_PROCESSES only: no
    other attack here names (in its code: names, attributes, imports) a way to start a
    process, so none of them could leave one behind."""
    from spawning import PROCESS_WORDS, STARTS_PROCESSES
    named = {}
    for path in sorted((Path(__file__).parent / 'submissions').glob('*.py')):
        tree = ast.parse(path.read_text())
        words = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
        words |= {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
        words |= {alias.name for node in ast.walk(tree)
                  if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
        words |= {node.module for node in ast.walk(tree)
                  if isinstance(node, ast.ImportFrom) and node.module}
        found = sorted(w for w in words if any(p in w for p in PROCESS_WORDS))
        if found:
            named[path.stem] = found
    assert set(STARTS_PROCESSES) <= set(named), named        # the words find them
    assert set(named) <= set(STARTS_PROCESSES), {k: v for k, v in named.items()
                                                 if k not in STARTS_PROCESSES}


def python(code, cwd, seconds=60):
    """Run ``code`` in a fresh interpreter (own session, killed whole on time-out)."""
    process = subprocess.Popen([sys.executable, '-c', code], cwd=cwd, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        out, err = process.communicate(timeout=seconds)
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return out, err


def test_every_copy_of_fork_exec_bound_before_the_guard_is_listed_and_replaced(tmp_path):
    """``fork_exec`` raises no audit event, so a copy a module bound before the guard
    (``subprocess._fork_exec``) would start processes: the guard knows every place the
    standard library binds one, and replaces it."""
    code = """
import importlib, sys, _posixsubprocess
from grader.child import layers, source
for name in sorted(source.PREIMPORT) + [
        'subprocess', 'multiprocessing', 'multiprocessing.util', 'multiprocessing.forkserver',
        'multiprocessing.popen_spawn_posix', 'multiprocessing.popen_forkserver',
        'concurrent.futures.process', 'asyncio', 'pty', 'platform', 'shutil', 'ctypes']:
    importlib.import_module(name)
def holders(original=_posixsubprocess.fork_exec):
    return sorted((m, k) for m, module in list(sys.modules.items())
                  for k, v in list(getattr(module, '__dict__', {}).items()) if v is original)
print(holders())
layers.install_guards()
print(holders())
"""
    out, err = python(code, tmp_path)
    before, after = out.splitlines()
    assert set(ast.literal_eval(before)) - {('_posixsubprocess', 'fork_exec')} <= \
        set(guards.BOUND_COPIES), (before, err)
    assert ast.literal_eval(after) == [], (after, err)


def test_no_built_in_module_is_made_afresh_once_the_guard_stands(tmp_path):
    """A module compiled into the interpreter is made afresh by ``_imp.create_builtin``,
    which raises no audit event: ``posix`` on every Python, and ``_posixsubprocess`` on
    many distributions' Pythons (Debian's), whose fresh copy has a ``fork_exec`` without
    the stand-in.  Before the guard a fresh ``posix`` is made, with a ``fork`` of its own;
    once it stands, every built-in module is there already, none is made again, and the
    original maker is gone (no object the collector knows is it)."""
    code = """
import _imp, gc, importlib.machinery, sys
def fresh(name):
    try:
        return _imp.create_builtin(importlib.machinery.ModuleSpec(name, None))
    except PermissionError as exc:
        return str(exc)
before = fresh('posix')
print(before is not sys.modules['posix'] and before.fork is not sys.modules['posix'].fork)
from grader.child import layers
layers.install_guards()
print(sorted(set(sys.builtin_module_names) - set(sys.modules)))
print([fresh(name) for name in ('posix', '_posixsubprocess', '_imp')])
print([o for o in gc.get_objects() if getattr(o, '__name__', None) == 'create_builtin'
       and getattr(o, '__self__', None) is _imp])
"""
    out, err = python(code, tmp_path)
    made_before, missing, refused, originals = out.splitlines()
    assert made_before == 'True', err
    assert all(name.startswith(guards.NOT_MADE) for name in ast.literal_eval(missing)), missing
    assert ast.literal_eval(refused) == [
        'making a fresh copy of a built-in module is not allowed while grading '
        '(_imp.create_builtin)'] * 3, refused
    assert originals == '[]', originals


def test_the_guard_refuses_every_way_after_subprocess_was_imported(tmp_path):
    """The guard alone, in a plain interpreter: ``process_starts.py`` run after
    ``import subprocess`` and :func:`install_guards`; no process starts."""
    marks = tmp_path / 'marks'
    marks.mkdir()
    (tmp_path / 'target.txt').write_text(str(marks / 'daemon-mark.txt'))
    (tmp_path / 'tictactoe.py').write_text(ATTEMPTS.read_text())
    code = ('import subprocess\nfrom grader.child import layers\nlayers.install_guards()\n'
            'import runpy\nrunpy.run_path("tictactoe.py")\n')
    _, err = python(code, tmp_path)
    assert not sorted(p.name for p in marks.glob('started-*'))
    assert f'{len(ways())} ways tried; not refused: none' in err, err


# -- what the report says --------------------------------------------------------------
SELF = '''
import os

def status():
    lines = dict(line.split(':', 1) for line in open('/proc/self/status'))
    return [os.getuid(), int(lines['Seccomp']), int(lines['NoNewPrivs'])]
'''


@pytest.mark.skipif(not sys.platform.startswith('linux'), reason='the sandbox runs on Linux')
@pytest.mark.parametrize('off', [(), KERNEL, ('seccomp',), ('uid-drop', 'namespaces'),
                                 ('audit-hook',)], ids=lambda off: '-'.join(off) or 'none')
def test_the_isolation_report_lists_the_layers_in_force_and_who_holds_them(run, tmp_path, off):
    from grader.sandbox.session import Session
    isolation = layers.weaker(run.isolation, off) if off else run.isolation
    report = isolation.report()
    assert sorted(report['kernel'] + report['grader'] + report['in_process']) == \
        sorted(report['layers'])                         # every layer in force is named
    assert report['in_process'] == (['audit-hook'] if 'audit-hook' not in off else [])
    assert ('a best effort only: audit-hook' in report['summary']) == ('audit-hook' not in off)
    held = report['summary'].split('held by the kernel: ', 1)[1].split(';', 1)[0].split(', ')
    assert held == report['kernel'] and 'audit-hook' not in held
    for layer in off:
        assert layer not in report['layers'] and layer in report['summary'].split(
            'not in force: ', 1)[1]
    folder = tmp_path / 'sub'
    folder.mkdir()
    (folder / 'tictactoe.py').write_text(SELF)
    with Session(folder, 'tictactoe.py', 'grader.child.selftest', isolation=isolation) as session:
        assert session.start().ok
        uid, seccomp, _ = [v['value'] for v in session.call({'function': 'status'}, 5.0)
                           .observation['value']]
        applied = session.runner['applied']
    for layer in ('rlimits', 'uid-drop', 'seccomp'):
        assert (layer in applied) == isolation.has(layer), (layer, applied)
    assert (uid != os.geteuid()) == isolation.has('uid-drop')
    assert (seccomp == 2) == isolation.has('seccomp')
