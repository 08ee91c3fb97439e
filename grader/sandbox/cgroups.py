"""Control groups for guaranteed teardown (parent side, Linux).

Every sandboxed child runs in a fresh cgroup nested under the grader's own:

- in the cgroup v2 hierarchy when it offers ``cgroup.kill``: one write kills
  every process in the group, including ones that called ``setsid()`` or
  double-forked;
- in the v1 ``pids`` and ``memory`` hierarchies when they are writable:
  ``pids.max`` bounds fork floods and ``memory.limit_in_bytes`` the memory
  of the whole group; teardown then kills what ``cgroup.procs`` lists until
  it is empty.

The child joins its groups itself before ``exec``: the parent passes the
``cgroup.procs`` files to a one-line shell prologue (see
:func:`join_prologue`), so no process of the child ever runs outside them.
"""
import os
import signal
import time
from dataclasses import dataclass, field

V2_NEEDS = 'cgroup.kill'


def mounts():
    """{'cgroup2': mount point, '<controller>': mount point} from mountinfo."""
    found = {}
    try:
        with open('/proc/self/mountinfo') as f:
            for line in f:
                left, _, right = line.partition(' - ')
                fstype, _, options = (right.split() + ['', '', ''])[:3]
                point = left.split()[4]
                if fstype == 'cgroup2':
                    found.setdefault('cgroup2', point)
                elif fstype == 'cgroup':
                    for option in options.split(','):
                        if option in ('pids', 'memory'):
                            found.setdefault(option, point)
    except OSError:
        pass
    return found


def _own_paths():
    """{'cgroup2': path, 'pids': path, 'memory': path} of this process."""
    paths = {}
    try:
        with open('/proc/self/cgroup') as f:
            for line in f:
                number, controllers, path = line.rstrip('\n').split(':', 2)
                if number == '0' and controllers == '':
                    paths['cgroup2'] = path
                for name in controllers.split(','):
                    if name in ('pids', 'memory'):
                        paths[name] = path
    except (OSError, ValueError):
        pass
    return paths


def _probe(base, needs=('cgroup.procs',)):
    """Which of the files ``needs`` a new child group under ``base`` holds.

    One group is made and removed whatever ``needs`` asks about; the answer
    is the set of those present, or None when no group could be made.
    """
    probe = os.path.join(base, f'grader-probe-{os.getpid()}')
    try:
        os.mkdir(probe)
    except OSError:
        return None
    try:
        return {name for name in needs if os.path.exists(os.path.join(probe, name))}
    finally:
        try:
            os.rmdir(probe)
        except OSError:
            pass


@dataclass
class Support:
    """Where sandbox groups can be created on this machine."""

    v2: str = ''                                  # parent folder with cgroup.kill
    v1: dict = field(default_factory=dict)         # controller -> parent folder
    problems: list = field(default_factory=list)

    @property
    def usable(self):
        return bool(self.v2 or 'pids' in self.v1)


def detect():
    """Which cgroup hierarchies this process may use; never raises."""
    support = Support()
    if not os.path.isdir('/sys/fs/cgroup'):
        support.problems.append('no /sys/fs/cgroup')
        return support
    mounts_, own = mounts(), _own_paths()
    if 'cgroup2' in mounts_ and 'cgroup2' in own:
        base = os.path.join(mounts_['cgroup2'], own['cgroup2'].lstrip('/'))
        found = _probe(base, ('cgroup.procs', V2_NEEDS))
        if not found or 'cgroup.procs' not in found:
            support.problems.append(f'cgroup v2 at {base} is not writable')
        elif V2_NEEDS not in found:
            support.problems.append('cgroup v2 has no cgroup.kill (kernel older than 5.14)')
        else:
            support.v2 = base
    else:
        support.problems.append('no cgroup v2 hierarchy')
    for controller in ('pids', 'memory'):
        if controller in mounts_ and controller in own:
            base = os.path.join(mounts_[controller], own[controller].lstrip('/'))
            if 'cgroup.procs' in (_probe(base) or ()):
                support.v1[controller] = base
    return support


class Group:
    """One child's groups: created empty, joined by the child, killed, removed."""

    _serial = 0

    def __init__(self, support, marked_name, pids_max=None, memory_bytes=None):
        """``marked_name`` starts with the owner's mark (:func:`grader.sandbox.leftovers.prefix`):
        a run killed before removing its groups has them removed by the next."""
        Group._serial += 1
        name = f'{marked_name}-{Group._serial}'
        self.folders = []
        self.v2 = ''
        if support.v2:
            self.v2 = os.path.join(support.v2, name)
            os.mkdir(self.v2)
            self.folders.append(self.v2)
        for controller, base in support.v1.items():
            folder = os.path.join(base, name)
            try:
                os.mkdir(folder)
            except OSError:
                continue
            self.folders.append(folder)
            try:
                if controller == 'pids' and pids_max:
                    _write(os.path.join(folder, 'pids.max'), str(int(pids_max)))
                if controller == 'memory' and memory_bytes:
                    _write(os.path.join(folder, 'memory.limit_in_bytes'), str(int(memory_bytes)))
                    try:
                        _write(os.path.join(folder, 'memory.swappiness'), '0')
                    except OSError:
                        pass
            except OSError:
                pass

    @property
    def procs_files(self):
        return [os.path.join(folder, 'cgroup.procs') for folder in self.folders]

    def pids(self):
        return _pids(self.folders)

    def kill(self, wait=2.0):
        """Kill every process in the groups; True when they are empty."""
        return _kill(self.folders, wait)[1]

    def signal_now(self):
        """SIGKILL to every process in the groups without waiting (safe in a signal handler)."""
        if self.v2:
            try:
                _write(os.path.join(self.v2, 'cgroup.kill'), '1')
            except OSError:
                pass
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass

    def remove(self):
        """Kill what is left and remove the groups (best effort)."""
        self.kill()
        for folder in reversed(self.folders):
            _rmdir(folder)
        self.folders = []


def _pids(folders):
    found = set()
    for folder in folders:
        try:
            with open(os.path.join(folder, 'cgroup.procs')) as f:
                found.update(int(line) for line in f if line.strip())
        except (OSError, ValueError):
            pass
    return found


def _kill(folders, wait):
    """Kill every process in the groups ``folders``: ``(how many were seen, all gone)``."""
    seen = _pids(folders)
    for folder in folders:
        if os.path.exists(os.path.join(folder, V2_NEEDS)):
            try:
                _write(os.path.join(folder, V2_NEEDS), '1')
            except OSError:
                pass
    deadline = time.monotonic() + wait
    while True:
        left = _pids(folders)
        seen |= left
        if not left:
            return len(seen), True
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if time.monotonic() > deadline:
            return len(seen), False
        time.sleep(0.005)


def _rmdir(folder, tries=50):
    """Remove one (emptied) group folder; the reason when it could not be done, else ''."""
    for attempt in range(tries):
        try:
            os.rmdir(folder)
            return ''
        except FileNotFoundError:
            return ''
        except OSError as error:
            if attempt == tries - 1:
                return f'{folder}: {error.strerror}'
            time.sleep(0.01)
    return ''


def kill_folder(folder, wait=1.0):
    """Kill every process in the group ``folder`` (of a run that is gone); how many there were."""
    return _kill([folder], wait)[0]


def remove_folder(folder):
    """Remove the emptied group ``folder``: '' when done, else what stopped it."""
    return _rmdir(folder, tries=20)


def _write(path, text):
    with open(path, 'w') as f:
        f.write(text)


def join_prologue(procs_files):
    """argv prefix that puts the new process into ``procs_files``, then execs the rest.

    A POSIX shell writes its own pid into each file and ``exec``s the
    command that follows ``--``, so the command starts inside the groups.
    """
    script = ('for f do [ "$f" = -- ] && break; echo $$ > "$f" || exit 125; shift; done; '
              'shift; exec "$@"')
    return ['/bin/sh', '-c', script, 'sh', *procs_files, '--']
