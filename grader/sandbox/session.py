"""The parent's side of one sandboxed child: start, call, restart, teardown.

A :class:`Session` owns a temporary directory holding a private copy of the
submission and one child process at a time.  :meth:`Session.call` sends one
request and returns a :class:`Reply`; any failure of the child (timeout,
crash, exit, garbage on the channel) becomes a ``Reply`` with a status other
than ``ok`` and a one-line ``error``, never an exception.  After a timeout or
a crash the child is killed (its whole process group) and the next call
starts a fresh one, which imports the student module again.
"""
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema

from grader.sandbox import protocol

GRACE_SECONDS = 1.0
"""Extra wall time the parent allows beyond a call's soft limit."""

_ENVELOPE = jsonschema.Draft202012Validator(protocol.ENVELOPE_SCHEMA)
_PACKAGE_PARENT = str(Path(__file__).resolve().parents[2])
_BOOT = ('import sys; sys.path.insert(0, {path!r}); '
         'from grader.sandbox.runner import main; main()')


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

    @property
    def ok(self):
        return self.status == 'ok'


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
        return [n for n in names if n in ('.git', '__pycache__', '.venv', 'node_modules')]

    def copy(src, dst):
        nonlocal total
        if os.path.islink(src):
            return dst
        total += os.path.getsize(src)
        if total > max_bytes:
            raise OSError(f'the submission is larger than {max_bytes // (1024 * 1024)} MB')
        return shutil.copy2(src, dst)

    shutil.copytree(source, target, symlinks=True, ignore=ignore, copy_function=copy)


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
        self.submission_dir = Path(submission_dir)
        self.module_relpath = str(module_relpath)
        self.probe = probe
        self.options = options or {}
        self.isolation = isolation or layers.detect()
        self.settings = settings or SandboxSettings()
        self.load_seconds = load_seconds
        self.cpu_seconds = cpu_seconds
        self.prepare = prepare
        self.log = log
        self.token = secrets.token_hex(16)
        self.workdir = None
        self.proc = None
        self.loaded = None
        self.starts = 0
        self._next_id = 0
        self._reader = None
        self._request_fd = None
        self._drains = []

    # -- lifecycle -----------------------------------------------------
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _ensure_workdir(self):
        if self.workdir is not None:
            return
        self.workdir = Path(tempfile.mkdtemp(prefix='grader-'))
        os.chmod(self.workdir, 0o755)
        copy = self.workdir / 'submission'
        _copy_submission(self.submission_dir, copy, self.settings.max_copy_mb * 1024 * 1024)
        if self.prepare:
            self.prepare(copy)
        (self.workdir / 'tmp').mkdir()

    @property
    def submission_copy(self):
        return self.workdir / 'submission'

    def start(self):
        """Start a child and import the student module: the load :class:`Reply`."""
        self._ensure_workdir()
        self._kill()
        self.starts += 1
        request_r, request_w = os.pipe()
        reply_r, reply_w = os.pipe()
        copy = self.submission_copy
        env = {'PATH': '/usr/bin:/bin', 'LANG': 'C.UTF-8', 'LC_ALL': 'C.UTF-8',
               'HOME': str(self.workdir / 'tmp'), 'TMPDIR': str(self.workdir / 'tmp'),
               'PYTHONHASHSEED': '0', 'PYTHONDONTWRITEBYTECODE': '1',
               'PYTHONIOENCODING': 'utf-8'}
        # Like ``python -I`` (no user site, no script folder on sys.path) but
        # with the environment replaced rather than ignored, so that
        # PYTHONHASHSEED=0 makes string hashing, and so set order, reproducible.
        flags = ['-s', '-B'] + (['-P'] if sys.version_info >= (3, 11) else [])
        argv = [sys.executable, *flags, '-c', _BOOT.format(path=_PACKAGE_PARENT),
                str(request_r), str(reply_w)]
        try:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, pass_fds=(request_r, reply_w), cwd=copy,
                env=env, start_new_session=True, close_fds=True)
        finally:
            os.close(request_r)
            os.close(reply_w)
        self._request_fd = request_w
        self._reader = protocol.Reader(reply_r)
        cap = self.settings.output_kb * 1024
        self._drains = [_Drain(self.proc.stdout, cap), _Drain(self.proc.stderr, cap)]
        for drain in self._drains:
            drain.start()
        hello = {
            'probe': self.probe,
            'module_path': str(copy / self.module_relpath),
            'submission_root': str(copy) + os.sep,
            'options': self.options,
            'load_seconds': self.load_seconds,
            'output_chars': cap,
            'layers': self._child_layers(),
        }
        self.loaded = self._exchange(hello, self.load_seconds + GRACE_SECONDS + 2.0)
        return self.loaded

    def _child_layers(self):
        layers = {}
        if 'rlimits' in self.isolation.layers:
            layers['rlimits'] = {
                'cpu_seconds': self.cpu_seconds,
                'memory_mb': self.settings.memory_mb,
                'file_mb': self.settings.file_mb,
                'open_files': self.settings.open_files,
            }
        return layers

    def call(self, payload, limit):
        """Run one probe request under a soft limit of ``limit`` seconds."""
        if self.proc is None or self.proc.poll() is not None:
            loaded = self.start()
            if not loaded.ok or loaded.observation.get('error'):
                return Reply(status='crashed', error='the module could not be loaded again: '
                             + (loaded.error or loaded.observation.get('error') or ''),
                             limit=limit)
        reply = self._exchange({'op': 'call', 'payload': payload, 'limit': limit},
                               limit + max(GRACE_SECONDS, 0.25 * limit))
        reply.limit = limit
        return reply

    def _exchange(self, message, wait):
        """Send ``message`` and wait up to ``wait`` seconds for its reply."""
        self._next_id += 1
        message = dict(message, id=self._next_id, token=self.token)
        started = time.monotonic()
        try:
            protocol.write_all(self._request_fd, protocol.encode(message))
            raw = self._reader.read(started + wait)
        except protocol.ChannelTimeout:
            self._kill()
            return Reply(status='timeout', wall=time.monotonic() - started,
                         error=f'timed out after {wait:.1f} s')
        except (protocol.ChannelClosed, BrokenPipeError, OSError):
            code = self._reap()
            return Reply(status='crashed', wall=time.monotonic() - started,
                         error=describe_exit(code))
        except protocol.ChannelOverflow:
            self._kill()
            return Reply(status='invalid', wall=time.monotonic() - started,
                         error='the reply was too large')
        wall = time.monotonic() - started
        if raw is None or not _ENVELOPE.is_valid(raw) or raw.get('token') != self.token \
                or raw.get('id') != self._next_id:
            self._kill()
            return Reply(status='invalid', wall=wall,
                         error='the sandbox reply was malformed (tampered channel?)')
        status = raw['status']
        error = raw.get('error', '')
        if status == 'timeout':
            error = 'timed out'
        return Reply(status=status, observation=raw.get('observation', {}), error=error,
                     elapsed=raw.get('elapsed', 0.0), wall=wall,
                     output=raw.get('output', ''), output_bytes=raw.get('output_bytes', 0))

    # -- teardown ------------------------------------------------------
    def _reap(self):
        """Wait briefly for the child to end and return its exit code."""
        if self.proc is None:
            return None
        try:
            code = self.proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            code = None
        self._kill()
        return code

    def _kill(self):
        proc, self.proc = self.proc, None
        if self._request_fd is not None:
            try:
                os.close(self._request_fd)
            except OSError:
                pass
            self._request_fd = None
        if self._reader is not None:
            try:
                os.close(self._reader.fd)
            except OSError:
                pass
            self._reader = None
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            pass
        for drain in self._drains:
            drain.join(timeout=0.5)
        for stream in (proc.stdout, proc.stderr):
            try:
                stream.close()
            except OSError:
                pass

    def output(self):
        """What the child wrote to its real stdout/stderr (capped), as text."""
        return b''.join(bytes(d.kept) for d in self._drains).decode('utf-8', 'replace')

    def close(self):
        """Stop the child and remove the private copy."""
        if self.proc is not None and self._request_fd is not None:
            try:
                protocol.write_all(self._request_fd, protocol.encode(
                    {'op': 'exit', 'id': 0, 'token': self.token}))
                self.proc.wait(timeout=1.0)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self._kill()
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None
