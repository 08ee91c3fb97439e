"""The trusted runner inside the sandboxed child process.

This module is the child's ``main``.  It reads a *hello* from the private
request pipe, applies the in-child isolation layers (rlimits, seccomp) before
any student code exists in the process, imports the student module with the
guards described below, and then answers the parent's requests by calling the
exercise's probe.  It sends back raw observations only; it never sees an
expected answer and never decides a verdict.

Before that, the trusted runner applies the in-child layers
(:func:`grader.sandbox.inchild.apply`: rlimits, uid drop, seccomp, audit
hook); if one that was asked for fails, it reports that and exits without
importing anything of the submission.

Import guards ("grade what was defined"): module-level code that calls
``input()``, ``sys.exit()``, raises, or runs too long is stopped, the cause is
reported as a one-line warning, and whatever the module had defined by then
is graded.

Every call runs under a soft CPU-time limit (``SIGPROF``, with a wall-clock
``SIGALRM`` for calls that block, raising
:class:`CallTimeout`, which is not an ``Exception`` so ``except Exception``
in student code does not swallow it); the parent enforces a hard limit on top
by killing the process group.
"""
import builtins
import importlib
import importlib.util
import io
import json
import os
import random
import signal
import sys
import time

# References taken before any student code runs: a submission that
# monkeypatches these modules cannot change what the runner uses.
_write = os.write
_read = os.read
_dumps = json.dumps
_loads = json.loads
_perf = time.perf_counter
_cpu = time.process_time
_setitimer = signal.setitimer


class CallTimeout(BaseException):
    """Raised inside the child when a call exceeds its soft time limit."""


class InputRefused(EOFError):
    """``input()`` was called; standard input is closed while grading."""


class Capture(io.TextIOBase):
    """A ``sys.stdout`` replacement that keeps the first ``cap`` characters."""

    def __init__(self, cap):
        super().__init__()
        self.cap = cap
        self.reset()

    def reset(self):
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

    def __init__(self, capture, student_files, options):
        self.capture = capture
        self.student_files = student_files
        self.options = options
        self.perf_counter = _perf

    def output(self):
        """What the submission printed so far during this call (capped)."""
        return self.capture.text()


def safe_text(exc, limit=300):
    """A one-line description of an exception without running student code."""
    args = exc.args if isinstance(getattr(exc, 'args', None), tuple) else ()
    if len(args) == 1 and type(args[0]) is str:
        detail = args[0]
    elif args and all(type(a) in (str, int, float) for a in args):
        detail = ', '.join(str(a) for a in args)
    else:
        detail = ''
    line = f'{type(exc).__name__}: {detail}' if detail else type(exc).__name__
    line = ' '.join(line.split())
    return line[:limit]


def student_frame(exc, student_files):
    """(line, function) of the deepest traceback frame in a student file."""
    found = None
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename in student_files:
            found = (tb.tb_lineno, code.co_name)
        tb = tb.tb_next
    return found


def module_frame_line(exc, module_file):
    """The module-level line of ``module_file`` that was running."""
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == module_file and code.co_name == '<module>':
            return tb.tb_lineno
        tb = tb.tb_next
    return None


def describe(exc, student_files):
    """A one-line, student-facing description of an exception."""
    if isinstance(exc, SystemExit):
        code = exc.code if type(exc.code) in (int, str, type(None)) else '...'
        text = f'called sys.exit({code!r})'
    elif isinstance(exc, RecursionError):
        text = 'hit the recursion limit (endless recursion?)'
    elif isinstance(exc, MemoryError):
        text = 'ran out of memory'
    elif isinstance(exc, InputRefused):
        text = 'called input(), but nothing can be typed while grading'
    else:
        text = 'raised ' + safe_text(exc)
    where = student_frame(exc, student_files)
    if where:
        text += f' (line {where[0]}, in {where[1]})'
    return text


class Channel:
    """The child's end of the private channel."""

    def __init__(self, read_fd, write_fd):
        self.read_fd, self.write_fd = read_fd, write_fd
        self.buffer = b''
        self.token = None

    def receive(self):
        while b'\n' not in self.buffer:
            chunk = _read(self.read_fd, 1 << 16)
            if not chunk:
                raise SystemExit(0)
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b'\n', 1)
        return _loads(line)

    def send(self, message):
        message['token'] = self.token
        try:
            data = _dumps(message, separators=(',', ':'), allow_nan=False)
        except (TypeError, ValueError) as exc:
            data = _dumps({'token': self.token, 'id': message.get('id', -1),
                           'status': 'error',
                           'error': f'the observation could not be encoded ({safe_text(exc)})'})
        view = memoryview((data + '\n').encode())
        while view:
            view = view[_write(self.write_fd, view):]


_expired = []


def _alarm(signum, frame):
    _expired.append('cpu' if signum == signal.SIGPROF else 'wall')
    raise CallTimeout()


def _refuse_input(prompt=''):
    raise InputRefused('input() is not available while grading')


def import_student(path, seconds, capture, student_files):
    """Execute the student module with the import guards.

    Returns ``(module, warnings, error)``.  ``error`` is set when nothing
    usable was defined (a syntax error, or the file could not be read).
    """
    name = os.path.splitext(os.path.basename(path))[0]
    warnings, error = [], None
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    _setitimer(signal.ITIMER_REAL, seconds)
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        error = f'syntax error at line {exc.lineno}: {exc.msg}'
    except CallTimeout:
        warnings.append(f'your module was still running {seconds:g} s after import began '
                        '(an endless loop or a game at module level?): put it under '
                        "`if __name__ == '__main__':`; graded what it had defined by then")
    except BaseException as exc:  # noqa: B036 - every failure becomes a warning
        line = module_frame_line(exc, path)
        at = f' (line {line})' if line else ''
        if isinstance(exc, InputRefused):
            warnings.append(f'your module calls input() when it is imported{at}: is main() '
                            "called at module level? Put it under `if __name__ == '__main__':`. "
                            'Graded what it had defined before that.')
        elif isinstance(exc, SystemExit):
            warnings.append(f'your module stops with sys.exit(), exit() or quit() when it is '
                            f"imported{at}: put that under `if __name__ == '__main__':`. "
                            'Graded what it had defined before that.')
        else:
            warnings.append(f'your module {describe(exc, student_files)} when it is imported'
                            f'{at}: graded what it had defined before that.')
    finally:
        _setitimer(signal.ITIMER_REAL, 0)
    return module, warnings, error


def main():
    try:
        serve()
    except SystemExit:
        raise
    except BaseException:  # noqa: B036 - a runner failure: say what it was, on the real stderr
        import traceback
        _write(2, ('grader runner failed:\n' + traceback.format_exc()).encode('utf-8', 'replace'))
        os._exit(70)


def _add_site_builtins():
    """``exit()`` and ``quit()``, which the site module adds and ``python -S`` leaves out.

    Handouts call ``exit()`` in their menus; it must raise SystemExit here too.
    """
    if not hasattr(builtins, 'exit'):
        import _sitebuiltins
        eof = 'Ctrl-D (i.e. EOF)'
        builtins.exit = _sitebuiltins.Quitter('exit', eof)
        builtins.quit = _sitebuiltins.Quitter('quit', eof)


def serve():
    channel = Channel(int(sys.argv[1]), int(sys.argv[2]))
    hello = channel.receive()
    channel.token = hello['token']

    from grader.sandbox import inchild, instrument
    try:
        applied = inchild.apply(hello.get('layers', {}))
    except Exception as exc:  # noqa: BLE001 - fail closed: no student code runs
        failed = f'{type(exc).__name__}: {exc}'
        channel.send({'id': hello['id'], 'status': 'ok', 'observation': {
            'warnings': [], 'error': failed, 'probe': {}, 'sandbox': {'failed': failed}}})
        return
    instrument.install_audit_recorder()
    # The student module sees the command line of a plain ``python file.py``.
    sys.argv = [hello['module_path']]
    sys.orig_argv = [os.path.basename(sys.executable), hello['module_path']]

    capture = Capture(hello.get('output_chars', 65536))
    sys.stdout = sys.stderr = capture
    builtins.input = _refuse_input
    _add_site_builtins()
    signal.signal(signal.SIGALRM, _alarm)
    signal.signal(signal.SIGPROF, _alarm)
    random.seed(0)

    probe = importlib.import_module(hello['probe'])
    options = hello.get('options', {})
    path = hello['module_path']
    student_files = {path}
    for extra in hello.get('sys_path', []):
        sys.path.insert(0, extra)
    sys.path.insert(0, os.path.dirname(path))

    module, warnings, error = import_student(path, hello.get('load_seconds', 5.0),
                                             capture, student_files)
    # Other files of the submission imported by the module count as student code.
    submission_root = hello.get('submission_root')
    if submission_root:
        for mod in list(sys.modules.values()):
            file = getattr(mod, '__file__', None)
            if isinstance(file, str) and file.startswith(submission_root):
                student_files.add(file)
    ctx = Context(capture, student_files, options)
    loaded = {'warnings': warnings, 'error': error, 'probe': {},
              'sandbox': {'applied': applied}}
    if error is None:
        try:
            loaded['probe'] = probe.load(module, options, ctx)
        except BaseException as exc:  # noqa: B036
            loaded['error'] = describe(exc, student_files)
    channel.send({'id': hello['id'], 'status': 'ok', 'observation': loaded})

    while True:
        request = channel.receive()
        if request.get('op') == 'exit':
            # At once: no interpreter finalization, so nothing the student left
            # behind (atexit handlers, finalizers, threads) runs after grading.
            os._exit(0)
        capture.reset()
        reply = {'id': request['id']}
        del _expired[:]
        start, cpu_start = _perf(), _cpu()
        try:
            # The limit is CPU time (ITIMER_PROF), which load on the machine
            # hardly changes; a wall-clock alarm catches calls that wait forever.
            _setitimer(signal.ITIMER_PROF, request['limit'])
            _setitimer(signal.ITIMER_REAL, request.get('wall', 4 * request['limit']))
            try:
                reply['observation'] = probe.handle(module, request['payload'], options, ctx)
            finally:
                _setitimer(signal.ITIMER_PROF, 0)
                _setitimer(signal.ITIMER_REAL, 0)
            reply['status'] = 'ok'
        except CallTimeout:
            reply['status'] = 'timeout'
            reply['error'] = _expired[0] if _expired else 'cpu'
        except BaseException as exc:  # noqa: B036 - the student's failure is data
            reply['status'] = 'error'
            reply['error'] = describe(exc, student_files)
        reply['elapsed'] = _perf() - start
        reply['cpu'] = max(0.0, _cpu() - cpu_start)
        reply['output'] = capture.text()[:2000]
        reply['output_bytes'] = capture.total
        channel.send(reply)
