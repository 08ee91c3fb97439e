"""Exercise plug-ins.

Each exercise is a package with two visible halves:

- ``probe.py`` runs in the sandboxed child.  It imports nothing but the
  standard library, :mod:`grader.child` and modules of its own package,
  receives the student module and a request, calls the student's code with
  instrumentation, and returns a plain dict of raw observations.  It never
  sees expected answers.
- ``judge.py`` runs in the parent.  It declares the exercise (an
  :class:`grader.exercises.base.Exercise` subclass named ``EXERCISE``),
  turns fixture cases into requests, and judges each reply against the
  case's expected answer.  ``facts.py`` declares the facts it reports
  (:mod:`grader.exercises.facts`); ``fixtures.schema.json`` is the schema of
  its fixture files.

Adding an exercise means adding one package and its fixture file; the
engine finds plug-ins through :func:`registry`: the packages of this folder,
and packages elsewhere that grading.yaml names (``plugin: FOLDER``), which
:func:`mount` makes importable as ``grader.exercises.<folder name>``, the
same name they would have here (so the sandbox ships and imports them alike).
"""
import functools
import importlib
import importlib.util
import sys
from pathlib import Path

from grader.errors import UserError

_mounted = {}
"""``{package name: folder}`` of the plug-ins mounted from outside this folder."""


def exercise_in(package):
    """The ``EXERCISE`` of ``grader.exercises.<package>.judge``, or None when it has none."""
    module = f'{__name__}.{package}.judge'
    try:
        judge = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name == module:
            return None
        raise
    return getattr(judge, 'EXERCISE', None)


@functools.lru_cache(maxsize=1)
def _shipped():
    """``{package name: folder}`` of the plug-in packages of this folder, listed once per
    process (they are part of the installed grader)."""
    return {path.name: path for path in sorted(Path(__path__[0]).iterdir())
            if (path / '__init__.py').is_file()}


def folders():
    """``{package name: folder}`` of every plug-in package: this folder's, then mounted ones."""
    found = dict(_shipped())
    found.update(_mounted)
    return found


_registries = {}
"""``{the mounted plug-ins (a tuple of their items): the registry}``: a command asks for the
plug-ins a score of times, each a listing of the folders and an import of every judge."""


def registry():
    """All exercise plug-ins (shipped here or mounted), by exercise name."""
    key = tuple(_mounted.items())
    found = _registries.get(key)
    if found is None:
        found = {}
        for package in folders():
            exercise = exercise_in(package)
            if exercise is not None:
                found[exercise.name] = exercise
        _registries[key] = found
    return dict(found)


def get(name):
    """The plug-in called ``name``; a UserError naming the known ones if absent."""
    plugins = registry()
    if name not in plugins:
        raise UserError(f'unknown exercise {name!r} (known: {", ".join(sorted(plugins))})')
    return plugins[name]


def mount(folder):
    """Make the plug-in package at ``folder`` importable as ``grader.exercises.<its name>``.

    The folder holds ``__init__.py``, ``judge.py`` and ``probe.py`` as a
    plug-in of this folder does.  Mounting the same folder again changes
    nothing; a name already taken by another plug-in is a UserError (as is a
    folder that is no package).  Returns the package name.
    """
    folder = Path(folder).resolve()
    package = folder.name
    if not package.isidentifier() or not (folder / '__init__.py').is_file():
        raise UserError(f'{folder} is not a plug-in package (a folder with __init__.py, '
                        'judge.py and probe.py, named as a Python identifier)')
    taken = folders().get(package)
    if taken is not None and Path(taken).resolve() != folder:
        raise UserError(f'the plug-in {folder} is named {package!r} like the plug-in in '
                        f'{taken}: rename its folder')
    if package in _mounted:
        return package
    spec = importlib.util.spec_from_file_location(
        f'{__name__}.{package}', folder / '__init__.py', submodule_search_locations=[str(folder)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[spec.name]
        raise
    setattr(sys.modules[__name__], package, module)
    _mounted[package] = folder
    return package
