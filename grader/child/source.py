"""What the runner learns from the student module's source, without running it.

The runner never executes student code, but it may parse and compile it:
:func:`study` reads the module once, compiles it, and lists its imports;
:func:`truncated` compiles the module without the top-level statement at
which an import stopped (an endless loop or ``input()`` at module level),
so every case process defines what the load defined, at once.
"""
import ast
import importlib.util
import os
import sys
import types

from grader.child.channel import StandInUsed

PREIMPORT = frozenset({
    'abc', 'array', 'bisect', 'collections', 'copy', 'dataclasses', 'enum', 'functools',
    'heapq', 'itertools', 'json', 'math', 'operator', 'queue', 'random', 're', 'statistics',
    'string', 'time', 'typing', 'datetime', 'fractions', 'numbers', 'pprint', 'textwrap',
    'threading', 'traceback', 'warnings', 'logging', 'sys', 'os',
    'pathlib', 'shutil', 'zipfile', 'fnmatch', 'binascii', 'zlib', 'bz2', 'lzma', 'ipaddress',
})
"""Standard modules a submission commonly imports: the runner imports them once,
before forking, so a case process does not load them again.  Only standard
library code runs in the runner; a name that is also a file of the submission
is never imported there.  (The runner itself loads neither ``threading`` nor ``zipfile``
and what it brings, see :meth:`grader.child.runner.Runner.unpack`: a submission that
imports one of them has it loaded here.)"""


class Study:
    """The compiled module and its imports."""

    def __init__(self, path, source):
        self.path = path
        self.tree = ast.parse(source, filename=path)
        self.code = compile(self.tree, path, 'exec', dont_inherit=True)
        self.imports = list(_imports(self.tree))
        """``[(top-level module name, line, bound names)]`` of absolute imports."""
        self.loaded = _loaded_names(self.tree)

    def used(self, bound):
        """Whether any of the names an import binds is read elsewhere in the module."""
        return any(name in self.loaded for name in bound)


def _imports(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.partition('.')[0]
                yield top, node.lineno, [alias.asname or top]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            yield (node.module.partition('.')[0], node.lineno,
                   [alias.asname or alias.name for alias in node.names])


def _loaded_names(tree):
    return {node.id for node in ast.walk(tree)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}


def study(path):
    """A :class:`Study` of the file at ``path``; SyntaxError/OSError/ValueError propagate."""
    with open(path, 'rb') as f:
        source = f.read()
    decodable(path, source)
    return Study(path, source)


def decodable(path, source):
    """Raise the SyntaxError Python raises when it runs a file whose bytes its encoding
    (UTF-8 unless a coding line declares another, PEP 263) cannot decode.

    ``compile`` passes over such bytes in a comment, and so does ``import``; the
    interpreter running the file does not, and neither does the grader.
    """
    import io  # only when a module is compiled
    import tokenize  # only when a module is compiled
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    except SyntaxError:     # an unknown declared encoding: compile says so; else no cookie
        encoding = 'utf-8'
    try:
        source.decode(encoding)
    except UnicodeDecodeError as error:
        line = source.count(b'\n', 0, error.start) + 1
        byte = source[error.start]
        if encoding in ('utf-8', 'utf-8-sig'):
            message = (f"Non-UTF-8 code starting with '\\x{byte:02x}', but no encoding "
                       'declared: save the file as UTF-8 (or declare its encoding, PEP 263)')
        else:
            message = (f"byte '\\x{byte:02x}' is not {encoding}, the encoding the file "
                       'declares: save it in that encoding, or declare the right one')
        raise SyntaxError(message, (path, line, 1, None)) from None


def own_modules(folder):
    """Top-level module names the submission itself provides in ``folder``."""
    names = set()
    try:
        entries = os.listdir(folder)
    except OSError:
        return names
    for entry in entries:
        stem, dot, ext = entry.partition('.')
        if dot and ext == 'py':
            names.add(stem)
        elif not dot and os.path.isfile(os.path.join(folder, entry, '__init__.py')):
            names.add(entry)
    return names


def classify(found, own):
    """``(preimport, missing)`` for the imports of a :class:`Study`.

    ``preimport`` are standard modules of :data:`PREIMPORT` that the
    submission does not shadow; ``missing`` are ``(name, line, used)`` of
    modules neither the submission nor this interpreter provides.
    """
    preimport, missing, seen = [], [], set()
    for name, line, bound in found.imports:
        if name in seen or name in own or name == '__future__':
            continue
        seen.add(name)
        if name in sys.modules or name in sys.builtin_module_names:
            continue
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is None:
            missing.append((name, line, found.used(bound)))
        elif name in PREIMPORT:
            preimport.append(name)
    return preimport, missing


def truncated(found, line):
    """The module's code without the top-level statement holding ``line``, and what follows."""
    body = found.tree.body
    cut = next((i for i, node in enumerate(body)
                if node.lineno <= line <= getattr(node, 'end_lineno', node.lineno)), len(body))
    module = ast.Module(body=body[:cut], type_ignores=[])
    return compile(module, found.path, 'exec', dont_inherit=True), body[cut].lineno \
        if cut < len(body) else None


class _StandIn:
    """What a missing module's attributes are: anything done with one raises."""

    def __init__(self, message):
        object.__setattr__(self, '_message', message)

    def _refuse(self, *args, **kwargs):
        raise StandInUsed(object.__getattribute__(self, '_message'))

    __call__ = __getattr__ = __getitem__ = __iter__ = __setattr__ = _refuse
    __add__ = __sub__ = __mul__ = __lt__ = __gt__ = __le__ = __ge__ = __len__ = _refuse


def stand_in_module(name, line):
    """A module ``name`` whose attributes fail on first use, with a sentence saying why."""
    message = (f'`{name}` is not available where your code is graded; remove the import '
               f'(line {line})')
    module = types.ModuleType(name)
    module.__getattr__ = lambda attribute: _StandIn(message)
    module.__grader_stand_in__ = True
    return module
