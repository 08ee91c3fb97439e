"""Measurement instruments used by probes inside the child (stdlib only).

Measurements live in the same process as student code, so they are kept out
of reach of simple tricks and cross-checked:

- :class:`grader.exercises.counting.SearchCounter` builds the call graph of
  the student's search with ``cProfile`` and counts the calls of its
  recursive functions; after the call, the profiler must still be the
  installed profile function.
- :func:`wrap_functions` is an independent second counter: it replaces the
  student's module-level functions with counting wrappers.  Every wrapped
  call is also a profiled call, so ``wrapped <= all calls`` must hold.
- :class:`TamperGuard` replaces ``sys.settrace``, ``sys.setprofile``,
  ``sys.gettrace`` and ``sys._getframe`` during a call with stand-ins that
  record the attempt and change nothing.  References to the real functions
  that a submission took earlier are caught by an audit hook
  (:func:`install_audit_recorder`, installed by the runner before student
  code is imported), which records every ``sys.settrace``/``sys.setprofile``
  call and every ``sys._getframe`` that reaches a frame outside the student's
  files while a guard is active.

Counters are closure cells, not module globals.  After a call, :meth:`verify`
reports any sign of tampering; the judge then fails the check with
"measurement tampered".
"""
import sys
import types

_recorder = {}


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
        name = getattr(func, '__name__', 'wrapper')
        # A code object of its own per wrapped function, so a call-graph
        # profiler sees Minimax -> wrapper(Minimax) -> Minimax, and no false
        # cycle through one wrapper shared by every function.
        wrapper = types.FunctionType(wrapper.__code__.replace(co_name=f'counted_{name}'),
                                     wrapper.__globals__, name, None, wrapper.__closure__)
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


def install_audit_recorder():
    """Record attempts to blind the counters while a :class:`TamperGuard` is active.

    Audit hooks cannot be removed, so this sees the real ``sys.settrace``,
    ``sys.setprofile`` and ``sys._getframe`` however a submission reached them.
    """
    if _recorder:
        return
    _recorder.update(active=None, student_files=frozenset())

    def hook(event, args):
        attempts = _recorder['active']
        if attempts is None:
            return
        if event in ('sys.settrace', 'sys.setprofile'):
            attempts.append(event[4:])
        elif event == 'sys._getframe' and args:
            code = getattr(args[0], 'f_code', None)
            if code is not None and code.co_filename not in _recorder['student_files']:
                attempts.append('_getframe')

    sys.addaudithook(hook)


class TamperGuard:
    """Stand-ins for the hooks a submission could use to blind the counters."""

    NAMES = ('settrace', 'setprofile', 'gettrace', '_getframe')

    def __init__(self, student_files=()):
        self.attempts = []
        self.student_files = frozenset(student_files)

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
        if _recorder:
            _recorder['student_files'] = self.student_files
            _recorder['active'] = attempts
        return self

    def __exit__(self, *exc):
        if _recorder:
            _recorder['active'] = None
        for name, original in self._saved.items():
            setattr(sys, name, original)
        return False
