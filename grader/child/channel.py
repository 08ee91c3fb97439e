"""Framing of the child's messages, and student-facing descriptions of failures.

Messages are single-line JSON objects.  Between the parent and the runner
they travel over the private pipe pair the parent made; between a case
process and the runner over a pipe the runner made for that case alone, so
a case process never holds the parent's channel.
"""
import errno
import json
import os

_write = os.write
_read = os.read
_dumps = json.dumps
_loads = json.loads
_ENCODER = json.JSONEncoder(separators=(',', ':'), allow_nan=False)
"""What :func:`encode` writes with: made once in the runner, so a case process does not make
(and copy the pages of) an encoder of its own for its reply."""


class Closed(Exception):
    """The other end closed the pipe."""


class Lines:
    """Newline-framed messages and raw byte blocks read from one file descriptor."""

    def __init__(self, fd):
        self.fd = fd
        self.buffer = b''

    def _fill(self):
        chunk = _read(self.fd, 1 << 16)
        if not chunk:
            raise Closed()
        self.buffer += chunk

    def message(self):
        """The next message, decoded (raises :class:`Closed` at the end)."""
        while b'\n' not in self.buffer:
            self._fill()
        line, self.buffer = self.buffer.split(b'\n', 1)
        return _loads(line)

    def block(self, size):
        """Exactly ``size`` raw bytes (an archive sent after a message)."""
        while len(self.buffer) < size:
            self._fill()
        data, self.buffer = self.buffer[:size], self.buffer[size:]
        return data


def encode(message):
    """One message as bytes; a message that cannot be encoded becomes an error message."""
    try:
        text = _ENCODER.encode(message)
    except (TypeError, ValueError) as exc:
        text = _dumps({'status': 'error', 'id': message.get('id', -1),
                       'error': f'the observation could not be encoded ({safe_text(exc)})'})
    return (text + '\n').encode()


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[_write(fd, view):]


def safe_text(exc, limit=300):
    """A one-line description of an exception without running student code."""
    args = exc.args if isinstance(getattr(exc, 'args', None), tuple) else ()
    if len(args) == 1 and type(args[0]) is str:
        detail = args[0]
    elif args and all(type(a) in (str, int, float) for a in args):
        try:
            detail = ', '.join(str(a) for a in args)
        except ValueError:      # an int too long to print (Python 3.11+)
            detail = '...'
    else:
        detail = ''
    line = f'{type_name(exc)}: {detail}' if detail else type_name(exc)
    return ' '.join(line.split())[:limit]


def exit_code_text(code, limit=200):
    """``sys.exit``'s argument as its call would show it, cut to ``limit`` characters (an
    int, a str or None; anything else is ``...``: its repr would run student code)."""
    if type(code) not in (int, str, type(None)):
        return '...'
    try:
        shown = repr(code)
    except ValueError:      # an int too long to print (Python 3.11+)
        return '...'
    return shown if len(shown) <= limit else shown[:limit] + '...'


def type_name(obj):
    try:
        return type.__getattribute__(type(obj), '__name__')
    except Exception:  # noqa: BLE001 - a hostile metaclass
        return 'object'


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
    """The module-level line of ``module_file`` that was running when ``exc`` was raised."""
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == module_file and code.co_name == '<module>':
            return tb.tb_lineno
        tb = tb.tb_next
    return None


class InputRefused(EOFError):
    """``input()`` was called; standard input is closed while grading."""


class StandInUsed(ImportError):
    """A module the sandbox lacks was used through its stand-in."""


def describe(exc, student_files):
    """``(kind, sentence)``: the exception's kind and a one-line, student-facing description.

    ``kind`` is one of a fixed set (``exit``, ``recursion``, ``memory``,
    ``input``, ``disk``, ``missing-module``, ``exception``): it is all a
    report may show of a case whose input is hidden.  The sentence is short
    (a few hundred characters), whatever the exception holds.
    """
    if isinstance(exc, SystemExit):
        kind, text = 'exit', f'called sys.exit({exit_code_text(exc.code)})'
    elif isinstance(exc, RecursionError):
        kind, text = 'recursion', 'hit the recursion limit (endless recursion?)'
    elif isinstance(exc, MemoryError):
        kind, text = 'memory', 'ran out of memory'
    elif isinstance(exc, InputRefused):
        kind, text = 'input', 'called input(), but nothing can be typed while grading'
    elif isinstance(exc, OSError) and getattr(exc, 'errno', None) in (errno.ENOSPC, errno.EDQUOT,
                                                                     errno.EFBIG):
        kind, text = 'disk', 'wrote more than the disk limit allows (disk limit reached)'
    elif isinstance(exc, StandInUsed):
        kind, text = 'missing-module', safe_text(exc).split(': ', 1)[-1]
    else:
        kind, text = 'exception', 'raised ' + safe_text(exc)
    where = student_frame(exc, student_files)
    if where:
        text += f' (line {where[0]}, in {where[1][:100]})'
    return kind, text
