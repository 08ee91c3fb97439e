"""A sandboxed child started before the session that will use it.

Starting a child (its cgroup, bubblewrap, Python and the runner's imports)
takes about 40 ms.  So that this overlaps the grader's own loading (plug-ins,
engine, fixtures), the command line calls :func:`start` as soon as it knows
the isolation level and the sandbox settings, and the first
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


def start(isolation, settings):
    """Spawn one spare child for ``isolation`` and ``settings`` now; never raises.

    If it cannot be started, nothing is kept and sessions spawn their own.
    """
    from grader.sandbox.session import Session
    spare = Session(None, '', '', isolation=isolation, settings=settings)
    spare.plugins = bundle.plugin_set()
    try:
        spare.spawn()
    except Exception:  # noqa: BLE001 - the session will spawn (and report) its own
        spare.close()
        return
    with _lock:
        _spares.append(spare)


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


def discard():
    """Stop every spare child not taken, and remove its private folder."""
    with _lock:
        left = list(_spares)
        del _spares[:]
    for spare in left:
        spare.close()
