"""Teardown without a cgroup: adopt orphans as a child subreaper, then sweep them.

When the grader is a child subreaper (``PR_SET_CHILD_SUBREAPER``), a process
whose parent dies -- a daemon that double-forked and called ``setsid()`` --
is re-parented to the grader instead of to init, so it stays findable.
:func:`sweep` kills and reaps every such adopted process that belongs to one
sandbox: its working folder, or the ``TMPDIR`` it inherited, lies inside the
sandbox's private folder.
"""
import os
import signal
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
_state = {'subreaper': False}


def become_subreaper():
    """Make this process adopt orphaned descendants (Linux); True when it does."""
    if _state['subreaper']:
        return True
    if not sys.platform.startswith('linux'):
        return False
    import ctypes  # ctypes is slow to import: only where a subreaper is made
    libc = ctypes.CDLL(None, use_errno=True)
    _state['subreaper'] = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    return _state['subreaper']


def _belongs(process, folder):
    try:
        cwd = process.cwd()
    except Exception:  # noqa: BLE001 - gone, or not ours to read
        cwd = ''
    if cwd == folder or cwd.startswith(folder + os.sep):
        return True
    try:
        tmp = process.environ().get('TMPDIR', '')
    except Exception:  # noqa: BLE001
        tmp = ''
    return tmp.startswith(folder + os.sep)


def sweep(folder, rounds=20):
    """Kill and reap this process's children that belong to the sandbox ``folder``."""
    try:
        import psutil  # psutil is slow to import: only when a sandbox has to be swept
    except ImportError:
        return 0
    killed = 0
    for _ in range(rounds):
        found = [p for p in psutil.Process().children() if _belongs(p, folder)]
        if not found:
            break
        for process in found:
            try:
                process.send_signal(signal.SIGKILL)
                killed += 1
            except Exception:  # noqa: BLE001
                pass
        for process in found:
            try:
                os.waitpid(process.pid, 0)
            except ChildProcessError:
                pass
        time.sleep(0.01)
    return killed



def _proc_children(pid):
    """The pids of ``pid``'s direct children, from /proc ([] when ``pid`` is gone).

    None where the kernel keeps no ``/proc/<pid>/task/<tid>/children`` lists.
    """
    if not os.path.exists(f'/proc/self/task/{os.getpid()}/children'):
        return None
    try:
        tasks = os.listdir(f'/proc/{pid}/task')
    except OSError:
        return []
    children = []
    for task in tasks:
        try:
            with open(f'/proc/{pid}/task/{task}/children') as f:
                children += [int(child) for child in f.read().split()]
        except (OSError, ValueError):
            pass
    return children


def kill_children(pid, wait=0.5):
    """SIGKILL the direct children of ``pid`` and give ``pid`` a moment to reap them.

    On Linux the children come from /proc, which spares a grading process
    importing psutil (about 10 ms) for its teardowns; elsewhere psutil finds them.
    """
    children = _proc_children(pid)
    if children is None:
        _kill_children_psutil(pid, wait)
        return
    for child in children:
        try:
            os.kill(child, signal.SIGKILL)
        except OSError:
            pass
    deadline, pause = time.monotonic() + wait, 0.0001
    while children:  # as psutil.wait_procs: until each pid is gone (reaped by ``pid``)
        children = [child for child in children if _exists(child)]
        if not children or time.monotonic() >= deadline:
            break
        time.sleep(pause)
        pause = min(2 * pause, 0.01)


def _exists(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists, under another uid
        return True
    return True


def _kill_children_psutil(pid, wait):
    try:
        import psutil  # psutil is slow to import: only when a sandbox has to be swept
        children = psutil.Process(pid).children()
    except Exception:  # noqa: BLE001 - gone already, or psutil missing
        return
    for child in children:
        try:
            child.send_signal(signal.SIGKILL)
        except Exception:  # noqa: BLE001
            pass
    try:
        psutil.wait_procs(children, timeout=wait)
    except Exception:  # noqa: BLE001
        pass
