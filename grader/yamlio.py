"""YAML loading that remembers where every value came from.

:func:`load` returns plain Python data plus a :class:`Locator` that maps a
key path (``('exercises', 'tictactoe', 'checks')``) to the line it stands on,
so schema errors can say ``grading.yaml:14: ...``.
"""
import json
from pathlib import Path

import jsonschema
import yaml

from grader.errors import UserError


_FAST = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)


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
            self._composed = yaml.compose(self._text, Loader=_FAST) or False
        return self._composed or None

    def line(self, path):
        """The line of the deepest node along ``path`` that exists."""
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


def load(path):
    """Parse a YAML file: ``(data, locator)``; syntax errors are UserErrors."""
    path = Path(path)
    try:
        text = path.read_text(encoding='utf-8')
    except FileNotFoundError:
        raise UserError('file not found', path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f'cannot read the file ({exc})', path) from None
    try:
        data = yaml.load(text, Loader=_FAST)
    except yaml.YAMLError as exc:
        mark = getattr(exc, 'problem_mark', None)
        problem = getattr(exc, 'problem', None) or str(exc)
        raise UserError(f'not valid YAML: {problem}', path,
                        mark.line + 1 if mark else None) from None
    return data, Locator(text)


def schema(name):
    """Load a JSON Schema shipped in ``grader/schemas`` (``name`` relative)."""
    here = Path(__file__).parent / 'schemas' / name
    return json.loads(here.read_text(encoding='utf-8'))


def validate(data, schema_doc, path, locator=None):
    """Validate ``data``; the first error becomes a UserError with its line."""
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
