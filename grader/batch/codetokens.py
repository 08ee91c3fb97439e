"""A Python file read into *units* of normalised tokens, for the comparison of code.

A unit is a function (a method is one of its own) or the module's remaining
code.  The file is parsed and put in its canonical form first
(:mod:`grader.batch.canonical`: no-ops, unread assignments, the order of
independent statements and operands, loops and if/else as a copier's tools
rewrite them), then each unit's syntax tree is written out in prefix order,
one token a node:

- every name the file binds (functions, classes, parameters, variables,
  attributes it assigns, import aliases) is ``#n``, its order of first use
  in the unit: renaming changes nothing; names the file does not bind
  (``len``, ``range``, ``board.count``) stay as written;
- string literals are one token ``S``; numbers, operators and the kinds of
  statements and expressions are tokens of their own; a block opens and
  closes with ``{`` and ``}``;
- comments, docstrings, blank lines, layout and type annotations are gone.

Each token keeps the character span of the code it stands for (a name or a
constant its own, the kind of a statement or expression the point where it
starts): the side-by-side view marks matches in the file as it was handed
in.  Code that does not parse is read one top-level statement at a time, and
what does not parse of it is left out.
"""
import ast
import builtins
from typing import NamedTuple

from grader.batch import canonical

_BUILTINS = frozenset(dir(builtins))
_SKIPPED = frozenset({'ctx', 'type_comment', 'type_ignores', 'kind', 'annotation', 'returns',
                      'type_params', 'decorator_list'})


class Token(NamedTuple):
    """A normalised token: its unit, its word and the character span of its code."""

    unit: int
    word: str
    start: int
    end: int

    @property
    def name(self):
        """Whether the token is a name the file binds (``#n``)."""
        return self.word[:1] == '#'


_NAME, _DEFINITION, _ARG, _ATTRIBUTE, _ALIAS, _GLOBAL, _HANDLER, _OTHER = range(8)
_BINDERS = canonical.PerType(lambda node_type: next(
    (kind for types, kind in ((ast.Name, _NAME),
                              ((ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef), _DEFINITION),
                              (ast.arg, _ARG), (ast.Attribute, _ATTRIBUTE), (ast.alias, _ALIAS),
                              ((ast.Global, ast.Nonlocal), _GLOBAL),
                              (ast.ExceptHandler, _HANDLER))
     if issubclass(node_type, types)), _OTHER))
"""Which of the kinds of node :func:`bound_names` tells apart each type of node is."""


def bound_names(tree):
    """Every name a module binds: definitions, parameters, stored names and attributes,
    import aliases, globals and caught exceptions."""
    names = set()
    binders = _BINDERS
    for node in canonical.nodes(tree):
        kind = binders[type(node)]
        if kind == _OTHER:
            continue
        if kind == _NAME:
            if not isinstance(node.ctx, ast.Load):
                names.add(node.id)
        elif kind == _DEFINITION:
            names.add(node.name)
        elif kind == _ARG:
            names.add(node.arg)
        elif kind == _ATTRIBUTE:
            if isinstance(node.ctx, ast.Store):
                names.add(node.attr)
        elif kind == _ALIAS:
            names.add((node.asname or node.name).split('.')[0])
        elif kind == _GLOBAL:
            names.update(node.names)
        elif node.name:
            names.add(node.name)
    return names


def parse(text):
    """The module of ``text``; when it does not parse, the module of those of its
    top-level statements (each with what is indented under it) that do, at their lines."""
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        pass
    body = []
    for first, chunk in _top_level(text):
        try:
            body += ast.parse('\n' * first + chunk).body
        except (SyntaxError, ValueError):
            continue
    return ast.Module(body=body, type_ignores=[])


def _top_level(text):
    """``(lines before it, text)`` of each top-level statement of ``text``: from a line that
    starts at its first column (decorators with what they decorate) to the next."""
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines)
              if line[:1].strip() and line[:1] not in '#)]}'
              and not (i and lines[i - 1].lstrip().startswith('@'))]
    for first, end in zip(starts, starts[1:] + [len(lines)]):
        yield first, ''.join(lines[first:end])


class _Offsets:
    """Character offsets of ``(line, column)`` positions (columns count UTF-8 bytes)."""

    def __init__(self, text):
        self.lines = text.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))
        self.ascii = [line.isascii() for line in self.lines]

    def __call__(self, line, column):
        if line - 1 >= len(self.lines):
            return self.starts[-1]
        if not self.ascii[line - 1]:
            text = self.lines[line - 1]
            column = len(text.encode('utf-8')[:column].decode('utf-8', errors='replace'))
        return self.starts[line - 1] + column


def units(tree):
    """``[(unit number, [statements])]``: the module's own code (0), then each function
    and method in the order of the file (a method's class stays in the module's code)."""
    module, functions = [], []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.append(node)
        elif isinstance(node, ast.ClassDef):
            methods = [m for m in node.body
                       if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
            functions += methods
            node.body = [m for m in node.body if m not in methods]
            module.append(node)
        else:
            module.append(node)
    return [(0, module)] + [(n, [f]) for n, f in enumerate(functions, 1)]


class _Writer:
    """Writes the nodes of one file's units as :class:`Token` s."""

    def __init__(self, text, bound):
        self.offset = _Offsets(text)
        self.bound = bound
        self.tokens, self.unit, self.names, self.at = [], 0, {}, 0

    def write_unit(self, number, statements):
        self.unit, self.names = number, {}
        for statement in statements:
            self.node(statement)

    def word(self, word, start=None, end=None):
        start = self.at if start is None else start
        self.tokens.append(_new_token(Token, (self.unit, word, start, max(start, end or start))))

    def name(self, name, start, end):
        """A name: ``#n`` when the file binds it, else as written."""
        if name in self.bound or name not in _BUILTINS:
            name = '#%d' % self.names.setdefault(name, len(self.names) + 1)
        self.word(name, start, end)

    def span(self, node):
        if getattr(node, 'lineno', None) is None:
            return self.at, self.at
        start = self.offset(node.lineno, node.col_offset)
        end = self.offset(node.end_lineno, node.end_col_offset) if node.end_lineno else start
        return start, end

    def node(self, node):
        if isinstance(node, ast.expr_context):
            return
        line = getattr(node, 'lineno', None)
        if line is not None:
            self.at = self.offset(line, node.col_offset)
        kind = type(node).__name__
        special = _SPECIAL.get(kind)
        if special is not None:
            return special(self, node)
        self.word(kind)
        self.fields(node)

    def fields(self, node):
        for field in _WRITTEN[type(node)]:
            value = getattr(node, field, None)
            if value is None:
                continue
            if isinstance(value, list):
                if value and isinstance(value[0], ast.stmt):
                    self.block(value)
                else:
                    for item in value:
                        self.value(item)
            else:
                self.value(value)

    def value(self, value):
        if isinstance(value, ast.AST):
            self.node(value)
        elif isinstance(value, str):
            self.name(value, self.at, self.at)
        elif value is not None:
            self.word(str(value))

    def block(self, statements):
        self.word('{')
        for statement in statements:
            self.node(statement)
        self.word('}')

    # -- the nodes written otherwise than by their fields ----------------------------
    def node_Name(self, node):
        self.name(node.id, *self.span(node))

    def node_Constant(self, node):
        value = node.value
        word = 'S' if isinstance(value, str) else 'B' if isinstance(value, bytes) \
            else repr(value)[:20]
        self.word(word, *self.span(node))

    def node_JoinedStr(self, node):
        self.word('S', *self.span(node))

    def node_Attribute(self, node):
        start, end = self.span(node)
        self.word('.')
        self.node(node.value)
        if node.attr in self.bound:
            self.name(node.attr, end - len(node.attr), end)
        else:
            self.word('.' + node.attr, end - len(node.attr), end)

    def node_arg(self, node):
        start, _ = self.span(node)
        self.name(node.arg, start, start + len(node.arg))

    def node_keyword(self, node):
        self.word('=')
        if node.arg is not None:
            start = self.span(node)[0]
            if node.arg in self.bound:
                self.name(node.arg, start, start + len(node.arg))
            else:
                self.word(node.arg, start, start + len(node.arg))
        self.node(node.value)

    def node_alias(self, node):
        self.word('import ' + node.name)
        if node.asname:
            self.name(node.asname, self.at, self.at)

    def node_Expr(self, node):
        self.node(node.value)

    def node_FunctionDef(self, node):
        start = self.span(node)[0]
        self.word('def', start, start + 3)
        self.name(node.name, start, start + 3)
        self.node(node.args)
        self.block(node.body)

    node_AsyncFunctionDef = node_FunctionDef

    def node_Call(self, node):
        self.word('(')
        self.fields(node)
        self.word(')')

    def node_BinOp(self, node):
        self.node(node.op)
        self.node(node.left)
        self.node(node.right)


_SPECIAL = {name[len('node_'):]: function for name, function in vars(_Writer).items()
            if name.startswith('node_')}
"""The nodes :class:`_Writer` writes otherwise than by their fields, by the name of their type."""
_WRITTEN = canonical.PerType(lambda node_type: tuple(f for f in node_type._fields
                                                     if f not in _SKIPPED))
"""The fields :meth:`_Writer.fields` writes of each type of node (not the skipped ones)."""
_new_token = tuple.__new__
"""``Token(...)`` without the call of its ``__new__``."""


def read(text):
    """The :class:`Token` s of ``text``, unit by unit (module code first), each unit's in
    the canonical order of its code."""
    tree = parse(text)
    bound = bound_names(tree)
    canonical.canonical(tree, bound)
    writer = _Writer(text, bound)
    for number, statements in units(tree):
        writer.write_unit(number, statements)
    return writer.tokens
