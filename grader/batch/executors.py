"""Where submissions are graded: a local pool of processes, or a Dask cluster.

Both take an iterable of jobs (read lazily, so only the jobs in flight are
held in memory) and yield ``(job, outcome)`` as outcomes arrive, in any
order.  The outcome is what :mod:`grader.batch.worker` returns; an
executor's own failure (a worker process that died, a task the cluster
gave up on) becomes an ``error`` outcome for that job, retried by
``--resume``.

- :class:`LocalPool`: one process per core by default, each grading one
  whole submission at a time; the batch's calibration is measured once, here,
  and every worker grades under it, so every student of the class gets limits
  of the same unit (and the workers do not each time the workload again).
- :class:`DaskCluster`: an existing scheduler (``tcp://host:8786``) or a
  LocalCluster started here; the course bundle is sent to every worker once
  and each job ships the packed submission; only the result comes back.
"""
import concurrent.futures as cf
import logging
import multiprocessing
import os
import time
import uuid
from concurrent.futures.process import BrokenProcessPool

from grader.errors import UserError
from grader.sandbox import leftovers

IN_FLIGHT_PER_WORKER = 2


def measure_calibration(policy):
    """The calibration of a batch graded on this machine, for all of its workers (timed
    here, before the first submission is sent)."""
    from grader import calibrate
    return calibrate.measure(policy.calibration_repeats)


def _error(reason):
    return {'status': 'error', 'reason': reason, 'result': None, 'seconds': None, 'worker': ''}


class LocalPool:
    """A pool of ``workers`` processes on this machine (default: one per core)."""

    def __init__(self, policy, workers=None):
        self.policy = policy
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.name = 'local'
        self.calibration = None
        """The calibration every worker grades under (measured at the first :meth:`grade`)."""

    def describe(self):
        return f'{self.workers} local worker process(es)'

    def _pool(self):
        # the course (plug-ins, engine) loads in the workers, not here
        from grader.batch import worker
        return cf.ProcessPoolExecutor(max_workers=self.workers,
                                      mp_context=multiprocessing.get_context('spawn'),
                                      initializer=worker.start, initargs=(os.getpid(),))

    def measure(self):
        """The batch's calibration: measured on the first call, the same dict after."""
        if self.calibration is None:
            self.calibration = measure_calibration(self.policy)
        return self.calibration

    def grade(self, jobs):
        # the course (plug-ins, engine) loads in the workers, not here
        from grader.batch import worker
        jobs = iter(jobs)
        retried = set()
        queue = []          # jobs to send again after a pool broke
        calibration = self.measure()
        pool = self._pool()
        flying = {}

        def submit(job):
            flying[pool.submit(worker.grade_local, str(self.policy.path), job,
                               calibration)] = job

        def refill():
            while len(flying) < self.workers * IN_FLIGHT_PER_WORKER:
                job = queue.pop(0) if queue else next(jobs, None)
                if job is None:
                    return
                submit(job)

        finished = False
        try:
            refill()
            while flying:
                done, _ = cf.wait(flying, return_when=cf.FIRST_COMPLETED)
                broken = False
                for future in done:
                    job = flying.pop(future)
                    try:
                        outcome = future.result()
                    except BrokenProcessPool:
                        broken = True
                        if job['key'] in retried:
                            yield job, _error('the grading worker process died twice on '
                                              'this submission')
                        else:
                            retried.add(job['key'])
                            queue.append(job)
                        continue
                    except Exception as error:  # noqa: BLE001
                        outcome = _error(f'{type(error).__name__}: {error}')
                    yield job, outcome
                if broken:
                    # Every job still in flight died with the pool: send them again once.
                    for future, job in list(flying.items()):
                        retried.add(job['key'])
                        queue.append(job)
                    flying.clear()
                    _stop(pool, at_once=True)
                    pool = self._pool()
                refill()
            finished = True
        finally:
            _stop(pool, at_once=not finished)


STOP_GRACE_SECONDS = 1.5
"""How long stopped workers get to close their sandboxes and remove their private
copies before they are killed (what a killed one leaves, the batch then removes)."""


def _stop(pool, at_once):
    """Shut a pool down; ``at_once`` after an interruption (running jobs are dropped).

    Interrupted, every worker is sent SIGTERM by this process, whether the
    signal reached the whole process group (Ctrl-C) or this process alone
    (``kill PID``, a job scheduler): each stops its sandboxed children,
    removes its private copies and exits (see
    :func:`grader.sandbox.interrupts.worker_handling`).  Those still running
    after :data:`STOP_GRACE_SECONDS` are killed, and what they leave is
    removed here (:func:`grader.sandbox.leftovers.sweep`).
    """
    processes = list((getattr(pool, '_processes', None) or {}).values())
    if at_once:
        for process in processes:
            if process.is_alive():
                process.terminate()
    pool.shutdown(wait=not at_once, cancel_futures=True)
    if at_once:
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        for process in processes:
            process.join(timeout=max(0.0, deadline - time.monotonic()))
        forced = [process for process in processes if process.is_alive()]
        for process in forced:
            process.kill()
        for process in forced:
            process.join(timeout=5)
        if forced:
            leftovers.sweep()


class DaskCluster:
    """Grade on Dask: a scheduler address, or a LocalCluster of ``local_workers``."""

    def __init__(self, policy, scheduler=None, local_workers=None, connect_seconds=60):
        self.policy = policy
        self.scheduler = scheduler
        self.local_workers = local_workers
        self.connect_seconds = connect_seconds
        self.workers = local_workers or 0
        self.name = 'dask'

    def describe(self):
        if self.local_workers:
            return f'a local Dask cluster of {self.local_workers} worker(s)'
        return f'the Dask scheduler at {self.scheduler} ({self.workers} worker(s))'

    def _connect(self):
        try:
            # optional dependency (Dask), only for --executor dask
            from distributed import Client, LocalCluster
        except ImportError:
            raise UserError('Dask is not installed: install the grader with its batch extra '
                            '(pip install "search-grader[batch]", or pip install '
                            '"dask[distributed]")') from None
        cluster = None
        if self.local_workers:
            cluster = LocalCluster(n_workers=self.local_workers, threads_per_worker=1,
                                   processes=True, dashboard_address=None, scheduler_port=0,
                                   silence_logs=logging.ERROR)
            client = Client(cluster)
        else:
            try:
                client = Client(self.scheduler, timeout=self.connect_seconds)
            except (OSError, TimeoutError) as error:
                raise UserError(f'cannot reach the Dask scheduler at {self.scheduler}: {error} '
                                '(start one with `dask scheduler`)') from None
            try:
                client.wait_for_workers(1, timeout=self.connect_seconds)
            except TimeoutError:
                client.close()
                raise UserError(f'no Dask worker joined {self.scheduler} within '
                                f'{self.connect_seconds} s (start them with `dask worker '
                                f'{self.scheduler} --nthreads 1`)') from None
        self.workers = len(client.scheduler_info()['workers'])
        return cluster, client

    def grade(self, jobs):
        from distributed import as_completed  # optional dependency (Dask), only for --executor dask

        # the course (plug-ins, engine) loads in the workers, not here
        from grader.batch import bundle, worker
        blob, digest = bundle.make(self.policy)
        # A cluster started here grades on this machine: its workers share one calibration,
        # as a local pool's do.  A scheduler's workers calibrate where they run.
        calibration = measure_calibration(self.policy) if self.local_workers else None
        cluster, client = self._connect()
        try:
            course = client.scatter(blob, broadcast=True)
            jobs = iter(jobs)
            flying = {}
            pending = as_completed()

            def refill():
                while len(flying) < max(4, self.workers * IN_FLIGHT_PER_WORKER):
                    job = next(jobs, None)
                    if job is None:
                        return
                    future = client.submit(worker.grade_remote, course, digest, job,
                                           calibration,
                                           key=f'grade-{job["key"]}-{uuid.uuid4().hex[:8]}',
                                           pure=False, retries=1)
                    flying[future.key] = job
                    pending.add(future)

            refill()
            for future in pending:
                job = flying.pop(future.key)
                try:
                    outcome = future.result()
                except Exception as error:  # noqa: BLE001 -- KilledWorker, lost connection
                    outcome = _error(f'the cluster could not grade it: {type(error).__name__}: '
                                     f'{error}')
                future.release()
                yield job, outcome
                refill()
        finally:
            client.close()
            if cluster is not None:
                cluster.close()


def make(policy, workers=None, scheduler=None, dask_local=None):
    """The executor the command-line options ask for."""
    if scheduler or dask_local:
        return DaskCluster(policy, scheduler=scheduler, local_workers=dask_local)
    return LocalPool(policy, workers)
