"""The parent's side of one sandbox: start, load, call, teardown.

A :class:`Session` owns a private folder on the host and one sandbox at a
time, whose trusted runner (:mod:`grader.child.runner`) forks a fresh case
process for the load and for every call.  :meth:`Session.call` sends one
request and returns a :class:`Reply`; any failure of the case (time limit,
crash, exit, garbage) becomes a ``Reply`` with a status other than ``ok``
and a one-line ``error``, never an exception.

Time is measured here, from outside: the sandbox's CPU clock
(:class:`grader.sandbox.cpuclock.Clock`, its cgroup's ``cpu.stat``) is read
around every call and polled while it runs; a call past its CPU limit, or
past its wall-clock allowance, is stopped by the runner (and the whole
sandbox is killed if the runner does not answer).  The case process's own
CPU time, from the kernel's ``wait4`` in the runner, is the call's
``cpu``; the submission can neither see nor change either.  A case
process's exit status or signal is reported as the submission's: it reaches
the parent only inside the runner's reply, so it can never pass for a
failure of the sandbox itself.

Teardown is guaranteed: the child's process group is killed, and with it
its cgroup (``cgroup.kill``, which also catches processes that called
``setsid()`` or double-forked) or, where there is none, every orphan it left
behind, which this process adopts as a child subreaper and sweeps.  How the
child is started at each isolation level is :mod:`grader.sandbox.launch`.
"""
import base64
import collections
import functools
import os
import random
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from grader.replycheck import ReplyCheck
from grader.sandbox import (
    bundle,
    cgroups,
    cleanup,
    cpuclock,
    launch,
    layers,
    leftovers,
    protocol,
    reaper,
    registry,
    spare,
)

GRACE_SECONDS = 1.0
"""Extra wall time the parent allows beyond a call's allowance for the runner to answer."""
POLL_SECONDS = 0.02
"""How often the parent reads the sandbox's CPU clock while a call runs."""


def _idle():
    """What a call does at each look at the clock when nothing else is asked (``polling``)."""


WALL_FACTOR = 4.0
"""A call's wall-clock allowance, as a multiple of its CPU-time limit.

Limits are CPU time, so load from other processes does not turn a correct
answer into a timeout; the wall clock only stops calls that wait for
something that never comes (a blocking queue, a sleep).  Four times covers a
child that gets a quarter of a core on a crowded machine."""


@functools.lru_cache(maxsize=None)
def seccomp_programs():
    """The sandbox's seccomp programs, compiled here, in the grader's own process, and sent
    to each runner (base64): the runner loads them through the counter's extension and never
    loads libseccomp or ctypes, which would reach every case process it forks.  None when
    they cannot be compiled here (the runner then compiles them itself).

    Compiling loads ctypes and libseccomp (about 15 ms), so the programs are kept in the
    document cache (:mod:`grader.doccache`), keyed by what they are made from: the rules'
    source, pyseccomp's file, the machine's architecture and the grader's version."""
    from importlib.util import find_spec

    from grader import __version__, doccache
    from grader.child import layers as child_layers
    spec = find_spec('pyseccomp')
    try:
        made_from = [Path(child_layers.__file__).read_bytes(), os.uname().machine.encode(),
                     __version__.encode(), str(spec.origin if spec else None).encode(),
                     str(os.stat(spec.origin).st_mtime_ns if spec and spec.origin else 0).encode()]
    except OSError:
        made_from = None
    key = doccache.key(b'seccomp programs', *made_from) if made_from else None
    found = doccache.get(key) if key else doccache.MISSING
    if isinstance(found, dict) and {'runner', 'case', 'slots'} <= set(found):
        return found
    programs = child_layers.compile_programs()
    if programs is None:
        return None
    found = {'runner': base64.b64encode(programs['runner']).decode(),
             'case': base64.b64encode(programs['case']).decode(), 'slots': programs['slots']}
    if key:
        doccache.put(key, found)
    return found


def wall_allowance(limit):
    return max(WALL_FACTOR * limit, limit + 2.0)

@functools.lru_cache(maxsize=None)
def _envelope():
    """The check of every reply's envelope, like the observations' (2020-12).

    Made on first use, which :meth:`Session._exchange` times for while the
    first child loads: neither importing ``jsonschema`` nor building the
    validator is on the way to starting that child.
    """
    return ReplyCheck(protocol.ENVELOPE_SCHEMA).compile()


_ids = random.SystemRandom()
"""Request ids (see ``_send``)."""
_JOIN_FAILED = 125


def start_spare(isolation, settings):
    """Spawn one spare child for ``isolation`` and ``settings`` now (:mod:`.spare`);
    never raises.  Returns it, or None: if it cannot be started, nothing is kept and
    sessions spawn their own.
    """
    child = Session(None, '', '', isolation=isolation, settings=settings)
    child.plugins = bundle.plugin_set()     # the probes its archive holds
    try:
        child.spawn()
    except Exception:  # noqa: BLE001 - the session will spawn (and report) its own
        child.close()
        return None
    spare.keep(child)
    return child


def keep_spares(count, isolation, settings):
    """Spawn spares until ``count`` are kept for ``isolation`` and ``settings``
    (:func:`start_spare`); the ones spawned now."""
    made = []
    for _ in range(count - spare.kept(isolation, settings)):
        child = start_spare(isolation, settings)
        if child is None:
            break
        made.append(child)
    return made


@dataclass
class Reply:
    """What one call produced, as seen by the parent.

    ``status`` is ``ok`` (``observation`` holds the probe's report),
    ``error`` (student code raised; ``error`` says how, ``kind`` what kind
    of failure it was), ``timeout``, ``crashed`` (the case process died or
    exited) or ``invalid`` (the reply did not have the expected shape).
    ``cpu`` is the case's CPU seconds measured outside the submission's
    process, from the moment the case process was ready to run student code
    (``setup_cpu``, the fork and the layers before that, is the sandbox's);
    ``kind`` is one of a fixed set, all a report shows of a case
    whose input is hidden.
    """

    status: str
    observation: dict = field(default_factory=dict)
    error: str = ''
    elapsed: float = 0.0
    wall: float = 0.0
    output: str = ''
    output_bytes: int = 0
    limit: float = 0.0
    cpu: float = 0.0
    kind: str = ''
    sandbox_cpu: float = 0.0
    """CPU seconds of the whole sandbox during the call, from its cgroup or /proc."""
    setup_cpu: float = 0.0
    """CPU seconds the case process used before any student code ran (not in ``cpu``)."""
    tally: dict = None
    """What the counter tallied in the case process, read by the runner from the stopped
    process (:func:`grader.child.tally.read`), never from the case's reply: ``{'runs',
    'flags', 'slots'}``, its arrays as lists again (:func:`protocol.tally_lists`); None when
    it could not be read."""
    waited: bool = False
    """A time-out of a call stopped for waiting without computing (a sleep, a blocked
    read), not for its CPU time."""

    @property
    def ok(self):
        return self.status == 'ok'

    @property
    def seconds(self):
        """The time the limit applies to: CPU seconds of the call."""
        return self.cpu


@dataclass
class SandboxSettings:
    """Resource settings for the child, from grading.yaml ``sandbox:``."""

    memory_mb: int = 1024
    file_mb: int = 16
    open_files: int = 64
    output_kb: int = 64
    processes: int = 64
    max_copy_mb: int = 50
    disk_mb: int = 64
    """Size of the file system holding the private copy inside the sandbox."""


class _Drain(threading.Thread):
    """Reads a child pipe to the end, keeping only the first ``cap`` bytes."""

    def __init__(self, stream, cap):
        super().__init__(daemon=True)
        self.stream, self.cap = stream, cap
        self.kept, self.total = bytearray(), 0

    def run(self):
        try:
            while True:
                chunk = self.stream.read1(1 << 16)
                if not chunk:
                    break
                self.total += len(chunk)
                room = self.cap - len(self.kept)
                if room > 0:
                    self.kept += chunk[:room]
        except (OSError, ValueError):
            pass


def _copy_submission(source, target, max_bytes):
    """Copy a submission tree without following symlinks, within a size cap."""
    total = 0

    def ignore(folder, names):
        # Symbolic links are left out: one could point at the grader's own files.
        return [n for n in names if n in ('.git', '__pycache__', '.venv', 'node_modules')
                or os.path.islink(os.path.join(folder, n))]

    def copy(src, dst):
        nonlocal total
        if os.path.islink(src):
            return dst
        total += os.path.getsize(src)
        if total > max_bytes:
            raise OSError(f'the submission is larger than {max_bytes // (1024 * 1024)} MB')
        return shutil.copy2(src, dst)

    shutil.copytree(source, target, symlinks=True, ignore=ignore, copy_function=copy,
                    dirs_exist_ok=True)


def wait_for_exit(proc, timeout):
    """``proc.wait(timeout)`` (its return value, or TimeoutExpired), woken by the exit itself.

    ``Popen.wait`` with a timeout polls with pauses that double up to 50 ms,
    so a child that ends after 9 ms is seen after 16.  Where Linux offers a
    pidfd (5.3 and later), it becomes readable the moment the child ends.
    """
    deadline = time.monotonic() + timeout
    if proc.returncode is None and hasattr(os, 'pidfd_open'):
        try:
            fd = os.pidfd_open(proc.pid)  # ours, unreaped: the pid cannot be reused meanwhile
        except OSError:
            pass
        else:
            try:
                poller = select.poll()
                poller.register(fd, select.POLLIN)
                poller.poll(max(0.0, timeout) * 1000)
            finally:
                os.close(fd)
    return proc.wait(timeout=max(0.0, deadline - time.monotonic()))


def describe_exit(returncode=None, signal_number=None):
    """A student-facing sentence for how a case process ended without answering."""
    if signal_number:
        name = (signal.Signals(signal_number).name
                if signal_number in signal.Signals._value2member_map_ else str(signal_number))
        hints = {
            'SIGSEGV': ' (a crash, often from endless recursion)',
            'SIGXCPU': ' (it used up its CPU time)',
            'SIGKILL': ' (killed: memory or time limit)',
            'SIGXFSZ': ' (it wrote too large a file)',
        }
        return f'your code was killed by {name}{hints.get(name, "")}'
    if returncode is None:
        return 'your code stopped answering'
    return (f'your code exited with status {returncode} during the call '
            '(os._exit or a crash)')


class Session:
    """One sandbox for one exercise of one submission (see the module docstring)."""

    def __init__(self, submission_dir, module_relpath, probe, *, options=None,
                 isolation=None, settings=None, load_seconds=5.0,
                 cpu_seconds=600, prepare=None, log=None):
        self.submission_dir = Path(submission_dir) if submission_dir is not None else None
        self.module_relpath = str(module_relpath)
        self.probe = probe
        self.options = options or {}
        self.isolation = isolation or layers.detect()
        self.settings = settings or SandboxSettings()
        self.load_seconds = load_seconds
        """CPU seconds the module may spend at import (its wall allowance is four times that)."""
        self.cpu_seconds = cpu_seconds
        self.prepare = prepare
        self.log = log
        self.token = os.urandom(16).hex()   # as secrets.token_hex, without its imports
        self.uid = layers.sandbox_uid() if self.isolation.has('uid-drop') else None
        """This session's own unprivileged uid (see layers.SANDBOX_UIDS)."""
        self.workdir = None
        self.proc = None
        self.loaded = None
        self.runner = {}
        """What the runner reported at start: layers applied, syntax error, missing modules."""
        self.import_seconds = 0.0
        self.starts = 0
        self._next_id = 0
        self._reader = None
        self._request_fd = None
        self._exit_requested = False
        self._drains = []
        self.group = None
        self.clock = None
        self.start_seconds = 0.0
        self._paths = None
        self._archive = None
        self._spawned_at = 0.0

    # -- lifecycle -----------------------------------------------------
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _make_workdir(self):
        """The private folder on the host: ``submission`` (the staged copy) and the runner's
        folders; its name marks its owner (:mod:`grader.sandbox.leftovers`)."""
        self.workdir = Path(tempfile.mkdtemp(prefix=leftovers.prefix()))
        os.chmod(self.workdir, 0o755)
        (self.workdir / 'submission').mkdir()

    def _stage(self):
        """The submission's archive: its files and the plug-in's (e.g. network data files)."""
        copy = self.workdir / 'submission'
        _copy_submission(self.submission_dir, copy, self.settings.max_copy_mb * 1024 * 1024)
        if self.prepare:
            self.prepare(copy)
        return bundle.submission_archive(copy, (self.settings.max_copy_mb + 64) * 1024 * 1024)

    @property
    def submission_copy(self):
        return self.workdir / 'submission'

    def spawn(self):
        """Start the sandbox: the trusted runner, waiting for its hello.

        No student code runs and nothing of the submission is read until
        :meth:`start` sends the hello, so a sandbox spawned early (see
        :mod:`grader.sandbox.spare`) is the same as one spawned by
        :meth:`start`.
        """
        registry.add(self)   # refused once an interrupt stops this process
        self._kill()
        if self.workdir is None:
            self._make_workdir()
        self._spawned_at = time.monotonic()
        if self.isolation.has('cgroup') and self.isolation.cgroups is not None:
            self.group = cgroups.Group(
                self.isolation.cgroups, leftovers.prefix() + self.token[:8],
                pids_max=self.settings.processes,
                memory_bytes=(self.settings.memory_mb + 128) * 1024 * 1024)
        elif self.isolation.has('subreaper'):
            reaper.become_subreaper()
        request_r, request_w = os.pipe()
        reply_r, reply_w = os.pipe()
        archive_fd = None
        if self.isolation.has('namespaces'):
            archive_fd = _memory_file(bundle.archive())
        plan = launch.plan(self.isolation, self.workdir, request_r, reply_w, self.group,
                           archive_fd=archive_fd,
                           disk_bytes=self.settings.disk_mb * 1024 * 1024)
        try:
            self.proc = subprocess.Popen(
                plan.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, pass_fds=(request_r, reply_w, *plan.pass_fds),
                cwd=plan.cwd, env=plan.env, start_new_session=True, close_fds=True)
        except BaseException:
            os.close(request_w)
            os.close(reply_r)
            raise
        finally:
            os.close(request_r)
            os.close(reply_w)
            if archive_fd is not None:
                os.close(archive_fd)
        try:  # the runner's few lines, then end of input (no one types while grading)
            self.proc.stdin.write(plan.boot)
            self.proc.stdin.close()
        except OSError:
            pass
        self._request_fd = request_w
        self._exit_requested = False
        self._reader = protocol.Reader(reply_r)
        self._paths = plan.paths
        self.clock = cpuclock.Clock(self.group, self.proc.pid)
        cap = self.settings.output_kb * 1024
        self._drains = [_Drain(self.proc.stdout, cap), _Drain(self.proc.stderr, cap)]
        for drain in self._drains:
            drain.start()

    def _adopt(self, spare):
        """Take over ``spare``'s sandbox and private folder (a spawned, never started session)."""
        for name in ('workdir', 'proc', 'group', 'clock', '_request_fd', '_reader', '_drains',
                     '_paths', '_spawned_at', '_exit_requested'):
            setattr(self, name, getattr(spare, name))
        spare.workdir, spare.proc, spare.group = None, None, None
        spare._request_fd, spare._reader, spare._drains = None, None, []
        registry.adopt(self, spare)

    def start(self, meanwhile=None):
        """Start a sandbox and load the student module: the load :class:`Reply`.

        The first start adopts a spare sandbox spawned earlier for the same
        isolation and settings, if there is one (:mod:`grader.sandbox.spare`).
        ``meanwhile``, if given, is called while the module loads
        (parent-side preparation that would otherwise wait for it).  The
        load runs in a case process of its own under the import limit
        (``load_seconds`` of CPU time): its CPU time is ``import_seconds``.
        """
        self.starts += 1
        adopted = self.workdir is None and spare.take(self.isolation, self.settings)
        if adopted:     # the first start: no sandbox of this session's own yet
            self._adopt(adopted)
        else:
            self.spawn()    # a new sandbox in place of one that is gone
        if self._archive is None:
            try:
                self._archive = self._stage()
            except OSError as exc:
                self._kill()
                self.loaded = Reply(status='crashed', kind='crash',
                                    error=f'the submission could not be copied: {exc}')
                return self.loaded
        hello = {
            'probe': self.probe, 'module': self.module_relpath, 'options': self.options,
            'paths': self._paths, 'output_chars': self.settings.output_kb * 1024,
            'layers': self._child_layers(), 'archive_bytes': len(self._archive),
        }
        started = self._exchange(hello, 30.0, after=self._archive)
        if started.status != 'runner':
            self.loaded = self._sandbox_failure(started)
            return self.loaded
        self.runner = started.observation
        if self.runner.get('syntax_error'):
            self.loaded = Reply(status='ok', observation={
                'warnings': [], 'error': self.runner['syntax_error'], 'probe': {},
                'sandbox': {'applied': self.runner.get('applied', [])}})
            return self.loaded
        limit = self.load_seconds
        # The load's own alarm stops the import at the limit, so that what it
        # defined is graded; the parent stops it only if that alarm never fires.
        loaded = self._case({'op': 'load', 'limit': limit, 'wall': wall_allowance(limit)},
                            limit, meanwhile=meanwhile, hard=limit * 1.5 + 0.25)
        self.import_seconds = loaded.cpu
        self.start_seconds = time.monotonic() - self._spawned_at
        if loaded.ok:
            observation = dict(loaded.observation)
            observation['sandbox'] = {'applied': self.runner.get('applied', [])}
            observation['missing'] = self.runner.get('missing', [])
            if observation.get('cut_line'):
                self._send({'op': 'cut', 'line': observation['cut_line']})
            loaded.observation = observation
        elif loaded.status == 'timeout':
            loaded.error = (f'did not finish importing within {limit:g} s of CPU time '
                            'and could not be stopped at a line of the module')
        self.loaded = loaded
        return loaded

    def _sandbox_failure(self, reply):
        """The load reply when the sandbox itself could not start (never the submission's doing)."""
        self._kill()
        if reply.status == 'sandbox':
            why = reply.error
        elif self.group is not None and self._exit_code == _JOIN_FAILED:
            why = 'joining its cgroup failed'
        else:
            why = reply.error or 'the runner did not start'
        return Reply(status='crashed', kind='sandbox',
                     error=f'the sandbox could not be set up: {why}')

    def _child_layers(self):
        layers = {'audit-hook': self.isolation.has('audit-hook')}
        if 'rlimits' in self.isolation.layers:
            layers['rlimits'] = {
                'cpu_seconds': self.cpu_seconds,
                'memory_mb': self.settings.memory_mb,
                'file_mb': self.settings.file_mb,
                'open_files': self.settings.open_files,
                'processes': self.settings.processes,
            }
        if self.isolation.has('uid-drop'):
            layers['uid-drop'] = {'uid': self.uid, 'gid': self.uid}
        if self.isolation.has('seccomp'):
            layers['seccomp'] = seccomp_programs() or True
        return layers

    def call(self, payload, limit, meanwhile=None, polling=None):
        """Run one probe request in a fresh case process under a CPU limit of ``limit`` seconds;
        ``meanwhile``, if given, is called once the request is sent (parent-side work that
        then overlaps the call, such as judging the case before), and ``polling`` every
        :data:`POLL_SECONDS` while the call runs (work that may become possible meanwhile,
        such as judging once the calibration's unit is known; it must return at once)."""
        if self.proc is None or self.proc.poll() is not None:
            loaded = self.start()
            if not loaded.ok or loaded.observation.get('error'):
                return Reply(status='crashed', kind='crash', limit=limit,
                             error='the module could not be loaded again: '
                             + (loaded.error or loaded.observation.get('error') or ''))
        wall = wall_allowance(limit)
        reply = self._case({'op': 'call', 'payload': payload, 'limit': limit, 'wall': wall},
                           limit, meanwhile=meanwhile, polling=polling or _idle)
        reply.limit = limit
        return reply

    # -- the exchanges -----------------------------------------------------
    def _send(self, message):
        # Drawn, not counted up: a case process reads its request's id, and a sequence would
        # tell it which case of the lane it is (the baselines, say).
        self._next_id = _ids.getrandbits(52)
        message = dict(message, id=self._next_id, token=self.token)
        protocol.write_all(self._request_fd, protocol.encode(message))
        return self._next_id

    def _exchange(self, message, wait, after=b''):
        """Send the hello (and the archive after it); the runner's first reply."""
        started = time.monotonic()
        try:
            ident = self._send(message)
            if after:
                protocol.write_all(self._request_fd, after)
            raw = self._reader.read(started + wait)
        except protocol.ChannelTimeout:
            return Reply(status='crashed', error=f'the runner did not answer within {wait:.0f} s')
        except (protocol.ChannelClosed, protocol.ChannelOverflow, OSError):
            self._reap()
            return Reply(status='crashed', error='the runner ended before it answered')
        if not self._genuine(raw, ident):
            return Reply(status='crashed', error='the runner answered with a malformed message')
        if raw['status'] == 'sandbox':
            return Reply(status='sandbox', error=str(raw.get('error', ''))[:500])
        return Reply(status='runner', observation=raw.get('runner') or {})

    def _genuine(self, raw, ident):
        return (isinstance(raw, dict) and _envelope().is_valid(raw)
                and raw.get('token') == self.token and raw.get('id') == ident)

    def _case(self, message, limit, meanwhile=None, hard=None, polling=_idle):
        """One load or call: send it, watch the CPU clock, and read how the case ended.

        The case is stopped past ``hard`` CPU seconds (default ``limit``) or past
        its wall-clock allowance.  ``meanwhile`` is called once the message is sent,
        ``polling`` at each look at the clock while no reply has come (it must return at
        once).
        """
        hard = limit if hard is None else hard
        before = self.clock.read() if self.clock else None
        started = time.monotonic()
        try:
            ident = self._send(message)
        except OSError:
            self._reap()
            return Reply(status='crashed', kind='sandbox', error='the sandbox stopped answering')
        _envelope()
        if meanwhile is not None:
            meanwhile()
        deadline = started + message['wall'] + (hard - limit)
        activity = _Activity(started, self.clock)
        stop_sent, stopped_for, raw = None, None, None
        while raw is None:
            now = time.monotonic()
            used = (self.clock.read() or 0.0) - (before or 0.0) if self.clock else 0.0
            if stop_sent is None:
                waiting = used <= hard and activity.waiting(now, used, hard)
                if used > hard or now > deadline or waiting:
                    # Past the wall allowance alone, the reason is read from the CPU
                    # the sandbox used (see _ended).
                    stop_sent = now
                    stopped_for = 'cpu' if used > hard else 'wall' if waiting else None
                    try:
                        self._send({'op': 'stop'})
                    except OSError:
                        pass
            if stop_sent is not None and now > stop_sent + GRACE_SECONDS:
                self._kill()     # the runner did not answer the stop: the whole sandbox goes
                return Reply(status='timeout', kind='timeout', wall=now - started,
                             cpu=max(used, limit), error=_timeout_message(limit, 'cpu'))
            try:
                raw = self._reader.read(now + POLL_SECONDS)
            except protocol.ChannelTimeout:
                polling()
                continue
            except (protocol.ChannelClosed, OSError):
                code = self._reap()
                return Reply(status='crashed', kind='crash', wall=time.monotonic() - started,
                             error='the sandbox ended during the call'
                             + (f' ({describe_exit(code)})' if code else ''))
            except protocol.ChannelOverflow:
                self._kill()
                return Reply(status='invalid', kind='invalid', wall=time.monotonic() - started,
                             error='the reply was too large')
        wall = time.monotonic() - started
        after = self.clock.read() if self.clock else None
        sandbox_cpu = (after - before) if after is not None and before is not None else 0.0
        tally = protocol.tally_lists(raw.get('tally')) if self._genuine(raw, ident) else \
            protocol.MALFORMED
        if tally is protocol.MALFORMED:
            self._kill()
            return Reply(status='invalid', kind='invalid', wall=wall,
                         error='the sandbox reply was malformed (tampered channel?)')
        return self._ended(dict(raw, tally=tally), hard, wall, sandbox_cpu, stopped_for)

    def _ended(self, raw, limit, wall, sandbox_cpu, stopped_for=None):
        """The :class:`Reply` for the runner's account of how a case process ended
        (``stopped_for``: why the parent sent a stop, ``'cpu'`` or ``'wall'``, if it did)."""
        cpu = float(raw.get('cpu', 0.0))
        common = {'wall': wall, 'limit': limit, 'cpu': cpu, 'sandbox_cpu': sandbox_cpu,
                  'setup_cpu': float(raw.get('setup_cpu', 0.0)), 'tally': raw.get('tally')}
        status = raw['status']
        if status == 'stopped' or cpu > limit:
            reason = raw.get('reason', 'cpu') if status == 'stopped' and cpu <= limit else 'cpu'
            if status == 'stopped' and reason == 'stop':
                reason = stopped_for or ('cpu' if sandbox_cpu > limit * 0.5 else 'wall')
            return Reply(status='timeout', kind='timeout', error=_timeout_message(limit, reason),
                         waited=reason == 'wall',
                         **dict(common, cpu=max(cpu, limit) if reason == 'cpu' else cpu))
        if status == 'sandbox':
            return Reply(status='crashed', kind='sandbox',
                         error=f"the sandbox failed: {str(raw.get('error', ''))[:300]}", **common)
        if status == 'overflow':
            return Reply(status='invalid', kind='invalid', error='the reply was too large',
                         **common)
        if status == 'signaled':
            return Reply(status='crashed', kind='crash',
                         error=describe_exit(signal_number=raw.get('signal')), **common)
        if status == 'exited':
            return Reply(status='crashed', kind='crash', error=describe_exit(raw.get('code')),
                         **common)
        inner = protocol.decode(raw.get('reply', ''))
        if inner is None or not _case_envelope().is_valid(inner):
            return Reply(status='invalid', kind='invalid',
                         error='the reply was not well-formed JSON of the expected shape', **common)
        if inner['status'] == 'error':
            return Reply(status='error', kind=inner.get('kind', 'exception'),
                         error=inner.get('error', ''), output=inner.get('output', ''),
                         output_bytes=inner.get('output_bytes', 0), **common)
        return Reply(status='ok', kind='ok', observation=inner.get('observation', {}),
                     output=inner.get('output', ''), output_bytes=inner.get('output_bytes', 0),
                     **common)

    # -- teardown ------------------------------------------------------
    def _reap(self):
        """Wait briefly for the sandbox to end and return its exit code."""
        if self.proc is None:
            return None
        try:
            code = wait_for_exit(self.proc, 2.0)
        except subprocess.TimeoutExpired:
            code = None
        self._exit_code = code
        self._kill()
        return code

    _exit_code = None

    def _kill(self):
        """Kill the sandbox and everything it started; close the channel."""
        proc, self.proc = self.proc, None
        self._close_channel()
        sweep = self.isolation.has('subreaper') and self.workdir is not None
        if proc is not None:
            self._kill_process(proc, sweep)
        if self.clock is not None:
            self.clock.close()
        if self.group is not None:
            self.group.remove()
            self.group = None
        if sweep:
            reaper.sweep(str(self.workdir))

    def _close_channel(self):
        for fd in (self._request_fd, self._reader.fd if self._reader else None):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._request_fd, self._reader = None, None

    def _kill_process(self, proc, sweep):
        """Kill the sandbox's process ``proc`` and its children, wait for it, drain its output."""
        # The sandbox's own first process goes first, so that bubblewrap,
        # its parent, reaps it: killed together, it would be orphaned to
        # the system's init, which may never reap it.
        reaper.kill_children(proc.pid)
        if self.group is not None:
            self.group.kill()
        if sweep:  # orphans first, while the child they may watch still lives
            reaper.sweep(str(self.workdir))
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            wait_for_exit(proc, 5.0)
        except subprocess.TimeoutExpired:
            pass
        for drain in self._drains:
            drain.join(timeout=0.5)
        for stream in (proc.stdout, proc.stderr):
            try:
                stream.close()
            except OSError:
                pass

    def output(self, since=None, until=None):
        """What the sandbox wrote to its real stdout/stderr (capped), as text; with ``since``
        (an :meth:`output_mark`), only what it wrote after that mark, and with ``until``
        (a later one), only what it wrote before that."""
        since = since or (0,) * len(self._drains)
        until = until or (None,) * len(self._drains)
        return b''.join(bytes(d.kept[start:end]) for d, start, end in
                        zip(self._drains, since, until)).decode('utf-8', 'replace')

    def output_mark(self):
        """A mark of what the sandbox has written so far (see :meth:`output`)."""
        return tuple(len(d.kept) for d in self._drains)

    def alive(self):
        """Whether the sandbox is running and may be given more calls (no exit asked for)."""
        return self.proc is not None and self.proc.poll() is None and not self._exit_requested

    def request_exit(self):
        """Ask the runner to exit, without waiting: :meth:`close` then waits less."""
        if self.proc is not None and self._request_fd is not None and not self._exit_requested:
            self._exit_requested = True
            try:
                protocol.write_all(self._request_fd, protocol.encode(
                    {'op': 'exit', 'id': 0, 'token': self.token}))
            except OSError:
                pass

    def close(self):
        """Stop the sandbox and remove the private folder (both, even when interrupted)."""
        try:
            if self.proc is not None and self._request_fd is not None:
                self.request_exit()
                try:
                    wait_for_exit(self.proc, 1.0)
                except (OSError, subprocess.TimeoutExpired):
                    pass
        finally:
            try:
                self._kill()
            finally:
                if self.workdir is not None:
                    cleanup.remove_and_report(self.workdir)
                    self.workdir = None
                registry.discard(self)


IDLE_SHARE = 0.05
"""Past its CPU limit in wall time, a call that has used less than this share of the wall
time in CPU, over the whole call or over its last :data:`IDLE_WINDOW` seconds, is waiting
(a sleep, a blocked read), not computing: it is stopped there rather than at the wall
allowance.  A computing call keeps more than this share even on a machine loaded many
times over (measured: 0.2 and more with the load average at 9 on 2 cores)."""

IDLE_WINDOW = 2.0
"""Wall seconds over which a call's recent CPU share is taken: a search that computes for
a while and then blocks for ever (``queue.PriorityQueue.get`` once its states run out) is
stopped this long after it stopped computing, not at four times its limit."""


class _Activity:
    """A call's CPU clock as the parent polls it: whether the call is waiting."""

    def __init__(self, started, clock):
        self.started = started
        self.usable = clock is not None and clock.resolution <= 0.05
        self.samples = collections.deque([(started, 0.0)])

    def waiting(self, now, used, limit):
        """Whether the call, ``used`` CPU seconds in at ``now``, waits past ``limit``."""
        if not self.usable:
            return False
        samples = self.samples
        samples.append((now, used))
        while len(samples) > 2 and now - samples[1][0] >= IDLE_WINDOW:
            samples.popleft()
        elapsed = now - self.started
        if elapsed <= limit + GRACE_SECONDS:
            return False
        since, used_then = samples[0]
        recent = now - since
        return used < IDLE_SHARE * elapsed or (
            recent >= IDLE_WINDOW and used - used_then < IDLE_SHARE * recent)


def _timeout_message(limit, reason):
    if reason == 'wall':
        return ('timed out: it waited without computing past its time limit (a sleep, '
                'input, or something else that never comes?)')
    return f'timed out after {limit:.2f} s of CPU time'


def _memory_file(data):
    """A readable descriptor holding ``data`` (a memfd where there is one, else a pipe's worth)."""
    if hasattr(os, 'memfd_create'):
        fd = os.memfd_create('child', 0)
        protocol.write_all(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
        return fd
    handle = tempfile.TemporaryFile()
    handle.write(data)
    handle.flush()
    handle.seek(0)
    fd = os.dup(handle.fileno())
    handle.close()
    return fd


@functools.lru_cache(maxsize=None)
def _case_envelope():
    """The check of a case process's own reply (inside the runner's)."""
    return ReplyCheck(protocol.CASE_SCHEMA).compile()
