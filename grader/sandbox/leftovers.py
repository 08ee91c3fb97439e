"""What a run owns on the host while it grades, and the sweep of what dead runs left.

A run (one grader process: the command, or a worker of a batch) makes
private folders in the temporary folder and cgroups for its sandboxed
children.  Each of their names starts with the owner's mark, :func:`prefix`,
and every kind the grader makes is one of :data:`KINDS`::

    grader-<pid>-t<start>-...             a session's private copy; a cgroup
    grader-batch-<pid>-t<start>-...       a batch job's unpacked submission
    grader-course-<pid>-t<start>-...      a (Dask) worker's copy of the course
    grader-gradescope-<pid>-t<start>-...  a Gradescope submission, unpacked

and, in the grader's cache folder (:func:`grader.cachefolder.folder`), a cache
entry being written (``grader-<pid>-t<start>-....tmp``, renamed into place
when it is complete).

where ``start`` is the process's start time (clock ticks since boot, from
``/proc/<pid>/stat``), so a pid the system has given to another process no
longer counts as the owner.  A run removes its own when it ends or is
interrupted.  When it is killed (SIGKILL, out of memory, a power cut), the
next run of any kind calls :func:`sweep`, which finds entries whose owner is
gone and removes them: first the processes still in their cgroups or working
in their folders, then the cgroups, then the folders.

It never touches an entry whose owner lives (another user's run, another
checkout's), one whose name carries no mark (a grader older than the mark),
or one that belongs to another user.  Where ``/proc`` is missing (not
Linux), an owner counts as alive while its pid exists.
"""
import os
import re
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field

from grader.sandbox import cgroups, cleanup

KINDS = ('', 'batch', 'course', 'gradescope')
"""The kinds of folder a run makes (see the module's docstring); '' is a session's."""

MARK = re.compile(r'^grader-(?:(?:batch|course|gradescope)-)?(\d+)-t(\d+)-')
"""An owner's mark at the start of a folder or cgroup name: pid, start time."""

CGROUP_DEPTH = 4
"""How deep below each cgroup hierarchy's root dead runs' groups are looked for
(a run makes its groups below its own, e.g. ``user.slice/user-1000.slice/session-2.scope``)."""

_CGROUP_FOLDERS_SEEN = 2000
"""At most this many cgroup folders are listed per hierarchy (a bound, not a limit met)."""

_own = {}


def _process_start(pid):
    """``pid``'s start time in clock ticks since boot; None when it is gone or a zombie.

    0 when it exists but its start cannot be read (no ``/proc``, not readable):
    then only the pid is compared.
    """
    try:
        with open(f'/proc/{pid}/stat', 'rb') as f:
            text = f.read()
    except FileNotFoundError:
        if not os.path.isdir('/proc/self'):
            return 0 if _pid_exists(pid) else None
        return None
    except OSError:         # there, but not ours to read: count it as alive
        return 0
    fields = text[text.rindex(b')') + 2:].split()
    if fields[0] in (b'Z', b'X'):       # ended, not yet reaped by its parent
        return None
    return int(fields[19])


def _pid_exists(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def owner():
    """This process's mark: ``<pid>-t<start>``."""
    pid = os.getpid()
    if pid not in _own:
        _own.clear()        # a forked child is an owner of its own
        _own[pid] = f'{pid}-t{_process_start(pid) or 0}'
    return _own[pid]


def prefix(kind=''):
    """The start of a name this process owns: ``grader-[batch-]<pid>-t<start>-``.

    ``kind`` is one of :data:`KINDS`, the kinds :data:`MARK` knows: '' (a
    session's private folder, a cgroup), ``batch`` (a batch job's unpacked
    submission), ``course`` (a worker's copy of the course) or ``gradescope``
    (a Gradescope submission, unpacked).
    """
    assert kind in KINDS, kind
    return f'grader-{kind + "-" if kind else ""}{owner()}-'


def owner_of(name):
    """``(pid, start)`` of the run that owns ``name``, or None when it carries no mark."""
    found = MARK.match(name)
    return (int(found.group(1)), int(found.group(2))) if found else None


def alive(pid, start):
    """Whether the process that made a mark ``(pid, start)`` still runs."""
    now = _process_start(pid)
    if now is None:
        return False
    return start == 0 or now == 0 or now == start


@dataclass
class Swept:
    """What :func:`sweep` removed, and what it could not."""

    owners: set = field(default_factory=set)
    folders: int = 0
    files: int = 0
    groups: int = 0
    processes: int = 0
    problems: list = field(default_factory=list)

    def __bool__(self):
        return bool(self.folders or self.files or self.groups or self.processes or
                    self.problems)

    def sentence(self):
        """One line for the user, or '' when nothing was found."""
        if not self:
            return ''
        parts = [_count(n, one, many) for n, one, many in (
            (self.folders, 'private folder', 'private folders'),
            (self.files, 'unfinished cache file', 'unfinished cache files'),
            (self.groups, 'cgroup', 'cgroups'), (self.processes, 'process', 'processes')) if n]
        runs = len(self.owners)
        text = (f'removed what {_count(runs, "earlier grader run", "earlier grader runs")} '
                f'left when {"it was" if runs == 1 else "they were"} stopped: '
                f'{", ".join(parts) or "nothing"}')
        if self.problems:
            text += f'; could not remove {self.problems[0]}'
            if len(self.problems) > 1:
                text += f' (and {len(self.problems) - 1} more)'
        return text


def _count(n, one, many):
    return f'{n} {one if n == 1 else many}'


def _mine(stat_result):
    return os.geteuid() == 0 or stat_result.st_uid == os.geteuid()


def _dead_folders(folder):
    """``{path: owner}`` of marked entries in ``folder`` whose owner is gone."""
    found = {}
    try:
        entries = os.scandir(folder)
    except OSError:
        return found
    with entries:
        for entry in entries:
            mark = owner_of(entry.name)
            if mark is None or alive(*mark):
                continue
            try:
                if _mine(entry.stat(follow_symlinks=False)):
                    found[entry.path] = mark
            except OSError:
                pass
    return found


def _hierarchies():
    """Mount points of the cgroup hierarchies the sandbox uses (v2; v1 pids and memory)."""
    return sorted(set(cgroups.mounts().values()))


def _dead_groups(roots):
    """``{path: owner}`` of marked cgroups below ``roots`` whose owner is gone."""
    found = {}
    for root in roots:
        level, seen = [root], 0
        for _ in range(CGROUP_DEPTH):
            below = []
            for folder in level:
                seen += 1
                if seen > _CGROUP_FOLDERS_SEEN:
                    break
                try:
                    entries = os.scandir(folder)
                except OSError:
                    continue
                with entries:
                    for entry in entries:
                        try:
                            if not entry.is_dir(follow_symlinks=False):
                                continue
                        except OSError:
                            continue
                        mark = owner_of(entry.name)
                        if mark is None:
                            below.append(entry.path)
                        elif not alive(*mark):
                            found[entry.path] = mark
            level = below
    return found


def _processes_in(folders):
    """Pids of processes whose working folder or TMPDIR lies in one of ``folders``."""
    inside = tuple(f.rstrip(os.sep) + os.sep for f in folders)
    found = set()
    try:
        pids = [int(name) for name in os.listdir('/proc') if name.isdigit()]
    except OSError:
        return found
    for pid in pids:
        if pid == os.getpid():
            continue
        try:
            cwd = os.readlink(f'/proc/{pid}/cwd') + os.sep
        except OSError:
            cwd = ''
        if cwd.startswith(inside):
            found.add(pid)
            continue
        try:
            with open(f'/proc/{pid}/environ', 'rb') as f:
                environ = f.read().split(b'\0')
        except OSError:
            continue
        for entry in environ:
            if entry.startswith(b'TMPDIR=') and \
                    (entry[7:].decode('utf-8', 'replace') + os.sep).startswith(inside):
                found.add(pid)
                break
    return found


def _kill(pids, wait=1.0):
    """SIGKILL ``pids`` and wait (at most ``wait`` seconds) until they are gone; how many."""
    killed = []
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        except OSError:
            pass
    deadline = time.monotonic() + wait
    while killed and time.monotonic() < deadline:
        if all(_process_start(pid) is None for pid in killed):
            break
        time.sleep(0.005)
    return len(killed)


def sweep(folder=None, cgroups=True, cache=None):
    """Remove what dead runs left in ``folder`` (default: the temporary folder), in the
    ``cache`` folder (default: the grader's cache folder, when ``folder`` is the default
    too) and in the cgroup hierarchies; a :class:`Swept`.  Never raises."""
    swept = Swept()
    try:
        if cache is None and folder is None:
            from grader import cachefolder  # the cache folder's name only
            cache = cachefolder.folder()
        _sweep(swept, [folder or tempfile.gettempdir(), *([cache] if cache else [])],
               cgroups)
    except Exception as error:  # noqa: BLE001 - a sweep must never stop a run
        swept.problems.append(f'the sweep stopped: {type(error).__name__}: {error}')
    return swept


def _sweep(swept, places, with_cgroups):
    folders = {}
    for place in places:
        folders.update(_dead_folders(place))
    groups = _dead_groups(_hierarchies()) if with_cgroups and sys.platform.startswith('linux') \
        else {}
    if not folders and not groups:
        return
    swept.owners = {mark for mark in list(folders.values()) + list(groups.values())}
    for path in groups:
        swept.processes += cgroups.kill_folder(path)
    if folders:
        swept.processes += _kill(_processes_in(folders))
    for path in groups:
        problem = cgroups.remove_folder(path)
        if problem:
            swept.problems.append(problem)
        else:
            swept.groups += 1
    for path in folders:
        is_folder = os.path.isdir(path) and not os.path.islink(path)
        problems = cleanup.remove(path)
        if problems:
            swept.problems.append(str(problems[0]))
        elif is_folder:
            swept.folders += 1
        else:
            swept.files += 1


def sweep_and_say(quiet=False):
    """:func:`sweep`, then (unless ``quiet``) one line on standard error saying what was
    removed, if anything."""
    swept = sweep()
    if swept and not quiet:
        print(f'grader: note: {swept.sentence()}', file=sys.stderr)
    return swept
