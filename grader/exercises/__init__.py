"""Exercise plug-ins.

Each exercise is a subpackage with two visible halves:

- ``probe.py`` runs in the sandboxed child.  It imports nothing but the
  standard library and its own stdlib-only helpers, receives the student
  module and a request, calls the student's code with instrumentation, and
  returns a plain dict of raw observations.  It never sees expected answers.
- ``judge.py`` runs in the parent.  It declares the exercise (an
  :class:`grader.exercises.base.Exercise` subclass named ``EXERCISE``),
  turns fixture cases into requests, and judges each reply against the
  case's expected answer.

Adding an exercise means adding one subpackage and one fixture file; the
engine finds plug-ins through :func:`registry`.
"""
import importlib

from grader.errors import UserError


def registry():
    """All exercise plug-ins shipped in this package, by name."""
    import pkgutil  # here, not at the top: a child importing a probe never needs it
    found = {}
    for info in pkgutil.iter_modules(__path__):
        if not info.ispkg:
            continue
        try:
            judge = importlib.import_module(f'{__name__}.{info.name}.judge')
        except ModuleNotFoundError as exc:
            if exc.name == f'{__name__}.{info.name}.judge':
                continue
            raise
        exercise = getattr(judge, 'EXERCISE', None)
        if exercise is not None:
            found[exercise.name] = exercise
    return found


def get(name):
    """The plug-in called ``name``; a UserError naming the known ones if absent."""
    plugins = registry()
    if name not in plugins:
        raise UserError(f'unknown exercise {name!r} (known: {", ".join(sorted(plugins))})')
    return plugins[name]
