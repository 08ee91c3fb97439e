"""Grading one packed submission, in a worker process of the pool or of Dask.

Each worker process keeps one :class:`grader.engine.Run` per course, reused
for every submission.  A worker of the local pool grades under the batch's
calibration, measured once on this machine by the pool
(:func:`grader.batch.executors.measure_calibration`), as does a worker of a
Dask cluster started here; a worker of a Dask scheduler, maybe on another
machine, calibrates on the machine it grades on, once.  A job carries
the packed files, never a path, so a local process and a Dask worker on
another machine grade in exactly the same way:
unpack into a private temporary folder, :func:`grader.engine.grade` it (the
sandboxed children are started there), and return the outcome as plain
data:

``{'status': 'graded', 'result': {...}, 'seconds': s, 'worker': 'host:pid'}``,
or ``{'status': 'ungradable' | 'error', 'reason': '...', ...}``, or ``{'status': 'refused',
'reason': '...'}`` from a worker that lacks an instrument of the grade (the search counter,
on a Dask worker's machine): nothing is graded there, and the batch stops
(:func:`grader.batch.pipeline.refused`).
"""
import os
import socket
import tempfile
import threading
import time
from pathlib import Path

from grader.batch import archives
from grader.errors import UserError
from grader.instruments import MissingInstrument
from grader.sandbox import cleanup, interrupts, leftovers

_courses = {}
_lock = threading.Lock()


def _course(name, load, calibration=None):
    """The ``(policy, run)`` of a course in this process (made on first use), its run
    under ``calibration`` when one is given (else measured here, at the first limit)."""
    with _lock:
        if name not in _courses:
            from grader import engine  # the course loads once per worker process, at its first job
            policy = load()
            _courses[name] = (policy, engine.Run(policy, calibration=calibration))
        return _courses[name]


def grade_local(policy_path, job, calibration=None):
    """A job of the local pool (same machine: the policy is read from its file), graded
    under the pool's ``calibration``."""
    from grader import config  # the course loads once per worker process, at its first job
    try:
        course = _course(('path', str(policy_path)), lambda: config.load(policy_path),
                         calibration)
    except MissingInstrument as error:
        return _failure('refused', str(error))
    except Exception as error:      # noqa: BLE001 -- reported, then retried by --resume
        return _failure('error', f'the worker could not start grading: {error}')
    return grade(*course, job)


def grade_remote(bundle_blob, digest, job, calibration=None):
    """A Dask task: the course arrives as a bundle (see :mod:`grader.batch.bundle`); graded
    under ``calibration`` when the cluster runs on the machine that measured it, else
    under this worker's own."""
    from grader.batch import bundle  # the course loads once per worker process, at its first job
    try:
        course = _course(('bundle', digest), lambda: bundle.load(bundle_blob, digest),
                         calibration)
    except MissingInstrument as error:
        return _failure('refused', str(error))
    except Exception as error:      # noqa: BLE001
        return _failure('error', f'the worker could not start grading: {error}')
    return grade(*course, job)


def start(parent_pid):
    """Set up a worker process of the local pool (its ``initializer``).

    Ctrl-C is left to the batch's main process, which stops the workers with
    SIGTERM; so does the kernel when the main process dies.  See
    :func:`grader.sandbox.interrupts.worker_handling`.
    """
    interrupts.worker_handling(parent_pid)


def grade(policy, run, job):
    """Grade one job: the outcome mapping described above.

    Stopped by SIGTERM (see :func:`start`), the worker closes its sandboxes,
    removes its private folders and exits without an outcome.
    """
    try:
        with interrupts.busy():
            return _grade(policy, run, job)
    except KeyboardInterrupt as stop:    # everything is closed and removed by now
        if interrupts.in_worker():
            os._exit(interrupts.status(stop))
        raise


def _grade(policy, run, job):
    from grader import engine  # the course loads once per worker process, at its first job

    started = time.monotonic()
    try:
        tmp = tempfile.mkdtemp(prefix=leftovers.prefix('batch'))
        try:
            folder = archives.unpack(job['archive'], Path(tmp) / 'submission')
            result = engine.grade(policy, folder, assignment=job.get('assignment'), run=run,
                                  submitted_at=job.get('submitted_at') or None)
        finally:
            cleanup.remove_and_report(tmp, 'the unpacked submission')
    except archives.Refused as error:
        return _failure('ungradable', str(error), started)
    except UserError as error:
        return _failure('ungradable', error.message, started)
    except Exception as error:      # noqa: BLE001 -- a grader failure, retried by --resume
        return _failure('error', f'{type(error).__name__}: {error}', started)
    data = result.to_dict()
    data['submission'] = {k: job[k] for k in ('key', 'student_id', 'name', 'content_hash')
                          if k in job}
    return {'status': 'graded', 'result': data, 'reason': '',
            'seconds': round(time.monotonic() - started, 3), 'worker': _where()}


def _failure(status, reason, started=None):
    seconds = round(time.monotonic() - started, 3) if started else None
    return {'status': status, 'reason': reason, 'result': None, 'seconds': seconds,
            'worker': _where()}


def _where():
    return f'{socket.gethostname()}:{os.getpid()}'
