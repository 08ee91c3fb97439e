"""The parent's side of one sandboxed child: start, call, restart, teardown.

A :class:`Session` owns a temporary directory holding a private copy of the
submission and one child process at a time.  :meth:`Session.call` sends one
request and returns a :class:`Reply`; any failure of the child (timeout,
crash, exit, garbage on the channel) becomes a ``Reply`` with a status other
than ``ok`` and a one-line ``error``, never an exception.  After a timeout or
a crash the child is killed and the next call starts a fresh one, which
imports the student module again.

Teardown is guaranteed: the child's process group is killed, and with it
its cgroup (``cgroup.kill``, which also catches processes that called
``setsid()`` or double-forked) or, where there is none, every orphan it left
behind, which this process adopts as a child subreaper and sweeps.  How the
child is started at each isolation level is :mod:`grader.sandbox.launch`.
"""
import functools
import os
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from grader.sandbox import cgroups, cleanup, launch, leftovers, protocol, reaper, registry

GRACE_SECONDS = 1.0
"""Extra wall time the parent allows beyond a call's soft limit."""

WALL_FACTOR = 4.0
"""A call's wall-clock allowance, as a multiple of its CPU-time limit.

Limits are CPU time, so load from other processes does not turn a correct
answer into a timeout; the wall clock only stops calls that wait for
something that never comes (a blocking queue, a sleep).  Four times covers a
child that gets a quarter of a core on a crowded machine."""


def wall_allowance(limit):
    return max(WALL_FACTOR * limit, limit + 2.0)

@functools.lru_cache(maxsize=None)
def _envelope():
    """The check of every reply's envelope, like the observations' (draft 7).

    Made on first use, which :meth:`Session._exchange` times for while the
    first child loads: neither ``fastjsonschema`` nor the compilation is on
    the way to starting that child.
    """
    from grader.replycheck import ReplyCheck
    return ReplyCheck(protocol.ENVELOPE_SCHEMA).compile()
_JOIN_FAILED = 125


@dataclass
class Reply:
    """What one call produced, as seen by the parent.

    ``status`` is ``ok`` (``observation`` holds the probe's report),
    ``error`` (student code raised or exited; ``error`` says how),
    ``timeout``, ``crashed`` (the child process died) or ``invalid`` (the
    reply did not have the expected shape).
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


def describe_exit(returncode):
    """A student-facing sentence for how the child process ended."""
    if returncode is None:
        return 'the process stopped answering'
    if returncode < 0:
        sig = -returncode
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        hints = {
            'SIGSEGV': ' (a crash, often from endless recursion)',
            'SIGXCPU': ' (it used up its CPU time)',
            'SIGKILL': ' (killed: memory or time limit)',
            'SIGXFSZ': ' (it wrote too large a file)',
        }
        return f'the process was killed by {name}{hints.get(name, "")}'
    return f'the process exited with status {returncode} during the call (os._exit or a crash)'


class Session:
    """One sandboxed child for one exercise of one submission."""

    def __init__(self, submission_dir, module_relpath, probe, *, options=None,
                 isolation=None, settings=None, load_seconds=5.0,
                 cpu_seconds=600, prepare=None, log=None):
        from grader.sandbox import layers
        self.submission_dir = Path(submission_dir) if submission_dir is not None else None
        self.module_relpath = str(module_relpath)
        self.probe = probe
        self.options = options or {}
        self.isolation = isolation or layers.detect()
        self.settings = settings or SandboxSettings()
        self.load_seconds = load_seconds
        self.cpu_seconds = cpu_seconds
        self.prepare = prepare
        self.log = log
        self.token = os.urandom(16).hex()   # as secrets.token_hex, without its imports
        self.uid = layers.sandbox_uid() if self.isolation.has('uid-drop') else None
        """This session's own unprivileged uid (see layers.SANDBOX_UIDS)."""
        self.workdir = None
        self.proc = None
        self.loaded = None
        self.starts = 0
        self._next_id = 0
        self._reader = None
        self._request_fd = None
        self._exit_requested = False
        self._drains = []
        self.group = None
        self.start_seconds = 0.0
        self._exit_code = None
        self._copied = False
        self._copy_inside = None
        self._spawned_at = 0.0

    # -- lifecycle -----------------------------------------------------
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _make_workdir(self):
        """The private folder: an empty ``submission`` (bound into the child) and ``tmp``."""
        self.workdir = Path(tempfile.mkdtemp(prefix=leftovers.prefix()))  # owner-marked
        os.chmod(self.workdir, 0o755)
        (self.workdir / 'submission').mkdir()
        (self.workdir / 'tmp').mkdir()
        self._copied = False

    def _copy_in(self):
        """Fill the private copy (once per session): the child reads it only after its hello."""
        copy = self.workdir / 'submission'
        _copy_submission(self.submission_dir, copy, self.settings.max_copy_mb * 1024 * 1024)
        if self.prepare:
            self.prepare(copy)
        if self.isolation.has('uid-drop'):
            launch.hand_over(self.workdir, self.uid)
        self._copied = True

    @property
    def submission_copy(self):
        return self.workdir / 'submission'

    def spawn(self):
        """Start the child process: the trusted runner, waiting for its hello.

        No student code runs and nothing of the submission is read until
        :meth:`start` sends the hello, so a child spawned early (see
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
                self.isolation.cgroups, self.token[:8], pids_max=self.settings.processes,
                memory_bytes=(self.settings.memory_mb + 128) * 1024 * 1024)
        elif self.isolation.has('subreaper'):
            reaper.become_subreaper()
        request_r, request_w = os.pipe()
        reply_r, reply_w = os.pipe()
        plan = launch.plan(self.isolation, self.workdir, request_r, reply_w, self.group)
        try:
            self.proc = subprocess.Popen(
                plan.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, pass_fds=(request_r, reply_w), cwd=plan.cwd,
                env=plan.env, start_new_session=True, close_fds=True)
        except BaseException:
            os.close(request_w)
            os.close(reply_r)
            raise
        finally:
            os.close(request_r)
            os.close(reply_w)
        try:  # the runner's few lines, then end of input (no one types while grading)
            self.proc.stdin.write(plan.boot)
            self.proc.stdin.close()
        except OSError:
            pass
        self._request_fd = request_w
        self._exit_requested = False
        self._reader = protocol.Reader(reply_r)
        self._copy_inside = plan.copy_inside
        cap = self.settings.output_kb * 1024
        self._drains = [_Drain(self.proc.stdout, cap), _Drain(self.proc.stderr, cap)]
        for drain in self._drains:
            drain.start()

    def _adopt(self, spare):
        """Take over ``spare``'s child and private folder (a spawned, never started session)."""
        for name in ('workdir', 'proc', 'group', '_request_fd', '_reader', '_drains',
                     '_copy_inside', '_spawned_at', '_exit_requested', '_copied'):
            setattr(self, name, getattr(spare, name))
        spare.workdir, spare.proc, spare.group = None, None, None
        spare._request_fd, spare._reader, spare._drains = None, None, []
        registry.adopt(self, spare)

    def start(self, meanwhile=None):
        """Start a child and import the student module: the load :class:`Reply`.

        The first start adopts a spare child spawned earlier for the same
        isolation and settings, if there is one (:mod:`grader.sandbox.spare`).
        ``meanwhile``, if given, is called while the child imports the module
        (parent-side preparation that would otherwise wait for it).
        """
        from grader.sandbox import spare
        self.starts += 1
        adopted = self.workdir is None and spare.take(self.isolation, self.settings)
        if adopted:     # the first start: no child of this session's own yet
            self._adopt(adopted)
        else:
            self.spawn()    # after a time-out or crash, in place of the child that is gone
        if not self._copied:
            try:
                self._copy_in()
            except OSError as exc:
                self._kill()
                self.loaded = Reply(status='crashed',
                                    error=f'the submission could not be copied: {exc}')
                return self.loaded
        cap = self.settings.output_kb * 1024
        copy = self._copy_inside
        hello = {
            'probe': self.probe,
            'module_path': f'{copy}/{self.module_relpath}',
            'submission_root': copy + '/',
            'options': self.options,
            'load_seconds': self.load_seconds,
            'output_chars': cap,
            'layers': self._child_layers(),
        }
        self.loaded = self._exchange(hello, self.load_seconds + GRACE_SECONDS + 2.0,
                                     meanwhile=meanwhile)
        self.start_seconds = time.monotonic() - self._spawned_at
        sandbox = self.loaded.observation.get('sandbox') if self.loaded.ok else None
        if isinstance(sandbox, dict) and sandbox.get('failed'):
            self._kill()
            self.loaded = Reply(status='crashed',
                                error=f"the sandbox could not be set up: {sandbox['failed']}")
        elif self.loaded.status == 'crashed' and self._exit_code == _JOIN_FAILED:
            self.loaded = Reply(status='crashed',
                                error='the sandbox could not be set up: joining its cgroup failed')
        return self.loaded

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
            layers['seccomp'] = True
        return layers

    def call(self, payload, limit):
        """Run one probe request under a soft limit of ``limit`` seconds."""
        if self.proc is None or self.proc.poll() is not None:
            loaded = self.start()
            if not loaded.ok or loaded.observation.get('error'):
                return Reply(status='crashed', error='the module could not be loaded again: '
                             + (loaded.error or loaded.observation.get('error') or ''),
                             limit=limit)
        wall = wall_allowance(limit)
        reply = self._exchange({'op': 'call', 'payload': payload, 'limit': limit, 'wall': wall},
                               wall + max(GRACE_SECONDS, 0.25 * limit))
        reply.limit = limit
        if reply.status == 'timeout':
            if reply.error == 'wall' or reply.error.startswith('no answer'):
                reply.error = (f'timed out: no answer within {wall:.1f} s of wall time '
                               '(waiting for something that never comes?)')
            else:
                reply.error = f'timed out after {limit:.2f} s of CPU time'
                reply.cpu = max(reply.cpu, limit)
        return reply

    def _exchange(self, message, wait, meanwhile=None):
        """Send ``message`` and wait up to ``wait`` seconds for its reply.

        Between the two, the envelope check is compiled (once) and
        ``meanwhile`` is called, while the child works.
        """
        self._next_id += 1
        message = dict(message, id=self._next_id, token=self.token)
        started = time.monotonic()
        try:
            protocol.write_all(self._request_fd, protocol.encode(message))
            _envelope()
            if meanwhile is not None:
                meanwhile()
            raw = self._reader.read(started + wait)
        except protocol.ChannelTimeout:
            self._kill()
            return Reply(status='timeout', wall=time.monotonic() - started,
                         error=f'no answer within {wait:.1f} s')
        except (protocol.ChannelClosed, BrokenPipeError, OSError):
            code = self._reap()
            return Reply(status='crashed', wall=time.monotonic() - started,
                         error=describe_exit(code))
        except protocol.ChannelOverflow:
            self._kill()
            return Reply(status='invalid', wall=time.monotonic() - started,
                         error='the reply was too large')
        wall = time.monotonic() - started
        if raw is None or not _envelope().is_valid(raw) or raw.get('token') != self.token \
                or raw.get('id') != self._next_id:
            self._kill()
            return Reply(status='invalid', wall=wall,
                         error='the sandbox reply was malformed (tampered channel?)')
        status = raw['status']
        error = raw.get('error', '')
        return Reply(status=status, observation=raw.get('observation', {}), error=error,
                     elapsed=raw.get('elapsed', 0.0), wall=wall, cpu=raw.get('cpu', 0.0),
                     output=raw.get('output', ''), output_bytes=raw.get('output_bytes', 0))

    # -- teardown ------------------------------------------------------
    def _reap(self):
        """Wait briefly for the child to end and return its exit code."""
        if self.proc is None:
            return None
        try:
            code = wait_for_exit(self.proc, 2.0)
        except subprocess.TimeoutExpired:
            code = None
        if code is not None and code > 128 and self.isolation.has('namespaces'):
            code = -(code - 128)  # bubblewrap reports a fatal signal as 128 + its number
        self._exit_code = code
        self._kill()
        return code

    def _kill(self):
        """Kill the child and everything it started; close the channel."""
        proc, self.proc = self.proc, None
        for fd in (self._request_fd, self._reader.fd if self._reader else None):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._request_fd, self._reader = None, None
        sweep = self.isolation.has('subreaper') and self.workdir is not None
        if proc is not None:
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
        if self.group is not None:
            self.group.remove()
            self.group = None
        if sweep:
            reaper.sweep(str(self.workdir))

    def output(self):
        """What the child wrote to its real stdout/stderr (capped), as text."""
        return b''.join(bytes(d.kept) for d in self._drains).decode('utf-8', 'replace')

    def request_exit(self):
        """Ask the child to exit, without waiting: :meth:`close` then waits less."""
        if self.proc is not None and self._request_fd is not None and not self._exit_requested:
            self._exit_requested = True
            try:
                protocol.write_all(self._request_fd, protocol.encode(
                    {'op': 'exit', 'id': 0, 'token': self.token}))
            except OSError:
                pass

    def close(self):
        """Stop the child and remove the private copy (both, even when interrupted)."""
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
