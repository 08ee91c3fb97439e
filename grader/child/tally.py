"""The search counter that the submission cannot reach (runner and case process sides).

The counting itself is C (:file:`_tally.c`): an audit hook installed in the
runner before any student code exists, a frame-evaluation hook (a profile
function where the interpreter's internal headers are missing) set in a case
process when its input is given
(:func:`given`), tallies kept in a C block,
and that block read by the runner from the *stopped* case process
(``/proc/PID/mem``) -- never taken from the case's reply, never passing
through Python code of the case process.  This module only:

- finds the compiled extension (shipped in the child archive as
  :data:`MEMBER`, written out by the runner before the uid drop, into a
  folder the submission cannot write) and loads it (:func:`load`);
- installs it in the runner (:func:`install`), keeps each case's input in C
  (:func:`hold`), seals it in each case process (:func:`seal`) and gives the
  input there once the module has run (:func:`given`);
- holds the *trampoline* (:func:`search`): one run of a search is exactly
  the time a frame of its code object runs; probes call the student's
  entry point through it;
- reads a stopped case process's block (:func:`read`), in the runner.

Without the extension nothing is counted: an official grade refuses to run
(:mod:`grader.instruments`), and a self-check's counted checks say they are
not checked on this machine.
"""
import binascii
import importlib.machinery
import importlib.util
import os
import struct
import sys
from json import dumps as _dumps
from json import loads as _loads

MEMBER = 'grader/child/_tally.so'
"""Where the child archive holds the compiled extension."""
SLOT = struct.Struct('<16Q')
UNITS = 4
"""Functions counted by name (``_tally.c``'s ``UNITS``)."""
RECORDS = struct.Struct('<2Q')
HEADER = struct.Struct('<8Q')
MAGIC = 0x31796c6c61745f

NOT_LOADED = 'the search counter could not be loaded in the sandbox'
"""What the runner answers, before any student code exists, when the extension it was sent
does not load: the grade stops there (:class:`grader.instruments.MissingInstrument`)."""

_ext = []
_layout = []


def search(function, *args):
    """One counted run: call ``function(*args)``.  Its code object is the trampoline the
    C counter watches for: every frame started while this one runs is tallied."""
    return function(*args)


def extension_path():
    """The compiled extension of this install for this Python, or None (not built)."""
    try:
        spec = importlib.util.find_spec('grader.child._tally')
    except (ImportError, ValueError):
        return None
    return spec.origin if spec is not None and spec.origin else None


def unpack(folder):
    """Write the archive's extension into ``folder`` (the runner, before the uid drop);
    its path, or None when the archive holds none."""
    loader = sys.modules[__name__].__loader__
    archive = getattr(loader, 'archive', None)
    try:
        if archive:     # the zip importer reads it: zipfile is not loaded in the runner
            data = loader.get_data(os.path.join(archive, MEMBER))
        else:
            path = extension_path()
            if path is None:
                return None
            with open(path, 'rb') as f:
                data = f.read()
    except (OSError, KeyError):
        return None
    os.makedirs(folder, mode=0o755, exist_ok=True)
    target = os.path.join(folder, '_tally.so')
    with open(target, 'wb') as f:
        f.write(data)
    os.chmod(target, 0o555)
    os.chmod(folder, 0o755)
    return target


def extension(path=None):
    """The extension module at ``path`` (None: :func:`extension_path`'s), loaded; raises
    ImportError (or OSError) where it cannot be."""
    path = path or extension_path()
    if path is None:
        raise ImportError('the search counter is not built')
    loader = importlib.machinery.ExtensionFileLoader('grader.child._tally', path)
    spec = importlib.util.spec_from_file_location('grader.child._tally', path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def load(path):
    """Load the extension at ``path`` (None: the one of this install); False when it cannot."""
    if _ext:
        return True
    try:
        module = extension(path)
    except (ImportError, OSError):
        return False
    _ext.append(module)
    _layout.extend(module.layout())
    return True


def install(leaf=None, owned=(), sanctioned=(), extra_prefixes=()):
    """Install the counter in the runner: the audit hook (what watches the frames comes
    with :func:`given`, in a case process).
    ``leaf`` is a code object whose frames are counted as leaves; ``owned`` the grader's code
    objects the submission's code may not call but through one of ``sanctioned`` (the
    counted evaluation, say)."""
    if not _ext:
        return False
    prefixes = {os.path.realpath(p) + '/' for p in (sys.base_prefix, sys.base_exec_prefix,
                                                     sys.prefix, sys.exec_prefix)}
    prefixes.update(os.path.realpath(p) + '/' for p in extra_prefixes)
    _ext[0].install(search.__code__, leaf, frozenset(owned), tuple(sorted(prefixes)),
                    library(), grader_codes(), frozenset(sanctioned))
    return True


def codes_of(module):
    """Every code object of ``module``'s functions, with the code defined inside them."""
    found, stack = set(), [value.__code__ for value in vars(module).values()
                           if getattr(value, '__code__', None) is not None]
    while stack:
        code = stack.pop()
        if code not in found:
            found.add(code)
            stack.extend(c for c in code.co_consts if isinstance(c, type(code)))
    return frozenset(found)


def grader_codes():
    """Every code object of the grader's modules loaded now (the runner, before any student
    code exists), with the code defined inside them: the only frames that may lie under a run."""
    found, stack = set(), []
    for name, module in list(sys.modules.items()):
        if name == '__main__' or name.startswith('grader.') or name == 'grader':
            for value in list(vars(module).values()):
                code = getattr(value, '__code__', None)
                if code is not None:
                    stack.append(code)
                for member in (vars(value).values() if isinstance(value, type) else ()):
                    member = getattr(member, '__func__', member)
                    if getattr(member, '__code__', None) is not None:
                        stack.append(member.__code__)
    frame = sys._getframe()
    while frame is not None:    # the runner's own frames, its module-level code included
        stack.append(frame.f_code)
        frame = frame.f_back
    while stack:
        code = stack.pop()
        if code not in found:
            found.add(code)
            stack.extend(c for c in code.co_consts if isinstance(c, type(code)))
    return frozenset(found)


def library():
    """Filename prefixes of the standard library's code: its files, and frozen modules."""
    import sysconfig
    paths = sysconfig.get_paths()
    found = {os.path.realpath(paths[key]) + '/' for key in ('stdlib', 'platstdlib')
             if paths.get(key)}
    return tuple(sorted(found)) + ('<frozen ',)


def hold(payload, units=(), limit=0):
    """The runner, before it forks a case: keep the case's input in C memory only, where the
    submission's code cannot read it before :func:`given` (False without the extension: the
    input then travels in the job).  ``units`` names the functions whose calls the case
    counts one by one (at most :data:`UNITS`; the first one's states are noted too), each
    ``[role:][Owner.]name`` (roles ``listing``, ``transition``, ``made``: the route
    planner's expansions, see ``_tally.c``); past ``limit`` expansions (0: none) a run is
    stopped: :func:`stopped` is raised in the search."""
    if not _ext or payload is None:
        return False
    _ext[0].hold(_dumps(payload, separators=(',', ':')).encode(),
                 tuple(str(name) for name in units)[:UNITS], max(0, int(limit or 0)))
    return True


class _Stopped(BaseException):
    """Stands for the counter's Stopped where the extension is not built (never raised)."""


def stopped():
    """The exception the counter raises in a search past its limit (a BaseException: a
    search's ``except Exception`` does not swallow it)."""
    return _ext[0].Stopped if _ext else _Stopped


def neighbours(mapping, code):
    """A copy of the dict ``mapping`` whose listings (iteration, keys, items, values) inside
    a run are listings of the stop ``code``'s neighbours, noted by the counter; ``mapping``
    itself without the extension."""
    return _ext[0].neighbours(mapping, code) if _ext else mapping


def given(job_payload, watch=True):
    """The case process, once its module has run: the input the runner held (or
    ``job_payload`` when it held none).  With ``watch`` (a probe that counts through
    :func:`search`) the submission's code may from here on run only inside a run, and
    threads already running are noted; without, nothing is watched (and nothing costs)."""
    if not _ext or job_payload is not HELD:
        return job_payload
    return _loads(_ext[0].given(watch))


HELD = '<held by the counter>'
"""What a job carries instead of an input held in C (:func:`hold`)."""


def watch():
    """Outside any case process (benchmarks): this thread's frames watched, as :func:`given`
    has them watched in a case; refused once sealed."""
    if _ext:
        _ext[0].watch()


def loaded():
    """Whether the extension is loaded in this process."""
    return bool(_ext)


def prctl(option, value):
    """``prctl(option, value, 0, 0, 0)`` in C (until the seal): the sandbox's layers need no
    ctypes in a process that forks case processes.  Raises OSError."""
    _ext[0].prctl(option, value)


def filter(program):  # noqa: A001 - the seccomp word
    """Load the seccomp BPF ``program`` (bytes) in C (until the seal)."""
    _ext[0].filter(program)


def seal():
    """A case process starts: nothing of the counter can be changed from now on, and where
    its tallies lie is no longer said (``layout()`` refuses; this process's copy of it is
    dropped: only the runner reads the block)."""
    if _ext:
        _ext[0].seal()
    _layout.clear()
    sys.modules.pop('grader.child._tally', None)     # (where it was imported by name)


def read(pid):
    """The tally of the stopped case process ``pid``: ``{'runs', 'flags', 'slots', 'others_ns',
    'main_ns'}`` (the CPU of the other threads, and of this one, from the input given to the
    last run's end) where each slot is ``{'nodes', 'calls', 'leaves', 'depth', 'recursive',
    'flags', 'closed', 'units', 'events', 'states', 'listings', 'stopped'}`` (``units``: the
    calls of each function :func:`hold` named, in its order; then the route planner's
    expansion counts, and whether the run was stopped past its limit), with ``order`` (the
    first run's event expansions: their stop codes' hashes, then their clock times, NaN where
    not known), ``made_order`` (the states its States were first made from, in order, the
    same way), ``states`` (the states the first run handed the first of them, each as the
    number its tiles spell, in call order), those three as :func:`_packed` text of the
    block's own arrays (little-endian; :func:`grader.sandbox.protocol.tally_lists` makes
    lists of them), and ``unread`` (its calls whose state could not be read); None when
    nothing can be read."""
    if not _layout:
        return None
    address, size = _layout
    count = _ext[0].SLOTS
    head = HEADER.size + count * SLOT.size + RECORDS.size
    states_at, order_at = head, head + 4 * _ext[0].RECORDED
    try:
        fd = os.open(f'/proc/{pid}/mem', os.O_RDONLY)
        try:
            data = os.pread(fd, head, address)
            recorded, _ = RECORDS.unpack_from(data, head - RECORDS.size) if len(data) == head \
                else (0, 0)
            recorded = min(recorded, _ext[0].RECORDED)
            states = os.pread(fd, 4 * recorded, address + states_at) if recorded else b''
            ordered = struct.unpack('<Q', os.pread(fd, 8, address + order_at))[0]
            ordered = min(ordered, _ext[0].ORDERED)
            codes, times = _pairs(fd, address + order_at, ordered)
            made_at = order_at + 8 + 16 * _ext[0].ORDERED
            made = struct.unpack('<Q', os.pread(fd, 8, address + made_at))[0]
            made = min(made, _ext[0].ORDERED)
            made_codes, made_times = _pairs(fd, address + made_at, made)
        finally:
            os.close(fd)
    except (OSError, struct.error):
        return None
    if len(data) != head or len(states) != 4 * recorded or None in (codes, made_codes):
        return None
    magic, _, runs, flags, sealed, _, others_ns, main_ns = HEADER.unpack_from(data, 0)
    if magic != MAGIC or not sealed:
        return None
    slots = []
    for i in range(min(runs, count)):
        (nodes, calls, leaves, depth, recursive, sflags, closed, _, *rest) = SLOT.unpack_from(
            data, HEADER.size + i * SLOT.size)
        units, (events, made, listings, stopped) = rest[:UNITS], rest[UNITS:]
        slots.append({'nodes': nodes, 'calls': calls, 'leaves': leaves, 'depth': depth,
                      'recursive': recursive, 'flags': sflags, 'closed': bool(closed),
                      'units': units, 'events': events, 'states': made,
                      'listings': listings, 'stopped': bool(stopped)})
    _, unread = RECORDS.unpack_from(data, head - RECORDS.size)
    return {'runs': runs, 'flags': flags, 'slots': slots, 'others_ns': others_ns,
            'main_ns': main_ns, 'states': _packed(states), 'unread': unread,
            'order': _packed(codes + times), 'made_order': _packed(made_codes + made_times)}


def _packed(data):
    """The bytes ``data`` as base64 text: how the arrays of a tally travel to the parent
    (:func:`grader.sandbox.protocol.tally_lists` reads them back).  As JSON numbers, thousands
    of them a reply, they cost the runner's encoder, the parent's decoder and its reply
    check item by item."""
    return binascii.b2a_base64(data, newline=False).decode('ascii')


def _pairs(fd, at, count):
    """The ``count`` codes and times of an order noted in the block at ``at`` (its count
    first, then the codes, then the times, each array :data:`ORDERED` long); ``(None,
    None)`` when the memory could not be read whole."""
    if not count:
        return b'', b''
    codes = os.pread(fd, 8 * count, at + 8)
    times = os.pread(fd, 8 * count, at + 8 + 8 * _ext[0].ORDERED)
    if len(codes) != 8 * count or len(times) != 8 * count:
        return None, None
    return codes, times

