"""The sandboxed sessions alive in this process, so that an interrupt can stop them all.

A :class:`~grader.sandbox.session.Session` is added when it spawns a child
(or adopts a spare one) and leaves when it has closed.  :func:`stop` is the
first thing an interrupt does: from then on no session may spawn a child
(:func:`add` raises :class:`Interrupted`), and every live child is sent
SIGKILL through its cgroup and its process group, without waiting and
without touching any session's pipes, so it is safe in a signal handler
while other threads use those sessions.  The threads that were grading then
find their child gone, stop at their next case (:func:`check`), and close
their sessions, which removes the private copies; :func:`close_all` closes
whatever is still open at the end.  A child that was being spawned at the
moment of :func:`stop` is caught by the kills repeated every
:data:`REPEAT_SECONDS` until the process ends.
"""
import os
import signal
import threading

REPEAT_SECONDS = 0.05

_live = {}
# re-entrant: a signal handler may run while the main thread holds it
_lock = threading.RLock()
_stopping = threading.Event()


class Interrupted(KeyboardInterrupt):
    """Raised where grading would go on (start a child, grade a case) after an interrupt."""


def add(session):
    """Count ``session`` as live; raises :class:`Interrupted` once the process is stopping."""
    check()
    with _lock:
        _live[id(session)] = session


def adopt(session, spare):
    """``session`` has taken over ``spare``'s child: it is live in ``spare``'s place."""
    with _lock:
        _live.pop(id(spare), None)
        _live[id(session)] = session


def discard(session):
    """``session`` has closed: its child is gone and its private copy removed."""
    with _lock:
        _live.pop(id(session), None)


def live():
    with _lock:
        return list(_live.values())


def stopping():
    return _stopping.is_set()


def check():
    """Raise :class:`Interrupted` once the process is stopping."""
    if _stopping.is_set():
        raise Interrupted('the run was interrupted')


def stop():
    """Stop every sandboxed child of this process now and refuse new ones (idempotent)."""
    first = not _stopping.is_set()
    _stopping.set()
    _kill_children()
    if first:
        threading.Thread(target=_keep_killing, name='grader-stop', daemon=True).start()


def _keep_killing():
    pause = threading.Event()
    while _stopping.is_set():
        pause.wait(REPEAT_SECONDS)
        if _stopping.is_set():
            _kill_children()


def _kill_children():
    for session in live():
        kill_child(session)


def kill_child(session):
    """Send SIGKILL to ``session``'s child (its cgroup and process group), without waiting.

    Touches no pipe of the session: the thread using it sees its child gone.
    """
    group, proc = getattr(session, 'group', None), getattr(session, 'proc', None)
    if group is not None:
        group.signal_now()
    if proc is not None and proc.returncode is None:   # not reaped: the pid is still its
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass


def close_all():
    """Close every session still live (after an interrupt); never raises."""
    for session in live():
        try:
            session.close()
        except Exception:  # noqa: BLE001 - the others are closed all the same
            pass
        discard(session)


def reset():
    """Forget an earlier :func:`stop` (a test or a long-lived process grading again)."""
    _stopping.clear()
