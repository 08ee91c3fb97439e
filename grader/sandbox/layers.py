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

:func:`detect` probes the machine once per process (running ``bwrap`` once,
making and removing one cgroup) and says in ``missing`` which layer is not
available and why, one line each.
"""
import functools
import os
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

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
    import secrets
    return SANDBOX_UIDS[secrets.randbelow(len(SANDBOX_UIDS))]

STRONG = ('namespaces', 'uid-drop', 'seccomp', 'cgroup')
"""Layers that must all be in force for the ``strong`` level."""

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
        return f'{self.level} ({", ".join(self.layers) or "no layers"})'

    def has(self, layer):
        return layer in self.layers


def _bwrap_argv(bwrap):
    namespaces = ['--unshare-pid', '--unshare-net', '--unshare-ipc', '--unshare-uts']
    if os.geteuid() != 0:
        namespaces.append('--unshare-user')
    return [bwrap, *namespaces, '--die-with-parent', '--new-session', '--cap-drop', 'ALL',
            '--ro-bind', '/', '/', '--', 'true']


@functools.lru_cache(maxsize=None)
def _probe_bwrap():
    """(path, problem): bubblewrap's path when it can make namespaces here."""
    bwrap = shutil.which('bwrap', path='/usr/bin:/bin:/usr/local/bin:' + os.environ.get('PATH', ''))
    if not bwrap:
        return '', 'bubblewrap (bwrap) is not installed; scripts/system-deps.sh installs it'
    try:
        done = subprocess.run(_bwrap_argv(bwrap), stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return '', f'{bwrap} could not be run ({exc})'
    if done.returncode != 0:
        why = done.stderr.decode('utf-8', 'replace').strip().splitlines()
        return '', f'{bwrap} cannot create namespaces here ({why[-1] if why else done.returncode})'
    return bwrap, ''


@functools.lru_cache(maxsize=None)
def _probe_seccomp():
    """'' when the kernel, libseccomp and pyseccomp are all present, else why not."""
    try:
        with open('/proc/self/status') as f:
            if 'Seccomp:' not in f.read():
                return 'the kernel has no seccomp support'
    except OSError:
        return 'the kernel has no seccomp support (/proc/self/status unreadable)'
    import importlib.util
    if importlib.util.find_spec('pyseccomp') is None:
        return "the pyseccomp package is not installed (pip install 'grader[sandbox]')"
    import ctypes
    try:
        ctypes.CDLL('libseccomp.so.2')
    except OSError:
        return 'libseccomp.so.2 is not installed (apt-get install libseccomp2)'
    return ''


@functools.lru_cache(maxsize=None)
def _probe_cgroups():
    from grader.sandbox import cgroups
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


def detect(settings=None):
    """Detect the layers available here; never raises."""
    layers = ['subprocess', 'timeouts', 'private-copy', 'scrubbed-env', 'capped-output',
              'audit-hook']
    missing = []
    linux = sys.platform.startswith('linux')
    bwrap, cgroup_support = '', None
    if os.name == 'posix':
        layers.append('process-group')
        try:
            import resource  # noqa: F401
            layers.append('rlimits')
        except ImportError:
            missing.append('rlimits: the resource module is unavailable')
    if not linux:
        for layer in STRONG:
            missing.append(f'{layer}: Linux only (this is {sys.platform})')
    else:
        try:
            bwrap, problem = _probe_bwrap()
            if bwrap:
                layers.append('namespaces')
            else:
                missing.append(f'namespaces: {problem}')
            problem = _uid_problem(bwrap)
            if problem:
                missing.append(f'uid-drop: {problem}')
            else:
                layers.append('uid-drop')
            problem = _probe_seccomp()
            if problem:
                missing.append(f'seccomp: {problem}')
            else:
                layers.append('seccomp')
            cgroup_support = _probe_cgroups()
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
