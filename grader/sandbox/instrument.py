"""Measurement instruments used by probes inside the child (stdlib only).

Measurements live in the same process as student code, so they are kept out
of reach of simple tricks and cross-checked:

- :class:`CallCounter` counts calls of functions defined in the student's
  files with a global trace hook (``sys.settrace``), so it sees helpers,
  nested functions and methods however they are reached.
- :func:`wrap_functions` is an independent second counter: it replaces the
  student's module-level functions with counting wrappers.  Every wrapped
  call is also a traced call, so ``wrapped <= traced`` must hold.
- :class:`TamperGuard` replaces ``sys.settrace``, ``sys.setprofile``,
  ``sys.gettrace`` and ``sys._getframe`` during a call with stand-ins that
  record the attempt and change nothing.

Counters are closure cells, not module globals.  After a call, :meth:`verify`
reports any sign of tampering; the judge then fails the check with
"measurement tampered".
"""
import inspect
import sys
import types

_settrace = sys.settrace
_gettrace = sys.gettrace


_RESUMABLE = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


class CallCounter:
    """Counts Python function calls of code objects from ``files``.

    Code objects in ``excluded_codes`` (and the code nested in them, such as
    a generator expression inside a provided helper) are not counted, and
    neither are generator resumptions: a resumed generator is not a call.
    """

    def __init__(self, files, excluded_codes=()):
        files = frozenset(files)
        excluded = frozenset(nested_codes(excluded_codes))
        calls = 0

        def hook(frame, event, arg):
            nonlocal calls
            if event == 'call':
                code = frame.f_code
                if code.co_filename in files and code not in excluded \
                        and not code.co_flags & _RESUMABLE:
                    calls += 1
            return None

        def read():
            return calls

        self._hook, self._read = hook, read
        self.installed_ok = True

    def __enter__(self):
        _settrace(self._hook)
        return self

    def __exit__(self, *exc):
        self.installed_ok = _gettrace() is self._hook
        _settrace(None)
        return False

    @property
    def calls(self):
        return self._read()


def nested_codes(codes):
    """``codes`` and every code object defined inside them."""
    found, stack = set(), list(codes)
    while stack:
        code = stack.pop()
        if code in found:
            continue
        found.add(code)
        stack.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return found


def student_codes(namespace, files, names):
    """Code objects of the functions called ``names`` in ``namespace``."""
    codes = set()
    for name in names:
        obj = namespace.get(name)
        func = getattr(obj, '__func__', obj)
        code = getattr(func, '__code__', None)
        if isinstance(code, types.CodeType) and code.co_filename in files:
            codes.add(code)
    return codes


def wrap_functions(namespace, files, skip=()):
    """Wrap the student's functions in ``namespace`` with counting wrappers.

    Returns ``(restore, count, intact)``: ``restore()`` puts the originals
    back, ``count()`` is the number of wrapped calls, and ``intact()`` says
    whether every wrapper is still bound (a re-bound entry point is tampering).
    """
    wrapped = {}
    calls = 0

    def make(func):
        def wrapper(*args, **kwargs):
            nonlocal calls
            calls += 1
            return func(*args, **kwargs)
        wrapper.__name__ = getattr(func, '__name__', 'wrapper')
        wrapper.__wrapped_by_grader__ = True
        return wrapper

    for name, obj in list(namespace.items()):
        if name in skip or not isinstance(obj, types.FunctionType):
            continue
        if obj.__code__.co_filename not in files:
            continue
        wrapped[name] = (obj, make(obj))
        namespace[name] = wrapped[name][1]

    def restore():
        for name, (original, _) in wrapped.items():
            namespace[name] = original

    def count():
        return calls

    def intact():
        return all(namespace.get(name) is wrapper for name, (_, wrapper) in wrapped.items())

    return restore, count, intact


class TamperGuard:
    """Stand-ins for the hooks a submission could use to blind the counters."""

    NAMES = ('settrace', 'setprofile', 'gettrace', '_getframe')

    def __init__(self):
        self.attempts = []

    def __enter__(self):
        self._saved = {name: getattr(sys, name) for name in self.NAMES}
        attempts = self.attempts

        def refuse(name):
            def stand_in(*args, **kwargs):
                attempts.append(name)
                if name == 'gettrace':
                    return None
                if name == '_getframe':
                    raise ValueError('call stack is not deep enough')
                return None
            return stand_in

        for name in self.NAMES:
            setattr(sys, name, refuse(name))
        return self

    def __exit__(self, *exc):
        for name, original in self._saved.items():
            setattr(sys, name, original)
        return False
