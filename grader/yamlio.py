"""YAML loading that remembers where every value came from.

:func:`load` returns plain Python data plus a :class:`Locator` that maps a
key path (``('exercises', 'tictactoe', 'checks')``) to the line it stands on,
so schema errors can say ``grading.yaml:14: ...``.  :func:`load_valid` also
validates against a shipped JSON Schema, and remembers valid documents in
:mod:`grader.doccache`, so an unchanged file costs neither YAML parsing nor
validation (nor importing ``yaml`` and ``jsonschema``).
"""
import io
import json
from pathlib import Path

from grader import __version__, doccache
from grader.errors import UserError

SCHEMAS = Path(__file__).parent / 'schemas'

LOADER = b'yaml-safe+jsonschema-2020-12/1'
"""The loader's kind, part of every cache key: change it when what
:func:`load_valid` returns for the same file and schema changes."""


def _loader():
    import yaml  # yaml is slow to import: a cached document never needs it
    return getattr(yaml, 'CSafeLoader', yaml.SafeLoader)


class Locator:
    """Line numbers (1-based) of the nodes of one YAML document.

    The node tree is composed only when a line is asked for (on an error),
    so loading a valid file parses it once, with libyaml when available.
    """

    def __init__(self, text):
        self._text = text
        self._composed = None

    @property
    def _node(self):
        if self._composed is None:
            import yaml  # yaml is slow to import: a cached document never needs it
            self._composed = yaml.compose(self._text, Loader=_loader()) or False
        return self._composed or None

    def line(self, path):
        """The line of the deepest node along ``path`` that exists."""
        import yaml  # yaml is slow to import: a cached document never needs it
        node, line = self._node, None
        if node is not None:
            line = node.start_mark.line + 1
        for key in path:
            child = None
            if isinstance(node, yaml.MappingNode):
                for k, v in node.value:
                    if k.value == str(key):
                        child, line = v, k.start_mark.line + 1
                        break
            elif isinstance(node, yaml.SequenceNode) and isinstance(key, int):
                if 0 <= key < len(node.value):
                    child = node.value[key]
                    line = child.start_mark.line + 1
            if child is None:
                break
            node = child
        return line


def _read(path):
    """The file's bytes; a missing or unreadable file is a UserError."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise UserError('file not found', path) from None
    except OSError as exc:
        raise UserError(f'cannot read the file ({exc})', path) from None


def _text(raw, path):
    """``raw`` decoded exactly as ``Path.read_text(encoding='utf-8')`` decodes a file."""
    try:
        return io.TextIOWrapper(io.BytesIO(raw), encoding='utf-8').read()
    except UnicodeDecodeError as exc:
        raise UserError(f'cannot read the file ({exc})', path) from None


def _parse(text, path):
    import yaml  # yaml is slow to import: a cached document never needs it
    try:
        return yaml.load(text, Loader=_loader())
    except yaml.YAMLError as exc:
        mark = getattr(exc, 'problem_mark', None)
        problem = getattr(exc, 'problem', None) or str(exc)
        raise UserError(f'not valid YAML: {problem}', path,
                        mark.line + 1 if mark else None) from None


def load(path):
    """Parse a YAML file: ``(data, locator)``; syntax errors are UserErrors."""
    path = Path(path)
    text = _text(_read(path), path)
    return _parse(text, path), Locator(text)


def load_valid(path, schema_name, check=None):
    """:func:`load` and :func:`validate` against ``schemas/<schema_name>`` (or the schema file
    at ``schema_name`` when it is an absolute path, such as a plug-in's fixture schema), cached.

    ``check(data)``, when given, runs before the schema (it may raise a
    UserError of its own).  Errors are exactly those of ``load`` + ``check``
    + ``validate`` and are never cached; a document that passes is stored in
    :mod:`grader.doccache`, and an unchanged one is then returned from there
    with a locator over the same text.
    """
    path = Path(path)
    raw = _read(path)
    schema_bytes = (SCHEMAS / schema_name).read_bytes()
    key = doccache.key(raw, schema_bytes, __version__.encode(), LOADER)
    data = doccache.get(key)
    if data is not doccache.MISSING:
        if check:
            check(data)
        return data, Locator(_text(raw, path))
    text = _text(raw, path)
    data, where = _parse(text, path), Locator(text)
    if check:
        check(data)
    validate(data, json.loads(schema_bytes), path, where)
    doccache.put(key, data)
    return data, where


def schema(name):
    """Load a JSON Schema shipped in ``grader/schemas`` (``name`` relative)."""
    return json.loads((SCHEMAS / name).read_text(encoding='utf-8'))


def validate(data, schema_doc, path, locator=None):
    """Validate ``data``; the first error becomes a UserError with its line."""
    import jsonschema  # slow to import: a cached document never needs it
    validator = jsonschema.Draft202012Validator(schema_doc)
    errors = sorted(validator.iter_errors(data),
                    key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
    if not errors:
        return
    error = jsonschema.exceptions.best_match(errors)
    keys = list(error.absolute_path)
    where = '.'.join(str(k) for k in keys) or '(top level)'
    line = locator.line(keys) if locator else None
    raise UserError(f'{where}: {error.message}', path, line)
