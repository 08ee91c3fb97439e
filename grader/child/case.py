"""One case process: forked by the runner, executes the student module, calls the probe once.

Everything here runs in the process that student code will share, so it
trusts nothing after :func:`run` has executed the module: it only reports
observations, and the parent decides.  In order:

1. ask for SIGKILL when the runner ends (unless the runner is its PID
   namespace's init), and close every descriptor but the standard streams
   and this case's reply pipe (the parent's channel stays with the runner);
2. apply the case's layers (:func:`grader.child.layers.apply_case`): a CPU
   rlimit, the no-new-process seccomp filter, the in-process guards; and
   seal the C search counter (:func:`grader.child.tally.seal`: installed by
   the runner before its first fork, nothing of it can change from then on);
3. redirect ``print`` to a capped buffer, refuse ``input()``, seed
   ``random`` with 0, put stand-ins for modules the sandbox lacks;
4. execute the student module (with the import guards on a load: a CPU and
   a wall-clock alarm, ``input()``, ``sys.exit()``), then call the probe;
5. write one reply line and leave with ``os._exit`` (nothing the
   submission registered runs after grading).
"""
import builtins
import importlib
import importlib.util
import io
import os
import random
import resource
import signal
import sys
import time

from grader.child import channel, layers, tally

_exit = os._exit
_kill, _getpid = os.kill, os.getpid
_setitimer = signal.setitimer
# ``signal.signal`` wraps this in enum conversions, whose code and objects a case process
# would touch, and so copy from the runner, page by page (about 40 pages a case).
_set_handler = getattr(signal, '_signal', signal).signal
_perf = time.perf_counter


class CallTimeout(BaseException):
    """Raised inside the case process when its import runs past the import limit."""


class Capture(io.TextIOBase):
    """A ``sys.stdout`` replacement that keeps the first ``cap`` characters."""

    def __init__(self, cap):
        super().__init__()
        self.cap = cap
        self.parts, self.kept, self.total = [], 0, 0

    def writable(self):
        return True

    def write(self, text):
        if type(text) is not str:
            raise TypeError('write() argument must be str')
        self.total += len(text)
        room = self.cap - self.kept
        if room > 0:
            piece = text[:room]
            self.parts.append(piece)
            self.kept += len(piece)
        return len(text)

    def text(self):
        return ''.join(self.parts)

    def flush(self):
        pass


class Context:
    """What a probe may use besides the student module."""

    def __init__(self, capture, student_files, namespaces, options):
        self.capture = capture
        self.student_files = student_files
        self.namespaces = namespaces
        self.options = options
        self.perf_counter = _perf

    def output(self):
        """What the submission printed so far (capped)."""
        return self.capture.text()


def _alarm(signum, frame):
    """The import's CPU or wall-clock limit: stop it once.  Both timers are disarmed first,
    and a second signal already on its way (on a loaded machine the wall-clock limit can
    fall just after the CPU one) is ignored: it would stop the process while it reports the
    first, not the import."""
    if _ALARMED:
        return
    _ALARMED.append(signum)
    _setitimer(signal.ITIMER_PROF, 0)
    _setitimer(signal.ITIMER_REAL, 0)
    raise CallTimeout('cpu' if signum == signal.SIGPROF else 'wall')


_ALARMED = []
"""The signal that stopped the import, once it did."""


def _refuse_input(prompt=''):
    raise channel.InputRefused('input() is not available while grading')


def _close_descriptors(keep):
    """Close every descriptor above 2 but ``keep``.

    On Python 3.10 and later ``os.closerange`` is one ``close_range`` call per
    gap (up to the process's descriptor limit, at most :data:`MAX_FD`); before
    that, the open ones are listed first.
    """
    if sys.version_info < (3, 10):
        try:
            fds = [int(name) for name in os.listdir('/proc/self/fd')]
        except OSError:
            fds = range(3, 256)
        for fd in fds:
            if fd > 2 and fd not in keep:
                try:
                    os.close(fd)
                except OSError:
                    pass
        return
    try:
        last = min(resource.getrlimit(resource.RLIMIT_NOFILE)[0], MAX_FD)
    except (OSError, ValueError):
        last = MAX_FD
    if last < 0:
        last = MAX_FD
    low = 3
    for fd in sorted(keep):
        if fd >= low:
            os.closerange(low, fd)
            low = fd + 1
    os.closerange(low, max(low, last))


MAX_FD = 1 << 16
"""Descriptors at or above this are not looked for (the sandbox allows 64 open files)."""


def execute(job, capture, guarded):
    """Execute the student module: ``(module, warnings, cut_line, error, before)``, where
    ``before`` is how many modules were loaded when it started (see :func:`_student_modules`).

    With ``guarded`` (the load) the import runs under the import limits and
    every way it can stop early is a warning naming the module-level line:
    the cases then run the module without that statement.
    """
    path = job['module_path']
    name = os.path.splitext(os.path.basename(path))[0]
    module = job.get('module')      # made by the runner, never run there (see empty_module)
    if module is None:
        module = empty_module(path)
    sys.modules[name] = module
    before = len(sys.modules)
    warnings, cut, error = [], None, None
    if guarded:
        _ALARMED.clear()
        _setitimer(signal.ITIMER_PROF, job['limit'])
        _setitimer(signal.ITIMER_REAL, job['wall'])
    try:
        exec(job['code'], module.__dict__)  # noqa: S102 - the student module, in its sandbox
    except CallTimeout as exc:
        cut = channel.module_frame_line(exc, path)
        kind = 'CPU' if exc.args and exc.args[0] == 'cpu' else 'wall-clock'
        at = f' (line {cut})' if cut else ''
        warnings.append(f'your module was still running after {job["limit"]:g} s of {kind} time '
                        f'when it was imported{at} (an endless loop or a game at module level?): '
                        "put it under `if __name__ == '__main__':`; graded what it had defined "
                        'before that')
        if cut is None:
            error = 'the import could not be stopped at a line of the module'
    except BaseException as exc:  # noqa: B036 - every failure becomes a warning
        cut = channel.module_frame_line(exc, path)
        at = f' (line {cut})' if cut else ''
        if isinstance(exc, channel.InputRefused):
            warnings.append(f'your module calls input() when it is imported{at}: is main() '
                            "called at module level? Put it under `if __name__ == '__main__':`. "
                            'Graded what it had defined before that.')
        elif isinstance(exc, SystemExit):
            warnings.append(f'your module stops with sys.exit(), exit() or quit() when it is '
                            f"imported{at}: put that under `if __name__ == '__main__':`. "
                            'Graded what it had defined before that.')
        else:
            _, text = channel.describe(exc, {path})
            warnings.append(f'your module {text} when it is imported{at}: graded what it had '
                            'defined before that.')
        if not guarded:
            error = 'the module did not run as it did when it was loaded'
    finally:
        if guarded:
            _setitimer(signal.ITIMER_PROF, 0)
            _setitimer(signal.ITIMER_REAL, 0)
    return module, warnings, cut, error, before


def empty_module(path):
    """The module object of the student file at ``path``, not yet executed.

    The runner makes it once, before its first fork: each case process runs
    the module in its own copy of it, without going through the import
    machinery again (whose code it would touch, and so copy, page by page).
    """
    name = os.path.splitext(os.path.basename(path))[0]
    return importlib.util.module_from_spec(importlib.util.spec_from_file_location(name, path))


def _student_modules(root, module, name, before):
    """The submission's modules: ``module`` (registered as ``name``) and every loaded
    module whose file is under ``root``.

    ``before`` is how many modules were loaded once ``module`` was registered,
    before it ran: the runner loaded no module of the submission, so when
    ``module`` is still there and no module came in since, it is the only one
    (looking at every loaded module touches, and so copies, much of the memory
    the case process shares with the runner: about 0.2 ms).  A module that
    swapped another out of ``sys.modules`` to keep the number escapes only the
    counting, and a search that is not counted earns nothing by it.
    """
    if len(sys.modules) == before and sys.modules.get(name) is module:
        return [module]
    found = {module}
    for mod in list(sys.modules.values()):
        file = getattr(mod, '__file__', None)
        if isinstance(file, str) and file.startswith(root) and isinstance(mod, type(sys)):
            found.add(mod)
    return list(found)


MARK = b'mark '
"""How the case process's first line starts: the CPU time it used before any student code."""


def mark():
    """The line that tells the runner this process's CPU seconds so far.

    Written before the module runs, so no student code can have changed it;
    the runner takes it off the process's CPU time at its end (the fork and
    the layers are the sandbox's cost, not the call's).  The thread's clock
    is the process's here (a forked process has one thread until the module
    starts another), and unlike the process's it is exact while a CPU limit
    is armed (the kernel then updates the process clock only at its ticks).
    """
    return MARK + repr(time.clock_gettime(time.CLOCK_THREAD_CPUTIME_ID)).encode() + b'\n'


def run(job, reply_fd, case_filter, probe):
    """The case process's whole life; never returns."""
    reply = {'id': job['id']}
    try:
        if job['runner'] != 1:
            # (The runner of its own PID namespace is its init: when it ends, the
            # kernel ends every process in it, this one included.)
            layers.die_with_parent(job['runner'])
        _close_descriptors({reply_fd})
        os.chdir(job['project'])
        layers.apply_case(case_filter, job.get('cpu_rlimit'), job.get('guards', True))
        tally.seal()
        capture = Capture(job['output_chars'])
        sys.stdout = sys.stderr = capture
        builtins.input = _refuse_input
        random.seed(0)
        for name, module in job['stand_ins'].items():
            sys.modules[name] = module
        sys.path.insert(0, os.path.dirname(job['module_path']))
        # The module sees the command line of a plain ``python file.py``.
        sys.argv = [job['module_path']]
        sys.orig_argv = [os.path.basename(sys.executable), job['module_path']]
        _set_handler(signal.SIGALRM, _alarm)
        _set_handler(signal.SIGPROF, _alarm)
        channel.write_all(reply_fd, mark())
        reply.update(_serve(job, capture, probe))
    except BaseException as exc:  # noqa: B036 - a failure of this process is a reply too
        kind, text = channel.describe(exc, set())
        reply.update(status='error', kind=kind, error=f'the case process failed: {text}')
    try:
        channel.write_all(reply_fd, channel.encode(reply))
        os.close(reply_fd)
        # Stopped, the runner reads this process's tally from outside (grader.child.tally).
        _kill(_getpid(), signal.SIGSTOP)
    finally:
        _exit(0)


def _serve(job, capture, probe):
    guarded = job['op'] == 'load'
    module, warnings, cut, error, before = execute(job, capture, guarded)
    name = os.path.splitext(os.path.basename(job['module_path']))[0]
    modules = _student_modules(job['root'], module, name, before)
    namespaces = [m.__dict__ for m in modules]
    files = {m.__file__ for m in modules if isinstance(getattr(m, '__file__', None), str)}
    ctx = Context(capture, files, namespaces, job['options'])
    if guarded:
        loaded = {'warnings': warnings, 'error': error, 'cut_line': cut, 'probe': {}}
        if error is None:
            try:
                loaded['probe'] = probe.load(module, job['options'], ctx)
            except BaseException as exc:  # noqa: B036
                loaded['error'] = channel.describe(exc, files)[1]
        loaded['printed'] = capture.text()[-600:]
        return {'status': 'ok', 'observation': loaded}
    if error is not None:
        return {'status': 'error', 'kind': 'exception', 'error': error}
    capture.parts, capture.kept, capture.total = [], 0, 0
    try:
        observation = probe.handle(module, tally.given(job['payload'], job.get('counted', True)),
                                   job['options'], ctx)
    except BaseException as exc:  # noqa: B036 - the student's failure is data
        kind, text = channel.describe(exc, files)
        return {'status': 'error', 'kind': kind, 'error': text,
                'output': capture.text()[:2000], 'output_bytes': capture.total}
    return {'status': 'ok', 'observation': observation,
            'output': capture.text()[:2000], 'output_bytes': capture.total}
