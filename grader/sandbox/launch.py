"""How the child process is started at a given isolation level (parent side).

:func:`plan` turns an :class:`~grader.sandbox.layers.Isolation` into the
command line, environment and working folder of one child:

- with a cgroup, a one-line shell prologue joins the groups first
  (:func:`grader.sandbox.cgroups.join_prologue`);
- with namespaces, ``bwrap`` builds a minimal read-only filesystem: the system
  libraries, the Python installation (``sys.base_prefix`` and the virtual
  environment), the grader *package* only (at :data:`INSIDE_PACKAGE_PARENT`,
  never the folder holding ``reference/``, ``fixtures/`` or
  ``grading.yaml``), the private copy read-write at :data:`INSIDE_COPY`, a
  private ``/dev``, ``/proc`` and size-capped ``/tmp`` and home.  The child is
  PID 1 of its own PID namespace (so it has no parent to look at), with no
  network, and its own IPC and UTS namespaces;
- the uid drop happens in the child's trusted runner before any student code
  (:func:`grader.sandbox.inchild.drop_uid`): bubblewrap runs as root without a
  user namespace and hands the child only ``CAP_SETUID``/``CAP_SETGID``, which
  the drop itself discards, so the child is uid 65534 for the kernel, not
  root mapped inside a user namespace.  (Dropping before ``bwrap`` would need
  the Python installation to be reachable by that uid, which it often is not,
  e.g. under ``/root/.pyenv``.)

The environment is scrubbed and the command line is neutral
(``python -S -B -P - 3 6``): the few lines that start the trusted runner come
through standard input, which is then at its end, as with ``/dev/null``.
Nothing in the environment, ``sys.argv`` or the child's own command line names
the grader.
"""
import os
import sys
from dataclasses import dataclass

from grader.sandbox import cgroups, layers

INSIDE_PACKAGE_PARENT = '/run/grader'
INSIDE_HOME = '/home/student'
INSIDE_COPY = '/home/student/project'
TMPFS_BYTES = 64 * 1024 * 1024
_BOOT = ('import sys; sys.path.insert(0, {path!r}); sys.path.extend({site!r})\n'
         'from grader.sandbox.runner import main\nmain()\n')
_LIBRARIES = ('/usr/lib', '/usr/lib64', '/usr/lib32', '/lib', '/lib64', '/lib32')
_FILES = ('/etc/ld.so.cache', '/etc/localtime')


@dataclass
class Plan:
    """Everything ``subprocess.Popen`` needs, and where the child sees the copy."""

    argv: list
    env: dict
    cwd: str
    copy_inside: str
    boot: bytes


def python_flags():
    # Like ``python -I`` (no user site, no script folder on sys.path) but with
    # the environment replaced rather than ignored, so that PYTHONHASHSEED=0
    # makes string hashing, and so set order, reproducible.  And without the
    # site module (-S): the boot puts the installation's site-packages on
    # sys.path itself (:func:`site_packages`) without running their ``.pth``
    # files (an editable install's import hook alone costs each child about
    # 9 ms), and the runner restores the ``exit()`` and ``quit()`` that site
    # would have added.
    return ['-S', '-B'] + (['-P'] if sys.version_info >= (3, 11) else [])


def site_packages():
    """The site-packages folders on this interpreter's own path, in order.

    The child gets the same third-party packages as the grader (pyseccomp,
    and whatever a course installs for its students); at the strong level
    they are reachable because the Python installations are bound read-only.
    """
    return [p for p in sys.path if os.path.basename(p) in ('site-packages', 'dist-packages')]


def environment(home, tmp):
    return {'PATH': '/usr/bin:/bin', 'LANG': 'C.UTF-8', 'LC_ALL': 'C.UTF-8',
            'HOME': home, 'TMPDIR': tmp, 'PYTHONHASHSEED': '0',
            'PYTHONDONTWRITEBYTECODE': '1', 'PYTHONIOENCODING': 'utf-8'}


def _bind_system(args, made):
    for path in _LIBRARIES:
        if os.path.islink(path):
            args += ['--symlink', os.readlink(path), path]
        elif os.path.isdir(path):
            _parents(args, path, made)
            args += ['--ro-bind', path, path]
    for path in _FILES:
        if os.path.isfile(path):
            _parents(args, path, made)
            args += ['--ro-bind', path, path]


def _parents(args, dest, made):
    """Create ``dest``'s parent folders world-traversable (``0755``).

    Left to itself, bubblewrap copies the host's modes, and a ``/root`` that
    is ``0700`` would hide a Python installation under it from the child.
    """
    parts = dest.strip('/').split('/')[:-1]
    for i in range(1, len(parts) + 1):
        folder = '/' + '/'.join(parts[:i])
        if folder not in made:
            made.add(folder)
            args += ['--perms', '0755', '--dir', folder]


def bwrap_argv(isolation, copy, uid_drop):
    """The bubblewrap part of the command line (up to and including ``--``)."""
    args = [isolation.bwrap, '--unshare-pid', '--unshare-net', '--unshare-ipc',
            '--unshare-uts', '--unshare-cgroup-try', '--as-pid-1', '--die-with-parent',
            '--new-session', '--hostname', 'localhost', '--cap-drop', 'ALL']
    if os.geteuid() == 0:
        if uid_drop:
            args += ['--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID']
    else:
        args += ['--unshare-user', '--disable-userns']
    made = {'/tmp', INSIDE_HOME}
    _bind_system(args, made)   # /usr and /etc traversable: the loader reads them after the uid drop
    # The scratch file systems come first: a Python installation or grader
    # checkout that lives under /tmp (as in a CI clone) is bound on top of them.
    args += ['--perms', '1777', '--size', str(TMPFS_BYTES), '--tmpfs', '/tmp',
             '--perms', '0777', '--size', str(TMPFS_BYTES), '--tmpfs', INSIDE_HOME]
    prefixes = {os.path.realpath(p) for p in (sys.base_prefix, sys.base_exec_prefix)}
    prefixes |= {sys.prefix, sys.exec_prefix}
    for prefix in sorted(prefixes):
        if not any(prefix.startswith(lib + '/') for lib in _LIBRARIES):
            _parents(args, prefix, made)
            args += ['--ro-bind', prefix, prefix]
    _parents(args, f'{INSIDE_PACKAGE_PARENT}/grader', made)
    args += ['--ro-bind', layers.PACKAGE_DIR, f'{INSIDE_PACKAGE_PARENT}/grader',
             '--dev', '/dev', '--proc', '/proc',
             '--bind', str(copy), INSIDE_COPY, '--chdir', INSIDE_COPY,
             '--remount-ro', '/', '--']
    return args


def plan(isolation, workdir, request_fd, reply_fd, group=None):
    """The child's command line for ``isolation`` (see the module docstring)."""
    copy = workdir / 'submission'
    uid_drop = isolation.has('uid-drop')
    prefix = cgroups.join_prologue(group.procs_files) if group is not None else []
    python = [sys.executable, *python_flags(), '-', str(request_fd), str(reply_fd)]
    if isolation.has('namespaces'):
        return Plan(argv=prefix + bwrap_argv(isolation, copy, uid_drop) + python,
                    env=environment(INSIDE_HOME, '/tmp'), cwd=str(workdir),
                    copy_inside=INSIDE_COPY,
                    boot=_BOOT.format(path=INSIDE_PACKAGE_PARENT, site=site_packages()).encode())
    tmp = str(workdir / 'tmp')
    return Plan(argv=prefix + python, env=environment(tmp, tmp), cwd=str(copy),
                copy_inside=str(copy),
                boot=_BOOT.format(path=os.path.dirname(layers.PACKAGE_DIR),
                                  site=site_packages()).encode())


def hand_over(workdir, uid):
    """Make the private copy and its temp folder belong to the sandbox ``uid``.

    Folders become ``rwxr-xr-x`` and files ``rw-r--r--`` (keeping execute
    bits), so the child, whether it has dropped to ``uid`` or is root without
    capabilities during its start, can reach them.
    """
    os.chmod(workdir, 0o711)
    for root, dirs, files in os.walk(workdir):
        for name in dirs:
            path = os.path.join(root, name)
            os.lchown(path, uid, uid)
            os.chmod(path, 0o755)
        for name in files:
            path = os.path.join(root, name)
            if os.path.islink(path):
                continue
            os.lchown(path, uid, uid)
            os.chmod(path, (os.stat(path).st_mode & 0o111) | 0o644)
