"""Isolation layers applied inside the child, before student code is imported.

Only the standard library (and, for seccomp, ``pyseccomp``) may be imported
here: this module runs in the sandboxed child, called by the trusted runner
right after it has read the parent's *hello* and before it imports anything
of the submission.  The order matters:

1. rlimits (CPU with a soft limit below the hard one, address space, file
   size, open files, no core dumps; processes once the uid is unprivileged);
2. the uid drop (no supplementary groups, then gid, then uid; every
   capability goes with it) and ``PR_SET_NO_NEW_PRIVS``;
3. the seccomp filter (:func:`seccomp_rules`), denying with ``EPERM`` so the
   submission sees an ordinary ``PermissionError``;
4. an audit hook (:func:`install_audit_hook`) that refuses process creation,
   sockets and ``ctypes`` with a clear message -- on every platform, so that
   laptops without the layers above still stop accidents.

A layer that was requested but cannot be applied raises :class:`LayerFailed`:
the runner then refuses to import student code (fail closed).
"""
import errno
import os
import sys

MIB = 1024 * 1024
PR_SET_NO_NEW_PRIVS = 38
CLONE_THREAD = 0x00010000

DENIED = (
    # new processes and programs (threads stay allowed, see seccomp_rules)
    'fork', 'vfork', 'execve', 'execveat',
    # looking into or controlling other processes
    'ptrace', 'process_vm_readv', 'process_vm_writev', 'pidfd_open', 'pidfd_getfd',
    'pidfd_send_signal', 'tkill',
    # escaping or changing the namespaces and mounts
    'mount', 'umount2', 'pivot_root', 'chroot', 'unshare', 'setns', 'open_tree',
    'move_mount', 'fsopen', 'fsmount', 'fsconfig', 'fspick', 'mount_setattr',
    # sockets of every family: no exercise needs one, and abstract unix sockets
    # reach the host when there is no network namespace
    'socket', 'socketpair',
    # kernel interfaces with a record of sandbox escapes, and io_uring, whose
    # operations (connect, openat ...) would bypass this filter
    'bpf', 'perf_event_open', 'userfaultfd', 'keyctl', 'add_key', 'request_key',
    'io_uring_setup', 'io_uring_enter', 'io_uring_register',
    'kexec_load', 'kexec_file_load', 'init_module', 'finit_module', 'delete_module',
    'swapon', 'swapoff', 'reboot', 'acct',
)
"""System calls the filter answers with ``EPERM``."""


class LayerFailed(Exception):
    """A requested isolation layer could not be applied in the child."""


def apply_rlimits(limits, unprivileged):
    """Set CPU (soft below hard), address space, file size, open files, core=0."""
    import resource
    cpu = limits.get('cpu_seconds')
    if cpu:
        resource.setrlimit(resource.RLIMIT_CPU, (int(cpu), int(cpu) + 5))
    memory = limits.get('memory_mb')
    if memory and hasattr(resource, 'RLIMIT_AS'):
        resource.setrlimit(resource.RLIMIT_AS, (memory * MIB, memory * MIB))
    fsize = limits.get('file_mb')
    if fsize is not None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize * MIB, fsize * MIB))
    nofile = limits.get('open_files')
    if nofile:
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    nproc = limits.get('processes')
    # RLIMIT_NPROC counts every process of the uid and does not bind root.
    if nproc and unprivileged and hasattr(resource, 'RLIMIT_NPROC'):
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))


def _libc():
    import ctypes
    return ctypes.CDLL('libc.so.6', use_errno=True)


def no_new_privs(libc=None):
    """``prctl(PR_SET_NO_NEW_PRIVS, 1)``: no exec can ever grant privileges again."""
    import ctypes
    libc = libc or _libc()
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise LayerFailed(f'no_new_privs: {os.strerror(ctypes.get_errno())}')


def drop_uid(uid, gid):
    """Leave root for ``uid``/``gid`` with no supplementary groups (all ids)."""
    try:
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    except OSError as exc:
        raise LayerFailed(f'uid drop to {uid}: {exc.strerror}') from None
    if os.getresuid() != (uid, uid, uid) or os.getgroups():
        raise LayerFailed(f'uid drop to {uid} did not take effect')
    try:
        os.setuid(0)
    except OSError:
        return
    raise LayerFailed('root could be regained after the uid drop')


_LIBRARIES = {'c': 'libc.so.6', 'seccomp': 'libseccomp.so.2'}


def _find_library(name):
    """``ctypes.util.find_library`` for the libraries pyseccomp asks for, without running programs."""
    if name in _LIBRARIES:
        return _LIBRARIES[name]
    import importlib
    return importlib.import_module('ctypes.util').find_library(name)


def _load_pyseccomp():
    """Import pyseccomp with a stand-in ``ctypes.util`` that knows its two libraries.

    The real module runs programs to find libraries, and importing it costs
    more than the rest of the child's start (about 11 ms); the stand-in is
    removed again once pyseccomp has loaded.
    """
    import ctypes
    import types
    stand_in = types.ModuleType('ctypes.util')
    stand_in.find_library = _find_library
    saved = sys.modules.get('ctypes.util'), getattr(ctypes, 'util', None)
    sys.modules['ctypes.util'] = ctypes.util = stand_in
    try:
        import pyseccomp
    finally:
        module, attribute = saved
        if module is None:
            del sys.modules['ctypes.util']
        else:
            sys.modules['ctypes.util'] = module
        if attribute is None:
            del ctypes.util
        else:
            ctypes.util = attribute
    return pyseccomp


def seccomp_rules(seccomp, pid):
    """The filter: allow by default, deny :data:`DENIED` and a few argument cases.

    - ``clone`` is allowed only with ``CLONE_THREAD`` (a thread, not a process);
      ``clone3``, whose flags a filter cannot read, answers ``ENOSYS`` so the C
      library falls back to ``clone``;
    - signals may only be sent to the child itself (``kill``, ``tgkill``,
      ``rt_sigqueueinfo`` with another pid, a group or -1 are denied).
    System calls of other architectures (x32, i386) kill the process, which is
    libseccomp's default for a foreign architecture.
    """
    deny = seccomp.ERRNO(errno.EPERM)
    rules = seccomp.SyscallFilter(seccomp.ALLOW)
    for name in DENIED:
        try:
            rules.add_rule(deny, name)
        except (OSError, ValueError, RuntimeError):
            pass  # not a system call on this architecture or kernel
    rules.add_rule(deny, 'clone', seccomp.Arg(0, seccomp.MASKED_EQ, CLONE_THREAD, 0))
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), 'clone3')
    for name in ('kill', 'tgkill', 'rt_sigqueueinfo', 'rt_tgsigqueueinfo'):
        rules.add_rule(deny, name, seccomp.Arg(0, seccomp.NE, pid))
    return rules


def install_audit_hook():
    """Refuse new processes, sockets and ctypes from Python code, with a reason."""
    refused = {
        'os.system': 'running programs', 'os.exec': 'running programs',
        'os.posix_spawn': 'running programs', 'os.spawn': 'running programs',
        'subprocess.Popen': 'running programs', 'os.fork': 'starting processes',
        'os.forkpty': 'starting processes', 'pty.spawn': 'running programs',
        'socket.__new__': 'network access', 'socket.connect': 'network access',
        'socket.bind': 'network access', 'socket.getaddrinfo': 'network access',
        'ctypes.dlopen': 'ctypes', 'ctypes.dlsym': 'ctypes', 'ctypes.cdata': 'ctypes',
        'ctypes.call_function': 'ctypes', 'ctypes.addressof': 'ctypes',
        'os.kill': 'signalling other processes', 'os.killpg': 'signalling other processes',
        'sys.addaudithook': 'audit hooks', 'os.setuid': 'changing user',
    }
    own = os.getpid()

    def hook(event, args):
        reason = refused.get(event)
        if reason is None:
            return
        if event == 'os.kill' and args and args[0] == own:
            return
        raise PermissionError(f'{reason} is not allowed while grading ({event})')

    sys.addaudithook(hook)


def apply(layers):
    """Apply the in-child layers named in the hello message; the names applied."""
    applied = []
    uid = layers.get('uid-drop')
    if 'rlimits' in layers:
        apply_rlimits(layers['rlimits'], unprivileged=bool(uid) or os.geteuid() != 0)
        applied.append('rlimits')
    seccomp = _load_pyseccomp() if 'seccomp' in layers else None
    libc = _libc() if (uid or seccomp) else None
    if uid:
        drop_uid(uid['uid'], uid['gid'])
        if 'rlimits' in layers:
            apply_rlimits({'processes': layers['rlimits'].get('processes')}, True)
        applied.append('uid-drop')
    if uid or seccomp:
        no_new_privs(libc)
    if seccomp:
        try:
            seccomp_rules(seccomp, os.getpid()).load()
        except OSError as exc:
            raise LayerFailed(f'seccomp: {exc.strerror or exc}') from None
        applied.append('seccomp')
    if layers.get('audit-hook', True):
        install_audit_hook()
        applied.append('audit-hook')
    return applied
