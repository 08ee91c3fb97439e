"""SIGINT and SIGTERM during a command: stop every child, remove every private copy, exit.

:func:`handling` installs the handlers for the length of a command, in the
main thread.  On the first signal the handler stops every sandboxed child of
the process at once (:func:`grader.sandbox.registry.stop`), then raises
:class:`Interrupt` (a ``KeyboardInterrupt`` that knows its signal) in the
main thread, so the command unwinds through its ``with`` and ``finally``
blocks, which close the sessions and remove their copies.  Every later
signal is ignored: a second Ctrl-C does not cut that clean-up short.
:func:`finish` closes whatever is still open and gives the exit status,
128 + the signal's number: 130 for SIGINT, 143 for SIGTERM.

A batch's worker processes use :func:`worker_handling` instead: they
ignore SIGINT (Ctrl-C reaches the whole process group, and the batch's main
process decides), stop on SIGTERM (sent by the main process, or by the
kernel when the main process dies), and leave at once when idle.
"""
import contextlib
import os
import signal
import sys
import threading
import time

from grader import calibrate
from grader.sandbox import registry

SIGNALS = (signal.SIGINT, signal.SIGTERM)
NAMES = {signal.SIGINT: 'Ctrl-C (SIGINT)', signal.SIGTERM: 'SIGTERM'}


class Interrupt(registry.Interrupted):
    """The command was interrupted by ``signum``."""

    def __init__(self, signum):
        super().__init__(NAMES.get(signum, f'signal {signum}'))
        self.signum = signum


_state = {'installed': False, 'received': None}


def received():
    """The signal that interrupted this process, or None."""
    return _state['received']


SHUTDOWN_SECONDS = 1.0
"""How long an interrupted program's ordinary exit may take before it is cut short."""


def leave(code, program):
    """``code``; for a program (not a call from the tests) that an interrupt stopped, the
    ordinary exit that follows is also given :data:`SHUTDOWN_SECONDS` at most.

    Everything is closed and saved by then.  The interpreter's exit joins the
    threads of a process pool, and one whose worker was killed in the middle of
    sending a result waits forever for the rest of it; a watchdog ends the
    process with ``code`` instead.
    """
    if program and received() is not None:
        def cut_short():
            time.sleep(SHUTDOWN_SECONDS)
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except (OSError, ValueError):
                    pass
            os._exit(code)
        threading.Thread(target=cut_short, name='grader-exit', daemon=True).start()
    return code


def _handler(signum, frame):
    if _state['received'] is not None:
        return                      # already stopping: let the clean-up finish
    _state['received'] = signum
    registry.stop()
    raise Interrupt(signum)


@contextlib.contextmanager
def handling(program=False):
    """Handle SIGINT and SIGTERM as described above while the block runs.

    Does nothing outside the main thread or when already handling (nested
    commands).  The handlers in force before are put back afterwards, except
    for a ``program`` (the command line itself) that was interrupted: it
    goes on ignoring signals while it exits.
    """
    if _state['installed'] or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.getsignal(signum) for signum in SIGNALS}
    _state.update(installed=True, received=None)
    registry.reset()
    try:
        for signum in SIGNALS:
            signal.signal(signum, _handler)
        yield
    finally:
        stay = program and _state['received'] is not None
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_IGN if stay else handler)
        _state['installed'] = False


def status(error):
    """The exit status for an interrupt: 128 + its signal (130 for a plain KeyboardInterrupt)."""
    return 128 + getattr(error, 'signum', signal.SIGINT)


def finish(error):
    """After an interrupt has unwound: close what is still open; the exit status."""
    registry.stop()
    registry.close_all()
    calibrate.discard()
    return status(error)


def describe(error):
    """'Ctrl-C (SIGINT)' or 'SIGTERM'."""
    return NAMES.get(getattr(error, 'signum', signal.SIGINT), 'an interrupt')


# -- batch workers ---------------------------------------------------------------
_worker = {'busy': False, 'installed': False}


def in_worker():
    """Whether :func:`worker_handling` was installed in this process."""
    return _worker['installed']


def _worker_handler(signum, frame):
    if _state['received'] is not None:
        return
    _state['received'] = signum
    registry.stop()
    if not _worker['busy']:
        os._exit(128 + signum)      # nothing of this worker's is open
    raise Interrupt(signum)


def worker_handling(parent_pid):
    """Install a batch worker's handling (see the module docstring); Linux also ties
    the worker to ``parent_pid``: SIGTERM arrives when that process ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _worker_handler)
    _state.update(installed=True, received=None)
    _worker['installed'] = True
    if sys.platform.startswith('linux'):
        try:
            import ctypes  # ctypes is slow to import: only a batch worker needs it
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGTERM, 0, 0, 0)      # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:      # the parent ended before the line above
        os._exit(128 + signal.SIGTERM)


@contextlib.contextmanager
def busy():
    """While the block runs, a worker's SIGTERM unwinds it instead of leaving at once."""
    _worker['busy'] = True
    try:
        yield
    finally:
        _worker['busy'] = False
