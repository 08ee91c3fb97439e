"""Isolation layers applied inside the sandbox, in two steps.

Only the standard library (and, for seccomp, ``pyseccomp``) may be imported
here.  The runner applies :func:`apply_runner` once, right after it has read
the parent's *hello* and unpacked the submission, before any student code
exists; each case process applies :func:`apply_case` right after the fork,
before it executes the student module:

runner (never runs student code; it forks the case processes)
    1. rlimits (address space, file size, open files, no core dumps;
       processes once the uid is unprivileged);
    2. the uid drop (no supplementary groups, then gid, then uid; every
       capability goes with it), ``PR_SET_NO_NEW_PRIVS`` and
       ``PR_SET_DUMPABLE`` 0, so no process of the same uid can read or
       write its memory;
    3. the runner's seccomp filter (:func:`seccomp_rules`): no programs, no
       sockets, no System V or POSIX IPC objects, no tracing, no mounts --
       denied with ``EPERM`` so a submission sees an ordinary
       ``PermissionError``.
case process (stacked on the runner's)
    4. a CPU rlimit for the call (the kernel's back-up of the parent's limit);
    5. a second seccomp filter: no new process (``fork``, ``vfork``,
       ``clone`` without ``CLONE_THREAD``), signals only to itself;
    6. the in-process guards (:func:`install_guards`): an audit hook and
       stand-ins that refuse process creation, sockets and ``ctypes`` with a
       clear message -- on every platform, so laptops without the layers
       above still stop accidents.  They are Python objects in the
       submission's own process, a best effort that the report names as
       such; the kernel layers are what hold.

A layer that was requested but cannot be applied raises :class:`LayerFailed`:
the runner then refuses to execute student code (fail closed).
"""
import base64
import errno
import importlib
import os
import resource
import signal
import sys
import types

from grader.child import tally

MIB = 1024 * 1024
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
CLONE_THREAD = 0x00010000

DENIED = (
    # programs (new processes are denied by the case filter, see case_rules)
    'execve', 'execveat',
    # looking into or controlling other processes
    'ptrace', 'process_vm_readv', 'process_vm_writev', 'pidfd_open', 'pidfd_getfd',
    'pidfd_send_signal',
    # escaping or changing the namespaces and mounts
    'mount', 'umount2', 'pivot_root', 'chroot', 'unshare', 'setns', 'open_tree',
    'move_mount', 'fsopen', 'fsmount', 'fsconfig', 'fspick', 'mount_setattr',
    # sockets of every family: no exercise needs one, and abstract unix sockets
    # reach the host when there is no network namespace
    'socket', 'socketpair',
    # System V and POSIX message queues, semaphores and shared memory: objects of the
    # IPC namespace that outlive the case process that made them (no exercise needs
    # one; POSIX shared memory and semaphores are files in /dev/shm, emptied between
    # cases when a case may write there)
    'shmget', 'shmat', 'shmdt', 'shmctl', 'msgget', 'msgsnd', 'msgrcv', 'msgctl',
    'semget', 'semop', 'semtimedop', 'semctl', 'mq_open', 'mq_unlink', 'mq_timedsend',
    'mq_timedreceive', 'mq_notify', 'mq_getsetattr',
    # kernel interfaces with a record of sandbox escapes, and io_uring, whose
    # operations (connect, openat ...) would bypass this filter
    'bpf', 'perf_event_open', 'userfaultfd', 'keyctl', 'add_key', 'request_key',
    'io_uring_setup', 'io_uring_enter', 'io_uring_register',
    'kexec_load', 'kexec_file_load', 'init_module', 'finit_module', 'delete_module',
    'swapon', 'swapoff', 'reboot', 'acct',
)
"""System calls the runner's filter answers with ``EPERM`` (for every process of the sandbox)."""

PROCESSES = ('fork', 'vfork')
"""System calls the case filter answers with ``EPERM`` besides ``clone`` of a process."""


class LayerFailed(Exception):
    """A requested isolation layer could not be applied in the child."""


def apply_rlimits(limits, unprivileged):
    """Set CPU (soft below hard), address space, file size, open files, core=0."""
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


def _prctl(option, value):
    """``prctl(option, value, 0, 0, 0)``: through the search counter's extension when it is
    loaded, so the runner never loads ctypes (which would hand every case process's code
    the whole memory of its process: ``ctypes.cast`` raises no audit event); else through
    the C library (ctypes).  Raises OSError."""
    if tally.loaded():
        tally.prctl(option, value)
        return
    import ctypes  # ctypes is slow to import: only where a layer needs it
    if _libc().prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


def _libc():
    """The C library (loaded once per process: a case process uses the runner's); only
    without the counter's extension (:func:`_prctl`)."""
    if not _LIBC:
        import ctypes  # ctypes is slow to import: only where a layer needs it
        _LIBC.append(ctypes.CDLL('libc.so.6', use_errno=True))
    return _LIBC[0]


_LIBC = []


def die_with_parent(parent):
    """Have the kernel send SIGKILL to this process when its parent ends, and end at once
    if the parent ``parent`` (a pid, as seen before) has ended already (Linux).

    The runner asks again after its uid drop, which clears the request; a case
    process asks first thing after its fork, which does not inherit it.  So
    a grader killed outright takes its sandbox with it at every level: the
    runner with the grader, the case process with the runner.
    """
    if not sys.platform.startswith('linux'):
        return
    try:
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:
        os._exit(0)


def no_new_privs():
    """``prctl(PR_SET_NO_NEW_PRIVS, 1)``: no exec can ever grant privileges again;
    and ``PR_SET_DUMPABLE`` 0: no process without ``CAP_SYS_PTRACE`` may trace
    this one or open its memory (the case processes share its uid)."""
    for option, what in ((PR_SET_NO_NEW_PRIVS, 'no_new_privs'), (PR_SET_DUMPABLE, 'not dumpable')):
        try:
            _prctl(option, 1 if option == PR_SET_NO_NEW_PRIVS else 0)
        except OSError as exc:
            raise LayerFailed(f'{what}: {exc.strerror or exc}') from None


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
    """``ctypes.util.find_library`` for pyseccomp's libraries, without running programs."""
    if name in _LIBRARIES:
        return _LIBRARIES[name]
    return importlib.import_module('ctypes.util').find_library(name)


def _load_pyseccomp():
    """Import pyseccomp with a stand-in ``ctypes.util`` that knows its two libraries.

    The real module runs programs to find libraries, and importing it costs
    more than the rest of the child's start (about 11 ms); the stand-in is
    removed again once pyseccomp has loaded.
    """
    import ctypes  # ctypes is slow to import: only where a layer needs it
    stand_in = types.ModuleType('ctypes.util')
    stand_in.find_library = _find_library
    saved = sys.modules.get('ctypes.util'), getattr(ctypes, 'util', None)
    sys.modules['ctypes.util'] = ctypes.util = stand_in
    try:
        import pyseccomp  # optional dependency, loaded only for the seccomp layer
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


def seccomp_rules(seccomp):
    """The runner's filter: allow by default, deny :data:`DENIED`.

    ``clone3``, whose flags a filter cannot read, answers ``ENOSYS`` so the
    C library falls back to ``clone``, which the case filter can read.
    System calls of other architectures (x32, i386) kill the process, which
    is libseccomp's default for a foreign architecture.
    """
    deny = seccomp.ERRNO(errno.EPERM)
    rules = seccomp.SyscallFilter(seccomp.ALLOW)
    for name in DENIED:
        try:
            rules.add_rule(deny, name)
        except (OSError, ValueError, RuntimeError):
            pass  # not a system call on this architecture or kernel
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), 'clone3')
    return rules


def case_rules(seccomp, pid):
    """The case filter, stacked on the runner's: no new process, signals only to itself.

    ``clone`` is allowed only with ``CLONE_THREAD`` (a thread, not a
    process); ``kill``, ``tgkill`` and ``rt_sigqueueinfo`` with another
    pid, a group or -1 are denied.
    """
    deny = seccomp.ERRNO(errno.EPERM)
    rules = seccomp.SyscallFilter(seccomp.ALLOW)
    for name in PROCESSES:
        try:
            rules.add_rule(deny, name)
        except (OSError, ValueError, RuntimeError):
            pass
    rules.add_rule(deny, 'clone', seccomp.Arg(0, seccomp.MASKED_EQ, CLONE_THREAD, 0))
    for name in ('kill', 'tgkill', 'rt_sigqueueinfo', 'rt_tgsigqueueinfo', 'tkill'):
        try:
            rules.add_rule(deny, name, seccomp.Arg(0, seccomp.NE, pid))
        except (OSError, ValueError, RuntimeError):
            pass
    return rules


class CaseFilter:
    """The case filter (:func:`case_rules`), compiled once in the runner and loaded by
    each case process with its own pid.

    libseccomp takes about 0.7 ms (150 copied pages) to build a filter; the
    program differs from one pid to another only in the constant the signal
    calls compare their target with.  So the runner compiles it twice, with
    two pids no process can have (:data:`SENTINELS`, above the kernel's
    highest pid), and keeps the program when the two differ in exactly those
    constants: a case writes its pid there and loads the program with
    ``prctl(PR_SET_SECCOMP)``, as libseccomp's own ``seccomp_load`` would
    (no-new-privileges is already set, by the runner).  When the programs
    differ in any other way, or cannot be exported, every case builds the
    filter itself, as before.
    """

    SENTINELS = (0x3FFFFFF1, 0x3FFFFFF2)

    @classmethod
    def compiled(cls, program, slots):
        """The filter from a program compiled elsewhere (:func:`compile_programs`, in the
        grader's process) and its pid slots: loaded through the counter's extension, with
        neither libseccomp nor ctypes in this process."""
        found = cls.__new__(cls)
        found.seccomp, found.program, found.slots = None, program, tuple(slots)
        return found

    def __init__(self, seccomp):
        self.seccomp = seccomp
        self.program, self.slots = None, ()
        try:
            first, self.slots = case_template(seccomp)
        except (OSError, ValueError, RuntimeError):
            self.slots = ()
        if self.slots:
            import ctypes  # loaded by the runner already (no_new_privs)

            class SockFprog(ctypes.Structure):
                _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.c_void_p)]
            self.program, self.libc, self.fprog = first, _libc(), SockFprog

    def program_for(self, pid):
        """The compiled program with ``pid`` written in (what libseccomp builds for it)."""
        program = bytearray(self.program)
        for offset in self.slots:
            program[offset:offset + 4] = pid.to_bytes(4, sys.byteorder)
        return bytes(program)

    def load(self, pid):
        """Load the filter for the case process ``pid`` (this process)."""
        if self.program is None:
            case_rules(self.seccomp, pid).load()
            return
        if self.seccomp is None:        # compiled elsewhere: no ctypes here
            tally.filter(self.program_for(pid))
            return
        import ctypes  # loaded by the runner already (no_new_privs)
        program = self.program_for(pid)
        code = ctypes.create_string_buffer(program, len(program))
        fprog = self.fprog(len(program) // 8, ctypes.addressof(code))
        if self.libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0):
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


def case_template(seccomp):
    """``(program, slots)``: the case filter compiled for the first of
    :data:`CaseFilter.SENTINELS`, and the offsets where a case writes its pid (``()`` when
    two sentinels' programs differ elsewhere than there)."""
    first, second = (_bpf(case_rules(seccomp, pid)) for pid in CaseFilter.SENTINELS)
    return first, _slots(first, second, CaseFilter.SENTINELS)


def compile_programs():
    """The seccomp programs of a sandbox, compiled where ctypes and libseccomp may be loaded
    (the grader's own process): ``{'runner': bytes, 'case': bytes, 'slots': offsets}``, the
    case program with the first of :data:`CaseFilter.SENTINELS` where each case writes its
    pid; None when they cannot be compiled so (the runner then compiles them itself)."""
    try:
        seccomp = _load_pyseccomp()
        first, slots = case_template(seccomp)
        runner = _bpf(seccomp_rules(seccomp))
    except (ImportError, OSError, ValueError, RuntimeError):
        return None
    return {'runner': runner, 'case': first, 'slots': list(slots)} if slots and runner else None


def _bpf(rules):
    """The BPF program of libseccomp ``rules``, as bytes (8 per instruction)."""
    read_end, write_end = os.pipe()
    try:
        with os.fdopen(write_end, 'wb', closefd=True) as sink:
            rules.export_bpf(sink)
        chunks = []
        while True:
            chunk = os.read(read_end, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
        return b''.join(chunks)
    finally:
        os.close(read_end)


def _slots(first, second, sentinels):
    """Offsets of the 32-bit constants where two programs differ, when they differ only in
    constants equal to ``sentinels`` (first, second); else ``()``."""
    if not first or len(first) != len(second) or len(first) % 8:
        return ()
    slots = []
    expected = tuple(value.to_bytes(4, sys.byteorder) for value in sentinels)
    for offset in range(0, len(first), 8):
        one, two = first[offset:offset + 8], second[offset:offset + 8]
        if one == two:
            continue
        if one[:4] != two[:4] or (one[4:], two[4:]) != expected:
            return ()
        slots.append(offset + 4)
    return tuple(slots)


REFUSED = {
    'os.system': 'running programs', 'os.exec': 'running programs',
    'os.posix_spawn': 'running programs', 'os.spawn': 'running programs',
    'subprocess.Popen': 'running programs', 'os.fork': 'starting processes',
    'os.forkpty': 'starting processes', 'pty.spawn': 'running programs',
    'socket.__new__': 'network access', 'socket.connect': 'network access',
    'socket.bind': 'network access', 'socket.getaddrinfo': 'network access',
    'ctypes.dlopen': 'ctypes', 'ctypes.dlsym': 'ctypes', 'ctypes.cdata': 'ctypes',
    'ctypes.call_function': 'ctypes', 'ctypes.addressof': 'ctypes',
    'os.killpg': 'signalling other processes', 'sys.addaudithook': 'audit hooks',
    'os.setuid': 'changing user',
}
"""Audit events the guard refuses, with the reason it gives."""

FRESH_IMPORTS = frozenset({'posix', 'nt', '_posixsubprocess', '_winapi', '_ctypes'})
"""Modules that may not be loaded again: a fresh copy would not carry the stand-ins."""

STAND_INS = {
    'os': ('fork', 'forkpty', 'system', 'posix_spawn', 'posix_spawnp', 'execv', 'execve',
           'spawnv', 'spawnve', 'spawnvp', 'spawnvpe', 'popen'),
    'posix': ('fork', 'forkpty', 'system', 'posix_spawn', 'posix_spawnp', 'execv', 'execve'),
    '_posixsubprocess': ('fork_exec',),
}
"""Functions that start processes or programs, replaced by refusing stand-ins.

The others also raise an audit event of their own, which the hook refuses
whichever copy of the module they come from (a module made afresh from its
spec, say); ``_posixsubprocess.fork_exec`` (behind ``subprocess`` and
``multiprocessing``'s spawn and forkserver) raises none, so its stand-in is
what refuses it when the kernel filter is off: a fresh copy of its module
cannot be imported (:data:`FRESH_IMPORTS`), and a copy bound earlier is
replaced too (:func:`_rebind`)."""


def _audit(event, args, _refused=tuple(sorted(REFUSED.items())), _fresh=FRESH_IMPORTS,
           _getpid=os.getpid):
    """The guard's audit hook: refuses :data:`REFUSED` and fresh imports of process modules.

    Everything it reads is an immutable default argument (the submission
    cannot change the tables), and changing the hook itself is refused.
    """
    for refused, reason in _refused:
        if event == refused:
            raise PermissionError(f'{reason} is not allowed while grading ({event})')
    if event == 'os.kill' and args and args[0] != _getpid():
        raise PermissionError(f'signalling other processes is not allowed while grading ({event})')
    if event == 'import' and args and args[0] in _fresh:
        raise PermissionError(f'starting processes is not allowed while grading ({event})')
    if event == 'object.__setattr__' and args and args[0] is _audit:
        raise PermissionError(f'changing the guard is not allowed while grading ({event})')


def _stand_in(name, reason=None):
    reason = reason or ('starting processes' if 'fork' in name else 'running programs')

    def refused(*args, **kwargs):
        raise PermissionError(f'{reason} is not allowed while grading ({name})')
    refused.__name__ = name.rpartition('.')[2]
    return refused


def install_stand_ins():
    """Put the refusing stand-ins of :data:`STAND_INS` in place, once per process.

    The runner does it before its first fork (it keeps its own ``fork``), so
    every case process starts with them in place and writes none of these
    module dictionaries: each page it writes is a copy the kernel makes
    (about 130 per case, 0.8 ms).  A module loaded before this may hold its
    own copy of ``fork_exec``, bound by name (``subprocess._fork_exec`` on
    Python 3.11 and later): such copies get the stand-in too
    (:func:`_rebind`).
    """
    if _STANDING:
        return
    replaced = {}
    for module_name, names in STAND_INS.items():
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        for name in names:
            original = getattr(module, name, None)
            if original is None:
                continue
            if id(original) not in replaced:
                replaced[id(original)] = original, _stand_in(f'{module_name}.{name}')
            setattr(module, name, replaced[id(original)][1])
    _rebind(replaced)
    _refuse_fresh_builtins()
    _STANDING.append(True)


NOT_MADE = ('_test', '_xx', '_interp', '_ctypes', 'ctypes')
"""Prefixes of built-in modules :func:`_refuse_fresh_builtins` does not make beforehand (C
test hooks, other interpreters, raw memory): none of them can be made afterwards."""


def _refuse_fresh_builtins():
    """Every module compiled into the interpreter made now, and ``_imp.create_builtin``,
    which makes one afresh, replaced by a refusing stand-in.

    A fresh copy of a built-in module raises no audit event (a module of its own file
    raises ``import``, which the hook refuses for :data:`FRESH_IMPORTS`), and where
    ``_posixsubprocess`` is compiled in, as in many distributions' Pythons, a fresh copy
    has a ``fork_exec`` without the stand-in.  Once every built-in module exists, nothing
    a submission does needs one made again; the original function is dropped here, so no
    Python code can find it.
    """
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for name in sys.builtin_module_names:
            if name not in sys.modules and not name.startswith(NOT_MADE):
                try:
                    importlib.import_module(name)
                except Exception:   # noqa: BLE001 - a module that cannot be made is not made
                    pass
    imp = sys.modules.get('_imp')
    if imp is not None and hasattr(imp, 'create_builtin'):
        imp.create_builtin = _stand_in('_imp.create_builtin',
                                       'making a fresh copy of a built-in module')


_STANDING = []
"""Not empty once :func:`install_stand_ins` ran in this process (or the one it was
forked from)."""


def install_guards():
    """The in-process guards of a case process: the stand-ins (unless the runner put
    them in place already) and the audit hook."""
    install_stand_ins()
    sys.addaudithook(_audit)


BOUND_COPIES = (('subprocess', '_fork_exec'),)
"""Where the standard library binds its own copy of an unaudited function by name
(``from _posixsubprocess import fork_exec as _fork_exec``, Python 3.11 and later).
Only standard modules are loaded before the guards; a test checks this list."""


def _rebind(replaced):
    """Put the stand-ins in ``replaced`` (``{id(original): (original, stand-in)}``) in place
    of the copies of the originals at :data:`BOUND_COPIES`.

    Only these places are looked at: reading every value of every loaded
    module would touch (and so copy) much of the memory the case process
    shares with the runner, about 0.4 ms per case; and the functions that
    raise an audit event refuse through the hook, whichever copy is called.
    """
    for module_name, name in BOUND_COPIES:
        namespace = getattr(sys.modules.get(module_name), '__dict__', None)
        if type(namespace) is not dict:
            continue
        value = namespace.get(name)
        found = replaced.get(id(value)) if value is not None else None
        if found is not None and found[0] is value:
            namespace[name] = found[1]


def apply_runner(layers):
    """Apply the runner's layers named in the hello message; the names applied.

    ``layers`` maps a layer to its settings: ``rlimits`` (limits for every
    process of the sandbox), ``uid-drop`` (``uid``, ``gid``), ``seccomp``.
    """
    applied = []
    parent = os.getppid()
    uid = layers.get('uid-drop')
    if 'rlimits' in layers:
        apply_rlimits(layers['rlimits'], unprivileged=bool(uid) or os.geteuid() != 0)
        applied.append('rlimits')
    programs = _programs(layers.get('seccomp'))
    seccomp = _load_pyseccomp() if 'seccomp' in layers and programs is None else None
    if not tally.loaded() and sys.platform.startswith('linux'):
        _libc()         # loaded before the uid drop
    if uid:
        drop_uid(uid['uid'], uid['gid'])
        die_with_parent(parent)
        if 'rlimits' in layers:
            apply_rlimits({'processes': layers['rlimits'].get('processes')}, True)
        applied.append('uid-drop')
    if sys.platform.startswith('linux'):
        no_new_privs()
    case_filter = None
    try:
        if programs is not None:
            tally.filter(programs['runner'])
            case_filter = CaseFilter.compiled(programs['case'], programs['slots'])
        elif seccomp:
            seccomp_rules(seccomp).load()
            case_filter = CaseFilter(seccomp)
    except OSError as exc:
        raise LayerFailed(f'seccomp: {exc.strerror or exc}') from None
    if case_filter is not None:
        applied.append('seccomp')
    return applied, case_filter


def _programs(setting):
    """The programs the grader compiled (``compile_programs``, sent base64 in the hello), when
    they can be loaded without ctypes (the counter's extension is loaded); else None."""
    if not isinstance(setting, dict) or not tally.loaded():
        return None
    try:
        return {'runner': base64.b64decode(setting['runner']),
                'case': base64.b64decode(setting['case']),
                'slots': [int(offset) for offset in setting['slots']]}
    except (KeyError, TypeError, ValueError):
        return None


def apply_case(case_filter, cpu_seconds, guards):
    """Apply a case process's own layers (before any student code runs in it).

    ``case_filter`` is the runner's :class:`CaseFilter` (None when the seccomp
    layer is off); ``cpu_seconds`` the kernel's CPU limit for this process.
    """
    if cpu_seconds:
        _, hard = resource.getrlimit(resource.RLIMIT_CPU)
        soft = int(cpu_seconds) + 1
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard - 1)
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 1))
    if case_filter is not None:
        try:
            case_filter.load(os.getpid())
        except OSError as exc:
            raise LayerFailed(f'seccomp: {exc.strerror or exc}') from None
    if guards:
        install_guards()
