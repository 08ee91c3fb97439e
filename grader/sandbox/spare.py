"""A sandboxed child started before the session that will use it.

Starting a child (its cgroup, bubblewrap, Python and the runner's imports)
takes about 40 ms.  So that this overlaps the grader's own loading (plug-ins,
engine, fixtures), the command line calls
:func:`grader.sandbox.session.start_spare` as soon as it knows the isolation
level and the sandbox settings, which spawns one and :func:`keep` s it here,
and the first
:class:`~grader.sandbox.session.Session` with the same ones adopts that child
in :meth:`~grader.sandbox.session.Session.start`.

A spare child runs only the trusted runner, blocked on reading its hello: it
has no submission, no uid, no limits and no student code yet.  The session
that adopts it copies the submission in, hands it to its own uid and sends
the hello, which sets every layer and imports the student module, exactly as
for a child the session spawned itself.  So grading is the same with or
without a spare; only the start is earlier.  A spare started before
grading.yaml mounted a plug-in of its own lacks that plug-in's probe in its
archive: it is not taken.  :func:`discard` stops a spare
nobody took (the command line calls it last, whatever happened).
"""
import threading

from grader.sandbox import bundle

_spares = []
_lock = threading.Lock()


def keep(session):
    """Keep ``session`` (spawned, never started) for the first session that matches it."""
    with _lock:
        _spares.append(session)


def take(isolation, settings):
    """The spare spawned for this ``isolation`` and ``settings`` and still alive, or None.

    The session taking it owns it from then on (its child and private folder).
    """
    with _lock:
        for index, spare in enumerate(_spares):
            if spare.isolation is isolation and spare.settings == settings:
                del _spares[index]
                break
        else:
            return None
    if spare.proc is not None and spare.proc.poll() is None \
            and spare.plugins == bundle.plugin_set():   # its archive holds every probe
        return spare
    spare.close()
    return None


def kept(isolation, settings):
    """How many spares are kept for ``isolation`` and ``settings``."""
    with _lock:
        return sum(1 for s in _spares if s.isolation is isolation and s.settings == settings)


def withdraw(sessions):
    """Stop those of ``sessions`` still kept (spawned for lanes that never came)."""
    with _lock:
        left = [s for s in _spares if any(s is session for session in sessions)]
        _spares[:] = [s for s in _spares if not any(s is session for session in left)]
    for spare in left:
        spare.close()


def discard():
    """Stop every spare child not taken, and remove its private folder."""
    with _lock:
        left = list(_spares)
        del _spares[:]
    for spare in left:
        spare.close()
