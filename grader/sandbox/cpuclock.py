"""The sandbox's CPU time, read from outside it (parent side, Linux).

A :class:`Clock` gives the CPU seconds used so far by every process and
thread of one sandbox, read where the submission cannot reach:

- the sandbox's cgroup v2 ``cpu.stat`` (``usage_usec``: microseconds, every
  task that ever ran in the group, threads and exited processes included);
- else the cgroup v1 ``cpuacct.usage`` of the same group (nanoseconds);
- else ``/proc``: the process tree under the sandbox's first process, each
  process's user and system time plus that of the children it reaped
  (clock ticks, usually 10 ms).

The engine reads it around every call and stops a call that exceeds its
limit; blocking, ignoring or swallowing signals in the submission changes
nothing here.
"""
import os

_TICK = os.sysconf('SC_CLK_TCK') if hasattr(os, 'sysconf') else 100


class Clock:
    """CPU seconds of one sandbox: ``read()``, with its ``source`` and ``resolution``."""

    def __init__(self, group=None, pid=None):
        self.pid = pid
        self.path = None
        if group is not None and getattr(group, 'v2', ''):
            self.path, self.scale, self.source = os.path.join(group.v2, 'cpu.stat'), 1e-6, 'cgroup'
            self.resolution = 1e-6
        elif group is not None and getattr(group, 'cpuacct', ''):
            self.path, self.scale, self.source = (os.path.join(group.cpuacct, 'cpuacct.usage'),
                                                  1e-9, 'cgroup')
            self.resolution = 1e-6
        else:
            self.source, self.resolution = 'proc', 1.0 / _TICK
        self._fd = None
        if self.path is not None and self._cgroup() is None:
            self.path, self.source, self.resolution = None, 'proc', 1.0 / _TICK

    def read(self):
        """CPU seconds so far (monotonic for one sandbox); None when nothing can be read."""
        if self.path is not None:
            return self._cgroup()
        return self._tree()

    def close(self):
        """Let go of the cgroup's file (before the cgroup is removed); reads reopen it."""
        fd, self._fd = self._fd, None
        if fd is not None:
            try:
                os.close(fd)
            except OSError:
                pass

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001,S110 - at the interpreter's exit
            pass

    def _cgroup(self):
        # The file stays open: each read is one pread from its start, which the kernel
        # answers afresh (an open, a read and a close cost a call some 30 us more, and the
        # clock is read three times in the shortest call).
        try:
            if self._fd is None:
                self._fd = os.open(self.path, os.O_RDONLY | getattr(os, 'O_CLOEXEC', 0))
            text = os.pread(self._fd, 4096, 0)
        except OSError:
            self.close()
            return None
        if self.path.endswith('cpu.stat'):
            for line in text.splitlines():
                if line.startswith(b'usage_usec '):
                    return int(line.split()[1]) * self.scale
            return None
        try:
            return int(text.strip()) * self.scale
        except ValueError:
            return None

    def _tree(self):
        if self.pid is None:
            return None
        total, stack, seen = 0, [self.pid], set()
        while stack:
            pid = stack.pop()
            if pid in seen:
                continue
            seen.add(pid)
            ticks = _ticks(pid)
            if ticks is None:
                continue
            total += ticks
            stack.extend(_children(pid))
        return total / _TICK


def _ticks(pid):
    """utime + stime + cutime + cstime of ``pid`` (clock ticks), or None."""
    try:
        with open(f'/proc/{pid}/stat', 'rb') as f:
            data = f.read()
    except OSError:
        return None
    fields = data[data.rfind(b')') + 2:].split()
    try:
        return sum(int(fields[i]) for i in (11, 12, 13, 14))
    except (IndexError, ValueError):
        return None


def _children(pid):
    found = []
    try:
        tasks = os.listdir(f'/proc/{pid}/task')
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f'/proc/{pid}/task/{task}/children', 'rb') as f:
                found.extend(int(p) for p in f.read().split())
        except (OSError, ValueError):
            pass
    return found
