"""How the child process is started at a given isolation level (parent side).

:func:`plan` turns an :class:`~grader.sandbox.layers.Isolation` into the
command line, environment and folders of one child:

- with a cgroup, a one-line shell prologue joins the groups first
  (:func:`grader.sandbox.cgroups.join_prologue`);
- with namespaces, ``bwrap`` builds a minimal read-only filesystem: the system
  libraries and the Python installation bound read-only where they live;
  ``/run/python`` (the runner's: the child archive, written by bubblewrap
  from a descriptor, and the pristine copy of the submission); and two
  size-capped scratch file systems, ``/tmp`` and ``/home/student`` (the
  private copy, ``/home/student/project``, whose size limit is the policy's
  ``sandbox.disk_mb``), which the runner empties before every case, as it
  does ``/dev/shm`` (``paths['scratch']``).  No folder of the grader is bound, so neither the
  command line, the environment nor the mount table shows where the grader
  lives.  The child is PID 1 of its own PID namespace, with no network, and
  its own IPC and UTS namespaces;
- without namespaces, the same folders are made in the private folder on
  the host.
- the uid drop happens in the runner before any student code
  (:func:`grader.child.layers.drop_uid`): bubblewrap runs as root without a
  user namespace and hands the child only ``CAP_SETUID``/``CAP_SETGID``, which
  the drop itself discards, so the child is an unprivileged uid for the
  kernel, not root mapped inside a user namespace.

The environment is scrubbed and the command line is neutral
(``python -S -B -P - 3 6``): the few lines that start the trusted runner come
through standard input, which is then at its end, as with ``/dev/null``.
"""
import os
import sys
from dataclasses import dataclass

from grader.sandbox import bundle, cgroups

INSIDE_RUN = '/run/python'
"""The runner's own folder inside bubblewrap: the child archive and the pristine copy."""
INSIDE_HOME = '/home/student'
INSIDE_COPY = '/home/student/project'
TMPFS_BYTES = 64 * 1024 * 1024
_BOOT = ('import sys; sys.path[:] = [{archive!r}] + [p for p in sys.path if p not in ("", ".")]\n'
         'from grader.child.runner import main\nmain()\n')
_LIBRARIES = ('/usr/lib', '/usr/lib64', '/usr/lib32', '/lib', '/lib64', '/lib32')
_FILES = ('/etc/ld.so.cache', '/etc/localtime')


@dataclass
class Plan:
    """Everything ``subprocess.Popen`` needs, and the folders the runner uses."""

    argv: list
    env: dict
    cwd: str
    paths: dict
    """Inside the sandbox: ``pristine``, ``home``, ``project``, ``tmp``, and ``scratch``: the
    folders a case may write in, which the runner empties before every case (the home
    folder but the project, which it copies again from ``pristine``)."""
    boot: bytes
    pass_fds: tuple = ()


def python_flags():
    # Like ``python -I`` (no user site, no script folder on sys.path) but with
    # the environment replaced rather than ignored, so that PYTHONHASHSEED=0
    # makes string hashing, and so set order, reproducible.  And without the
    # site module (-S): no site-packages and no ``.pth`` files (an editable
    # install's import hook alone costs each child about 9 ms); the runner
    # restores the ``exit()`` and ``quit()`` that site would have added.
    return ['-S', '-B'] + (['-P'] if sys.version_info >= (3, 11) else [])


def interpreter():
    """The base interpreter behind this one (a virtual environment's ``python`` is a link to it).

    The child runs it directly: it needs no third-party package (``pyseccomp``
    travels in the child archive), and so neither the virtual environment
    nor any other folder of the grader is bound into the sandbox.
    """
    real = os.path.realpath(sys.executable)
    candidate = os.path.join(sys.base_prefix, 'bin', os.path.basename(real))
    return candidate if os.path.isfile(candidate) else real


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


def bwrap_argv(isolation, archive_fd, disk_bytes, uid_drop):
    """The bubblewrap part of the command line (up to and including ``--``).

    No folder of the grader is bound: the child archive comes through
    ``archive_fd`` (``--file``), the submission later through the runner's
    pipe; the Python installation is bound where it lives.
    """
    args = [isolation.bwrap, '--unshare-pid', '--unshare-net', '--unshare-ipc',
            '--unshare-uts', '--unshare-cgroup-try', '--as-pid-1', '--die-with-parent',
            '--new-session', '--hostname', 'localhost', '--cap-drop', 'ALL']
    if os.geteuid() == 0:
        if uid_drop:
            args += ['--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID']
    else:
        args += ['--unshare-user', '--disable-userns']
    made = {'/tmp', INSIDE_HOME, '/run', INSIDE_RUN}
    _bind_system(args, made)   # /usr and /etc traversable: the loader reads them after the uid drop
    # The scratch file systems come first: a Python installation that lives
    # under /tmp is bound on top of them.  /home/student (the project) and
    # /tmp are sticky and world-writable, size-capped; /run/python holds the
    # runner's archive and the pristine copy, the runner's alone.
    args += ['--perms', '1777', '--size', str(TMPFS_BYTES), '--tmpfs', '/tmp',
             '--perms', '1777', '--size', str(disk_bytes), '--tmpfs', INSIDE_HOME,
             '--perms', '0755', '--dir', '/run',
             '--perms', '0755', '--size', str(disk_bytes + TMPFS_BYTES), '--tmpfs', INSIDE_RUN]
    prefixes = {os.path.realpath(p) for p in (sys.base_prefix, sys.base_exec_prefix)}
    for prefix in sorted(prefixes):
        if not any(prefix.startswith(lib + '/') for lib in _LIBRARIES):
            _parents(args, prefix, made)
            args += ['--ro-bind', prefix, prefix]
    args += ['--perms', '0644', '--file', str(archive_fd), f'{INSIDE_RUN}/child.zip',
             '--dev', '/dev', '--proc', '/proc', '--chdir', INSIDE_HOME,
             '--remount-ro', '/', '--']
    return args


def plan(isolation, workdir, request_fd, reply_fd, group=None, archive_fd=None,
         disk_bytes=TMPFS_BYTES):
    """The child's command line for ``isolation`` (see the module docstring).

    With namespaces, ``archive_fd`` is a readable descriptor holding the
    child archive; without, the archive is written into ``workdir``.
    """
    uid_drop = isolation.has('uid-drop')
    prefix = cgroups.join_prologue(group.procs_files) if group is not None else []
    python = [interpreter(), *python_flags(), '-', str(request_fd), str(reply_fd)]
    if isolation.has('namespaces'):
        return Plan(argv=prefix + bwrap_argv(isolation, archive_fd, disk_bytes, uid_drop) + python,
                    env=environment(INSIDE_HOME, '/tmp'), cwd=str(workdir),
                    paths={'pristine': f'{INSIDE_RUN}/submission', 'home': INSIDE_HOME,
                           'project': INSIDE_COPY, 'tmp': '/tmp',
                           'scratch': ['/tmp', INSIDE_HOME, '/dev/shm']},
                    boot=_BOOT.format(archive=f'{INSIDE_RUN}/child.zip').encode(),
                    pass_fds=(archive_fd,))
    home, tmp = workdir / 'home', workdir / 'tmp'
    for folder in (home, tmp):
        folder.mkdir(exist_ok=True)
        os.chmod(folder, 0o1777)
    archive = workdir / 'child.zip'
    archive.write_bytes(bundle.archive())
    return Plan(argv=prefix + python, env=environment(str(home), str(tmp)), cwd=str(workdir),
                paths={'pristine': str(workdir / 'pristine'), 'home': str(home),
                       'project': str(home / 'project'), 'tmp': str(tmp),
                       'scratch': [str(tmp), str(home)]},
                boot=_BOOT.format(archive=str(archive)).encode())
