"""The archive the sandbox runs from: the child package and the exercises' probes.

The sandbox never sees the grader's own folders.  It gets one zip archive,
written into it by bubblewrap (or into the private folder at the weaker
levels), holding only what runs in the student's process:

- :mod:`grader.child` (the runner, the case process, counters, guards);
- each exercise's ``probe.py`` and the modules of its own plug-in package
  that the probe imports (e.g. ``connect4/rules.py``), for the grader's own
  plug-ins and for those grading.yaml mounts from a folder of the course
  (:func:`grader.exercises.folders`), all under ``grader/exercises/<name>/``;
- ``pyseccomp`` when it is installed (the seccomp layer);
- the compiled search counter (:data:`grader.child.tally.MEMBER`), stored as it is: the
  runner writes it out and loads it before any student code exists.

Nothing else of the grader -- no judge, no calibration workload, no search
of any kind -- can be imported inside.  Modules are stored compiled
(``.pyc``, from the install's own byte-code where it is fresh), so the child
compiles nothing of its own at start.
"""
import ast
import importlib.util
import io
import marshal
import os
import struct
import tempfile
import zipfile
from pathlib import Path

from grader import __version__, doccache, exercises
from grader.child import files as shipped_files
from grader.child import tally

PACKAGE = Path(__file__).resolve().parents[1]
"""The grader package folder on this machine (never shown to the child)."""
_STUBS = ('grader/__init__.py', 'grader/exercises/__init__.py')
_cache = {}


def _pyc(path, name):
    """A ``.pyc`` image of ``path``, its code named after its place in the archive only."""
    info = os.stat(path)
    code = compile(Path(path).read_bytes(), f'<sandbox>/{name[:-1]}', 'exec', dont_inherit=True)
    return (importlib.util.MAGIC_NUMBER + struct.pack('<III', 0, int(info.st_mtime) & 0xFFFFFFFF,
                                                      info.st_size & 0xFFFFFFFF)
            + marshal.dumps(code))


def _probe_helpers(plugin_folder, name):
    """Modules of the plug-in package ``name`` (at ``plugin_folder``) that its probe imports.

    Read off the probe's syntax tree once per content of the probe and of the package's
    module names (kept in :mod:`grader.doccache`): parsing the four probes took a command
    line 15 ms before its first sandbox could start."""
    source = (plugin_folder / 'probe.py').read_bytes()
    modules = sorted(path.name for path in plugin_folder.glob('*.py'))
    key = doccache.key(b'probe-helpers', __version__.encode(), name.encode(), source,
                       '\0'.join(modules).encode())
    known = doccache.get(key)
    if isinstance(known, list) and all(isinstance(n, str) and f'{n}.py' in modules
                                       for n in known):
        return known
    found = _imported_helpers(source, name)
    helpers = sorted(n for n in found if (plugin_folder / f'{n}.py').is_file())
    doccache.put(key, helpers)
    return helpers


def _imported_helpers(source, name):
    """The modules of ``grader.exercises.<name>`` that the probe ``source`` imports."""
    package = f'grader.exercises.{name}'
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module == package:
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and \
                node.module.startswith(package + '.'):
            found.add(node.module[len(package) + 1:].partition('.')[0])
    return found


def members():
    """``{archive name: file path}`` of every module the child needs (stubs excluded)."""
    found = {}
    for path in sorted((PACKAGE / 'child').glob('*.py')):
        found[f'grader/child/{path.stem}.pyc'] = path
    for package, folder in exercises.folders().items():
        folder = Path(folder)
        if not (folder / 'probe.py').is_file():
            continue
        for name in ['__init__', 'probe', *_probe_helpers(folder, package)]:
            path = folder / f'{name}.py'
            if path.is_file():
                found[f'grader/exercises/{package}/{name}.pyc'] = path
    counter = tally.extension_path()
    if counter is not None:
        found[tally.MEMBER] = Path(counter)
    spec = importlib.util.find_spec('pyseccomp')
    if spec is not None and spec.origin and spec.origin.endswith('.py'):
        found['pyseccomp.pyc'] = Path(spec.origin)
    return found


def plugin_set():
    """``((package name, folder), ...)`` of the plug-ins the archive holds now (it changes when
    grading.yaml mounts a plug-in of its own)."""
    return tuple((name, str(folder)) for name, folder in exercises.folders().items())


def archive():
    """The child archive's bytes: built once per content (and per set of plug-ins mounted),
    kept in the grader's cache folder."""
    known = plugin_set()
    if known in _cache:
        return _cache[known]
    found = members()
    parts = [__version__.encode(), importlib.util.MAGIC_NUMBER]
    for name, path in found.items():
        info = os.stat(path)
        parts.append(f'{name}:{info.st_mtime_ns}:{info.st_size}'.encode())
    where = doccache.folder()
    entry = os.path.join(where, f'child-{doccache.key(*parts)}.zip') if where else ''
    try:
        with open(entry, 'rb') as f:
            data = f.read()
        zipfile.ZipFile(io.BytesIO(data)).testzip()
    except (OSError, zipfile.BadZipFile, ValueError):
        data = _build(found)
        _store(entry, data)
    _cache[known] = data
    return data


def _build(found):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, 'w', zipfile.ZIP_STORED) as bundle:
        for name in _STUBS:
            bundle.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), '')
        for name, path in found.items():
            data = _pyc(path, name) if name.endswith('.pyc') else Path(path).read_bytes()
            bundle.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), data)
    return buffer.getvalue()


def _store(entry, data):
    """Write ``data`` to ``entry`` atomically; a cache that cannot be written is no error."""
    if not entry:
        return
    try:
        os.makedirs(os.path.dirname(entry), mode=0o700, exist_ok=True)
        from grader.sandbox import leftovers  # only when the archive is written
        fd, temporary = tempfile.mkstemp(dir=os.path.dirname(entry), suffix='.tmp',
                                         prefix=leftovers.prefix())   # swept if killed
        with os.fdopen(fd, 'wb') as f:
            f.write(data)
        os.replace(temporary, entry)
    except OSError:
        pass


SKIPPED = frozenset({'.git', '__pycache__', '.venv', 'node_modules'})
"""Folders of a submission that are never copied (nor digested)."""


def submission_files(folder):
    """``(relative name, path)`` of the submission's regular files, in a fixed order.

    Symbolic links and :data:`SKIPPED` folders are left out; the walk does
    not follow links and does not recurse in Python (any folder depth).
    """
    for top, folders, files in os.walk(folder, followlinks=False):
        folders[:] = sorted(f for f in folders if f not in SKIPPED
                            and not os.path.islink(os.path.join(top, f)))
        for name in sorted(files):
            path = os.path.join(top, name)
            if not os.path.islink(path) and os.path.isfile(path):
                yield os.path.relpath(path, folder), path


def submission_archive(folder, max_bytes):
    """The private copy's files (:func:`submission_files`) as one block the runner reads
    with builtins (:func:`grader.child.files.pack`); OSError past ``max_bytes``."""
    contents, total = [], 0
    for relative, path in submission_files(folder):
        with open(path, 'rb') as f:
            data = f.read(max_bytes - total + 1)
        total += len(data)
        if total > max_bytes:
            raise OSError(f'the submission is larger than {max_bytes // (1024 * 1024)} MB')
        contents.append((relative.replace(os.sep, '/'), data))
    return shipped_files.pack(contents)
