"""Which isolation layers this machine offers, and the level they add up to.

Levels, recorded in every result:

- ``strong``: on top of ``standard``, namespaces through bubblewrap (a
  minimal read-only filesystem holding only the Python installation, the
  grader package and the private copy; its own PID, network, IPC and UTS
  namespaces), an unprivileged uid with no supplementary groups and
  ``no_new_privs``, a seccomp filter (no processes, programs, sockets,
  ptrace, mounts or namespaces), and a cgroup that guarantees teardown.
- ``standard``: Linux; a child process in its own session and process group,
  with rlimits (CPU, address space, file size, open files, no core dumps), a
  scrubbed environment, closed stdin, capped output, a private copy of the
  submission, an audit hook against accidents, and whichever of the strong
  layers are available.
- ``advisory``: not Linux (macOS or Windows laptops): a subprocess with time
  limits, process-group kill, rlimits where they exist and the audit hook.
  Good against accidents, not against attacks.

Who holds each layer (:meth:`Isolation.report`, recorded in every result):
the kernel (:data:`KERNEL`: what holds against an attack), the grader's own
process (:data:`GRADER`), or the submission's own process
(:data:`IN_PROCESS`: the audit hook and the stand-ins that refuse process
starts, sockets and ctypes; Python objects beside the student's code, a best
effort against accidents, never what holds).

:func:`detect` probes the machine once per process (running ``bwrap`` once,
making and removing one cgroup per hierarchy) and says in ``missing`` which
layer is not available and why, one line each.
"""
import functools
import importlib.util
import os
import secrets
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from grader.sandbox import cgroups

SANDBOX_UID = 65534
"""The uid 'nobody', used to test whether files are reachable by a uid that owns nothing."""

SANDBOX_UIDS = range(2_000_000_000, 2_010_000_000)
"""Unprivileged uids (and gids) for children when the grader runs as root.

Each session draws its own, so RLIMIT_NPROC, which counts every process of a
uid machine-wide, limits one sandbox rather than every sandbox running at
once (batch workers, parallel exercises), and no two sandboxes can signal or
read each other's files.  No account owns these ids."""


def sandbox_uid():
    """A fresh uid from :data:`SANDBOX_UIDS` for one session."""
    return SANDBOX_UIDS[secrets.randbelow(len(SANDBOX_UIDS))]

STRONG = ('namespaces', 'uid-drop', 'seccomp', 'cgroup')
"""Layers that must all be in force for the ``strong`` level."""

KERNEL = ('process-group', 'rlimits', 'namespaces', 'uid-drop', 'seccomp', 'cgroup', 'subreaper')
"""Layers the kernel enforces on every process of the sandbox: what holds."""
GRADER = ('subprocess', 'timeouts', 'private-copy', 'scrubbed-env', 'capped-output')
"""Layers the grader's own process keeps, outside the sandbox."""
IN_PROCESS = ('audit-hook',)
"""Layers inside the submission's own process (:func:`grader.child.layers.install_guards`):
a best effort, named as such in every report."""

PACKAGE_DIR = str(Path(__file__).resolve().parents[1])
"""The grader package folder (the only part of the grader the child sees)."""


@dataclass
class Isolation:
    """The layers in force for a grading run."""

    level: str
    layers: list = field(default_factory=list)
    missing: list = field(default_factory=list)
    bwrap: str = ''
    cgroups: object = None
    uid: int = SANDBOX_UID

    def describe(self):
        """One sentence: the level, who holds each layer in force, and what is not in force."""
        def held(group):
            return ', '.join(layer for layer in self.layers if layer in group) or 'none'
        absent = [line.split(':', 1)[0] for line in self.missing]
        parts = [f'held by the kernel: {held(KERNEL)}', f'kept by the grader: {held(GRADER)}']
        if any(layer in self.layers for layer in IN_PROCESS):
            parts.append(f"in the submission's own process, a best effort only: "
                         f'{held(IN_PROCESS)}')
        if absent:
            parts.append(f'not in force: {", ".join(dict.fromkeys(absent))}')
        return f'{self.level} ({"; ".join(parts)})'

    def report(self):
        """What a result records: the level, the layers in force, those missing and why,
        and who holds each layer in force (``kernel``, ``grader``, ``in_process``)."""
        return {'level': self.level, 'layers': list(self.layers), 'missing': list(self.missing),
                'kernel': [layer for layer in self.layers if layer in KERNEL],
                'grader': [layer for layer in self.layers if layer in GRADER],
                'in_process': [layer for layer in self.layers if layer in IN_PROCESS],
                'summary': self.describe()}

    def has(self, layer):
        return layer in self.layers


def _bwrap_argv(bwrap):
    namespaces = ['--unshare-pid', '--unshare-net', '--unshare-ipc', '--unshare-uts']
    if os.geteuid() != 0:
        namespaces.append('--unshare-user')
    return [bwrap, *namespaces, '--die-with-parent', '--new-session', '--cap-drop', 'ALL',
            '--ro-bind', '/', '/', '--', 'true']


class _BwrapProbe:
    """Bubblewrap's trial run: started by the constructor, awaited by :meth:`answer`.

    The trial runs as its own process while the other probes run here; its
    answer, ``(path, problem)``, is kept for the rest of the process.
    """

    known = None
    """The answer of the first trial that finished in this process."""

    def __init__(self):
        self.bwrap, self.problem, self.proc = '', '', None
        if _BwrapProbe.known is not None:
            return
        bwrap = shutil.which('bwrap',
                             path='/usr/bin:/bin:/usr/local/bin:' + os.environ.get('PATH', ''))
        if not bwrap:
            self.problem = 'bubblewrap (bwrap) is not installed; scripts/system-deps.sh installs it'
            return
        self.bwrap = bwrap
        try:
            self.proc = subprocess.Popen(_bwrap_argv(bwrap), stdin=subprocess.DEVNULL,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except OSError as exc:
            self.problem = f'{bwrap} could not be run ({exc})'

    def answer(self):
        """(path, problem): bubblewrap's path when it can make namespaces here."""
        if _BwrapProbe.known is None:
            _BwrapProbe.known = self._finish()
        return _BwrapProbe.known

    def _finish(self):
        bwrap = self.bwrap
        if self.proc is None:
            return '', self.problem
        with self.proc as proc:  # as subprocess.run(..., timeout=10) does it
            try:
                _, stderr = proc.communicate(timeout=10)
            except subprocess.TimeoutExpired as exc:
                proc.kill()
                proc.wait()
                return '', f'{bwrap} could not be run ({exc})'
            except BaseException:
                proc.kill()
                raise
        if proc.returncode != 0:
            why = stderr.decode('utf-8', 'replace').strip().splitlines()
            reason = why[-1] if why else proc.returncode
            return '', f'{bwrap} cannot create namespaces here ({reason})'
        return bwrap, ''


_started = []
"""A trial run begun by :func:`start` and not yet taken up by :func:`detect`."""


def start():
    """Begin the slow probe (bubblewrap's trial run) now, for a later :func:`detect`.

    A command line calls this first, so the trial runs while the grader
    imports its modules and reads the policy.  Optional; never raises.
    """
    if sys.platform.startswith('linux') and _BwrapProbe.known is None and not _started:
        try:
            _started.append(_BwrapProbe())
        except Exception:  # noqa: BLE001,S110 - detect() probes again and reports
            pass


def _bwrap_probe():
    """The trial begun by :func:`start`, else a new one."""
    try:
        return _started.pop()
    except IndexError:
        return _BwrapProbe()


def _probe_bwrap():
    """(path, problem): bubblewrap's path when it can make namespaces here."""
    return _bwrap_probe().answer()


@functools.lru_cache(maxsize=None)
def _probe_seccomp():
    """'' when the kernel, libseccomp and pyseccomp are all present, else why not."""
    try:
        with open('/proc/self/status') as f:
            if 'Seccomp:' not in f.read():
                return 'the kernel has no seccomp support'
    except OSError:
        return 'the kernel has no seccomp support (/proc/self/status unreadable)'
    if importlib.util.find_spec('pyseccomp') is None:
        return ("the pyseccomp package is not installed (the grader's sandbox extra: "
                "pip install 'search-grader[sandbox]', or pip install pyseccomp)")
    # The same dynamic-loader call as ctypes.CDLL('libseccomp.so.2') in the
    # child, through the C module alone: importing the ctypes package costs
    # more than the test itself.
    import _ctypes
    try:
        handle = _ctypes.dlopen('libseccomp.so.2', os.RTLD_LOCAL)
    except OSError:
        return 'libseccomp.so.2 is not installed (apt-get install libseccomp2)'
    _ctypes.dlclose(handle)
    return ''


@functools.lru_cache(maxsize=None)
def _probe_cgroups():
    return cgroups.detect()


def _readable_by_other(path):
    """Whether a uid that owns nothing may reach and read ``path``."""
    path = Path(path).resolve()
    for folder in [*reversed(path.parents), path]:
        try:
            mode = os.stat(folder).st_mode
        except OSError:
            return False
        if not mode & stat.S_IXOTH:
            return False
    return bool(os.stat(path).st_mode & stat.S_IROTH)


def _uid_problem(bwrap):
    if os.geteuid() != 0:
        return f'the grader is not running as root, so the child keeps uid {os.geteuid()}'
    if bwrap:
        return ''
    for path in {sys.base_prefix, sys.prefix, PACKAGE_DIR}:
        if not _readable_by_other(path):
            return (f'{path} is not readable by uid {SANDBOX_UID}, and bubblewrap, '
                    'which would mount it, is unavailable')
    return ''


def _attempt(probe):
    """Run ``probe`` now; a function that returns its answer or raises its error."""
    try:
        answer = probe()
    except Exception as exc:  # noqa: BLE001 - raised when the answer is read
        error = exc

        def fail():
            raise error
        return fail
    return lambda: answer


def detect(settings=None):
    """Detect the layers available here; never raises.

    Bubblewrap's trial run (begun here, or earlier by :func:`start`) goes on
    in its own process while seccomp and the cgroups are probed here, and
    the answers are read in the order the layers are listed.  (Not threads:
    each probe is a few system calls, and in a thread each call would wait
    for the interpreter lock, up to 5 ms while calibration computes.)
    """
    layers = ['subprocess', 'timeouts', 'private-copy', 'scrubbed-env', 'capped-output',
              'audit-hook']
    missing = []
    linux = sys.platform.startswith('linux')
    bwrap, cgroup_support = '', None
    if os.name == 'posix':
        layers.append('process-group')
        try:
            import resource  # noqa: F401 - only whether the platform has it
            layers.append('rlimits')
        except ImportError:
            missing.append('rlimits: the resource module is unavailable')
    if not linux:
        for layer in STRONG:
            missing.append(f'{layer}: Linux only (this is {sys.platform})')
    else:
        try:
            bwrap_probe = _bwrap_probe()
            seccomp_answer, cgroups_answer = _attempt(_probe_seccomp), _attempt(_probe_cgroups)
            bwrap, problem = bwrap_probe.answer()
            if bwrap:
                layers.append('namespaces')
            else:
                missing.append(f'namespaces: {problem}')
            problem = _uid_problem(bwrap)
            if problem:
                missing.append(f'uid-drop: {problem}')
            else:
                layers.append('uid-drop')
            seccomp_problem = seccomp_answer()
            if seccomp_problem:
                missing.append(f'seccomp: {seccomp_problem}')
            else:
                layers.append('seccomp')
            cgroup_support = cgroups_answer()
            if cgroup_support.usable:
                layers.append('cgroup')
            else:
                layers.append('subreaper')
                missing.append(f'cgroup: {"; ".join(cgroup_support.problems) or "unavailable"}'
                               '; teardown falls back to a subreaper sweep')
        except Exception as exc:  # noqa: BLE001 - detection never stops grading
            missing.append(f'layer detection failed: {type(exc).__name__}: {exc}')
    if not linux:
        level = 'advisory'
    elif all(layer in layers for layer in STRONG):
        level = 'strong'
    else:
        level = 'standard' if 'rlimits' in layers else 'advisory'
    return Isolation(level=level, layers=layers, missing=missing, bwrap=bwrap,
                     cgroups=cgroup_support)


def weaker(isolation, without):
    """A copy of ``isolation`` without the layers in ``without`` (for tests and doctor)."""
    layers = [layer for layer in isolation.layers if layer not in without]
    missing = list(isolation.missing) + [f'{layer}: switched off' for layer in without
                                         if layer in isolation.layers]
    if 'uid-drop' in layers and 'namespaces' not in layers and _uid_problem(''):
        layers.remove('uid-drop')
        missing.append(f'uid-drop: {_uid_problem("")}')
    if 'cgroup' in without and 'subreaper' not in layers and sys.platform.startswith('linux'):
        layers.append('subreaper')
    level = isolation.level
    if level == 'strong' and not all(layer in layers for layer in STRONG):
        level = 'standard'
    if level == 'standard' and 'rlimits' not in layers:
        level = 'advisory'
    return Isolation(level=level, layers=layers, missing=missing,
                     bwrap=isolation.bwrap if 'namespaces' in layers else '',
                     cgroups=isolation.cgroups if 'cgroup' in layers else None,
                     uid=isolation.uid)
