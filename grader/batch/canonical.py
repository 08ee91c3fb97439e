"""A module's syntax tree in a form the usual obfuscations do not change.

Copies are disguised by scripts and language models with edits that leave
the program as it was.  :func:`canonical` undoes the common ones on a
parsed module (in place), before :mod:`grader.batch.similarity` reads it
into tokens:

- **no-op statements** are dropped: ``pass``, ``...``, constant expressions
  and string statements (docstrings), every ``print(...)`` statement, and
  assignments to names whose values are never read (after the statements
  that read them are dropped too, so chains of unused variables go); an
  unused assignment whose value calls something keeps the call;
- **augmented assignments** are spelled out (``x += y`` is ``x = x + y``);
- **counting loops** written as ``i = a`` / ``while i < b: ...; i += 1`` are
  the ``for i in range(a, b)`` they stand for, and ``for i in range(len(s))``
  whose body only reads ``s[i]`` into one name is the ``for`` over ``s``;
- **if/else** with a negated test (``not``, ``!=``, ``>=``, ``not in``,
  ``is not``) has the test made positive and its branches swapped; an ``if``
  whose body is empty but whose ``else`` is not is the negated ``if``;
- **comparisons** read left to right with ``<`` and ``<=`` (``b > a`` is
  ``a < b``), and the operands of ``==``, ``!=``, ``is``, ``is not`` and of
  the commutative operators (``+ * & | ^``, ``and``, ``or``) come in a
  canonical order;
- **independent statements** in a block come in a canonical order: any order
  a copier could choose without changing what the block computes gives the
  same one (statements that read or write the same names, or two that call
  functions or write into objects, keep their order).

The canonical order is by the *shape* of code (its tree with the names it
binds replaced by one placeholder), so renaming does not change it.  Only
the similarity of code is read from the result: nothing here has to keep a
program runnable (blocks may become empty).
"""
import ast
import builtins
import copy
import heapq

PURE = frozenset({
    'abs', 'all', 'any', 'bool', 'chr', 'dict', 'divmod', 'enumerate', 'float', 'frozenset',
    'hash', 'int', 'isinstance', 'len', 'list', 'max', 'min', 'ord', 'range', 'repr',
    'reversed', 'round', 'set', 'sorted', 'str', 'sum', 'tuple', 'type', 'zip'})
"""Builtins whose calls change nothing: statements calling them may change places."""

_BUILTINS = frozenset(dir(builtins))
_HEAP = '<objects>'
"""The pseudo-name read by subscripts and attributes and written by calls and stores into
objects: two statements that both touch it keep their order."""

_NEGATED = {ast.NotEq: ast.Eq, ast.NotIn: ast.In, ast.IsNot: ast.Is,
            ast.GtE: ast.Lt, ast.LtE: ast.Gt}
_MIRRORED = {ast.Gt: ast.Lt, ast.GtE: ast.LtE}
_SYMMETRIC = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)
_COMMUTATIVE = (ast.Add, ast.Mult, ast.BitAnd, ast.BitOr, ast.BitXor)
_STOPS = (ast.Return, ast.Break, ast.Continue, ast.Raise, ast.Yield, ast.YieldFrom,
          ast.Await, ast.Global, ast.Nonlocal, ast.Try, ast.FunctionDef, ast.AsyncFunctionDef,
          ast.ClassDef, ast.Import, ast.ImportFrom, ast.With, ast.AsyncWith, ast.Delete)
_BLOCKS = ('body', 'orelse', 'finalbody')
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_AST = ast.AST


class PerType(dict):
    """``of(kind)`` for each type of node ``kind``, worked out the first time it is asked
    for (``table[type(node)]``): what the passes over a tree ask of every node."""

    def __init__(self, of):
        super().__init__()
        self.of = of

    def __missing__(self, kind):
        found = self[kind] = self.of(kind)
        return found


_SCALARS = {ast.Name: ('id',), ast.Constant: ('value', 'kind'), ast.Attribute: ('attr',)}
"""The fields of the commonest nodes that never hold a node (a name, a constant)."""
_FIELDS = PerType(lambda kind: tuple(f for f in kind._fields
                                     if f != 'ctx' and f not in _SCALARS.get(kind, ())))
"""The fields of each type of node that may hold nodes: not ``ctx`` (the only one that holds
expression contexts, and it holds nothing else), nor the :data:`_SCALARS`."""


def nodes(node):
    """Every node under ``node`` (``node`` first) but the expression contexts (``Load``,
    ``Store``, ``Del``), in :func:`ast.walk`'s order (breadth first), as a list: the passes
    here walk every tree several times, and ``ast.walk`` costs twice as much."""
    todo = [node]
    append = todo.append
    for node in todo:
        kind = type(node)
        for field in _FIELDS[kind]:
            value = getattr(node, field, None)
            if isinstance(value, _AST):
                append(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, _AST):
                        append(item)
    return todo


def _children(node):
    """The child nodes of ``node`` but the expression contexts, in the order of
    :func:`ast.iter_child_nodes`."""
    out = []
    for field in _FIELDS[type(node)]:
        value = getattr(node, field, None)
        if isinstance(value, _AST):
            out.append(value)
        elif isinstance(value, list):
            out += [item for item in value if isinstance(item, _AST)]
    return out


def canonical(tree, bound):
    """``tree`` (an :class:`ast.Module`) rewritten in its canonical form, in place;
    ``bound``: the names the file binds (the ones a copier may rename)."""
    _spell(tree)
    for scope in _scopes(tree):
        drop_unread(scope)
    _Canonical(bound)(tree)
    return tree


# -- no-ops and spelling ------------------------------------------------------------------
def _no_op(statement):
    """Whether a statement does nothing a copy could be told by."""
    if isinstance(statement, ast.Pass):
        return True
    if not isinstance(statement, ast.Expr):
        return False
    value = statement.value
    return isinstance(value, ast.Constant) or (
        isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
        and value.func.id == 'print')


_BODIES = ('body', 'orelse', 'finalbody', 'handlers', 'cases')


def _spell(node):
    """Every block under ``node`` without its no-op statements, and with its augmented
    assignments spelled out (only statements hold blocks: expressions are not entered)."""
    for name in _BODIES:
        block = getattr(node, name, None)
        if not isinstance(block, list) or not block:
            continue
        if isinstance(block[0], ast.stmt):
            block = [_spelled(s) for s in block if not _no_op(s)]
            setattr(node, name, block)
        for item in block:
            _spell(item)


def _spelled(statement):
    """``x op= y`` as ``x = x op y``; any other statement as it is."""
    if not isinstance(statement, ast.AugAssign):
        return statement
    return ast.copy_location(ast.Assign(
        targets=[statement.target], value=ast.copy_location(
            ast.BinOp(left=_as_load(statement.target), op=statement.op,
                      right=statement.value), statement)), statement)


def _as_load(target):
    """A copy of an assignment's target that reads it."""
    node = copy.deepcopy(target)
    for child in ast.walk(node):
        if hasattr(child, 'ctx'):
            child.ctx = ast.Load()
    return node


# -- assignments never read --------------------------------------------------------------
_STATEMENT_FIELDS = frozenset(_BODIES)
"""The fields that hold statements (or handlers and cases, which hold statements): no
statement is ever found under an expression."""


def _scopes(tree):
    """The module and every function in it, in :func:`ast.walk`'s order (breadth first:
    only statements, handlers and cases are walked, the only nodes a function is found
    under, and each one's children are in line before it is given, as ``ast.walk`` has
    them: :func:`drop_unread` may change the blocks of the function given)."""
    todo = [tree]
    append = todo.append
    for node in todo:
        for field in node._fields:
            if field in _STATEMENT_FIELDS:
                block = getattr(node, field, None)
                if isinstance(block, list):
                    for item in block:
                        if isinstance(item, _AST):
                            append(item)
        if node is tree or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def _walk_scope(scope, assignments, live):
    """Collect the plain assignments of ``scope``'s own body into ``assignments`` (by id:
    ``(node, names written, names read)``) and every other name read (in nested functions
    too, which may read this scope's names) into ``live``."""
    stack = list(scope.body)
    while stack:
        node = stack.pop()
        names = _plain_assignment(node)
        if names is not None and id(node) not in assignments:
            assignments[id(node)] = (node, set(names), _loads(node.value))
            continue
        if isinstance(node, _SCOPES):
            live.update(_loads(node))
            continue
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                live.add(node.id)
            continue
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            live.update(node.names)
        stack += _children(node)


def _plain_assignment(node):
    """The names an assignment of plain names writes, or None for any other statement."""
    if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
        return None
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    names = []
    for target in targets:
        parts = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
        if not all(isinstance(p, ast.Name) for p in parts):
            return None
        names += [p.id for p in parts]
    return names


def _loads(node):
    """The names read under ``node``."""
    return {n.id for n in nodes(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def drop_unread(scope):
    """Drop the assignments of ``scope`` (a module or function) to names that nothing
    else there reads, following chains (``a = 1; b = a`` with ``b`` unread drops both)."""
    assignments, live = {}, set()
    _walk_scope(scope, assignments, live)
    _spread(assignments, live)
    dead = {key: node for key, (node, names, _) in assignments.items() if not names & live}
    if dead:
        _drop(scope, dead)


def _spread(assignments, live):
    """Add to ``live`` what the assignments to live names read, until nothing changes."""
    changed = True
    while changed:
        changed = False
        for _, names, reads in assignments.values():
            if names & live and not reads <= live:
                live |= reads
                changed = True


def _drop(node, dead):
    """The assignments ``dead`` (by id) dropped from the blocks under ``node``, or reduced
    to their value when it calls something.  They are statements of ``node``'s own scope
    (:func:`_walk_scope`): only its blocks are entered, not expressions (which hold no
    statement) nor the functions and classes in it."""
    for field in node._fields:
        if field not in _STATEMENT_FIELDS:
            continue
        block = getattr(node, field, None)
        if not isinstance(block, list):
            continue
        kept, changed = [], False
        for item in block:
            if id(item) not in dead:
                kept.append(item)
                if isinstance(item, _AST) and not isinstance(item, _SCOPES):
                    _drop(item, dead)
                continue
            changed = True
            if any(isinstance(n, ast.Call) and not (isinstance(n.func, ast.Name)
                                                    and n.func.id in PURE)
                   for n in nodes(item.value)):
                kept.append(ast.copy_location(ast.Expr(value=item.value), item))
        if changed:
            block[:] = kept


# -- loops, tests, operands ------------------------------------------------------------
def shape(node, bound):
    """The code of ``node`` with every name it binds as ``_``: what orders are made by."""
    return ' '.join([_word(child, bound) for child in nodes(node)])


def _is_name(node, name):
    return isinstance(node, ast.Name) and node.id == name


def _increment(statement, name):
    """Whether a statement is ``name = name + 1`` (or ``1 + name``)."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and _is_name(statement.targets[0], name)):
        return False
    value = statement.value
    return (isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add)
            and {_is_name(value.left, name), _is_name(value.right, name)} == {True, False}
            and any(isinstance(v, ast.Constant) and v.value == 1
                    for v in (value.left, value.right)))


def _counting_loop(first, loop):
    """``(name, start, stop)`` when ``first``, ``loop`` are ``i = a`` and ``while i < b:``
    ending in ``i = i + 1`` with no ``continue`` and no other write of ``i``, else None."""
    names = _plain_assignment(first)
    if not (names and len(names) == 1 and isinstance(loop, ast.While) and not loop.orelse
            and loop.body and isinstance(loop.test, ast.Compare)
            and len(loop.test.ops) == 1):
        return None
    name, test = names[0], loop.test
    if isinstance(test.ops[0], ast.Lt) and _is_name(test.left, name):
        stop = test.comparators[0]
    elif isinstance(test.ops[0], ast.Gt) and _is_name(test.comparators[0], name):
        stop = test.left
    else:
        return None
    if not _increment(loop.body[-1], name):
        return None
    for node in ast.walk(ast.Module(body=loop.body[:-1], type_ignores=[])):
        if isinstance(node, ast.Continue) or (
                isinstance(node, ast.Name) and node.id == name
                and not isinstance(node.ctx, ast.Load)):
            return None
    return name, first.value, stop


def counted(block):
    """``block`` with its counting ``while`` loops as ``for`` loops over a range."""
    out, at = [], 0
    while at < len(block):
        found = _counting_loop(block[at], block[at + 1]) if at + 1 < len(block) else None
        if found is None:
            out.append(block[at])
            at += 1
            continue
        name, start, stop = found
        loop = block[at + 1]
        start_is_zero = isinstance(start, ast.Constant) and start.value == 0
        call = ast.Call(func=ast.Name(id='range', ctx=ast.Load()),
                        args=[stop] if start_is_zero else [start, stop], keywords=[])
        target = ast.Name(id=name, ctx=ast.Store())
        new = ast.For(target=target, iter=call, body=loop.body[:-1], orelse=[],
                      type_comment=None)
        for node in (call, call.func, target, new):
            ast.copy_location(node, loop)
        out.append(_over_items(new))
        at += 2
    return out


def _over_items(loop):
    """``for i in range(len(s)): x = s[i]; ...`` (``i`` read nowhere else) as ``for x in
    s: ...``; any other loop as it is."""
    it = loop.iter
    if not (isinstance(loop.target, ast.Name) and isinstance(it, ast.Call)
            and _is_name(it.func, 'range') and len(it.args) == 1 and loop.body
            and isinstance(it.args[0], ast.Call) and _is_name(it.args[0].func, 'len')
            and len(it.args[0].args) == 1):
        return loop
    index, sequence, first = loop.target.id, it.args[0].args[0], loop.body[0]
    names = _plain_assignment(first)
    value = getattr(first, 'value', None)
    if not (names and len(names) == 1 and isinstance(value, ast.Subscript)
            and _is_name(value.slice, index)
            and ast.dump(value.value) == ast.dump(sequence)):
        return loop
    rest = ast.Module(body=loop.body[1:], type_ignores=[])
    if any(_is_name(n, index) for n in ast.walk(rest)):
        return loop
    loop.target = ast.copy_location(ast.Name(id=names[0], ctx=ast.Store()), first)
    loop.iter = sequence
    loop.body = loop.body[1:]
    return loop


def negative(test):
    """Whether a test reads as a negation (``not x``, ``a != b``, ``a >= b``...)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return True
    return (isinstance(test, ast.Compare) and len(test.ops) == 1
            and type(test.ops[0]) in _NEGATED)


def negated(test):
    """The positive test of a :func:`negative` one."""
    if isinstance(test, ast.UnaryOp):
        return test.operand
    test.ops = [_NEGATED[type(test.ops[0])]()]
    return test


class _Canonical:
    """Rewrites a tree bottom-up: each node's children first, then the node (loops,
    if/else, comparisons and commutative operands in their canonical form), each block's
    statements in their canonical order once they are canonical themselves."""

    def __init__(self, bound):
        self.bound = bound
        self.facts = _Facts(bound)

    def __call__(self, node):
        for field in _FIELDS[type(node)]:
            value = getattr(node, field, None)
            if isinstance(value, _AST):
                new = self(value)
                if new is not value:
                    setattr(node, field, new)
            elif isinstance(value, list) and value:
                if isinstance(value[0], ast.stmt):
                    block = [self(s) for s in counted(value)]
                    setattr(node, field, ordered(block, self.facts))
                elif isinstance(value[0], _AST):
                    setattr(node, field, [self(v) if isinstance(v, _AST) else v
                                          for v in value])
        rewrite = _REWRITES.get(type(node).__name__)
        return node if rewrite is None else rewrite(self, node)

    def rewrite_For(self, node):
        return _over_items(node)

    def rewrite_If(self, node):
        if not node.body and node.orelse:
            node.test, node.body, node.orelse = _flipped(node.test), node.orelse, []
        while node.orelse and negative(node.test):
            node.test, node.body, node.orelse = negated(node.test), node.orelse, node.body
        if isinstance(node.test, ast.Compare):
            node.test = self.rewrite_Compare(node.test)
        return node

    def rewrite_IfExp(self, node):
        while negative(node.test):
            node.test, node.body, node.orelse = negated(node.test), node.orelse, node.body
        return node

    def rewrite_Compare(self, node):
        if len(node.ops) != 1:
            return node
        op = type(node.ops[0])
        left, right = node.left, node.comparators[0]
        if op in _MIRRORED:
            node.ops = [_MIRRORED[op]()]
            node.left, node.comparators = right, [left]
        elif op in _SYMMETRIC and shape(right, self.bound) < shape(left, self.bound):
            node.left, node.comparators = right, [left]
        return node

    def rewrite_BinOp(self, node):
        if not isinstance(node.op, _COMMUTATIVE):
            return node
        operands = sorted(_chain(node, type(node.op)), key=lambda n: shape(n, self.bound))
        out = operands[0]
        for operand in operands[1:]:
            out = ast.copy_location(ast.BinOp(left=out, op=type(node.op)(), right=operand),
                                    node)
        return out

    def rewrite_BoolOp(self, node):
        node.values = sorted(node.values, key=lambda n: shape(n, self.bound))
        return node


_REWRITES = {name[len('rewrite_'):]: function for name, function in vars(_Canonical).items()
             if name.startswith('rewrite_')}
"""The methods of :class:`_Canonical` that rewrite a node, by the name of its type."""


def _flipped(test):
    """The negation of a test: positive when it can be, else ``not test``."""
    if negative(test):
        return negated(test)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        flip = {ast.Eq: ast.NotEq, ast.In: ast.NotIn, ast.Is: ast.IsNot, ast.Lt: ast.GtE,
                ast.Gt: ast.LtE}.get(type(test.ops[0]))
        if flip:
            test.ops = [flip()]
            return test
    return ast.copy_location(ast.UnaryOp(op=ast.Not(), operand=test), test)


def _chain(node, op):
    """The operands of a chain of one commutative operator (``a + b + c``: a, b, c)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, op):
        return _chain(node.left, op) + _chain(node.right, op)
    return [node]


# -- the order of independent statements -------------------------------------------------
class _Facts:
    """What :func:`ordered` needs of each node, computed once, bottom-up: its shape (as
    :func:`shape`), the names it writes and reads (:data:`_HEAP` for objects), and whether
    it must stay where it is (it returns, breaks, raises, defines...)."""

    def __init__(self, bound):
        self.bound = bound
        self.memo = {}

    def __call__(self, node):
        found = self.memo.get(id(node))
        if found is None or found[0] is not node:
            found = self._of(node)
        return found[1:]

    def _of(self, node):
        """``(node, shape, writes, reads, stop)``, kept in :attr:`memo`.  The sets are
        shared, never changed once made: most nodes write and read nothing, or what one
        child does (a tree of thousands of nodes gets few sets)."""
        kind, stop, word = _KINDS[type(node)]
        if kind <= _ATTRIBUTE:  # a name, constant or attribute: a word of its own
            word = _word(node, self.bound)
        writes, reads = _OWN[kind](node) if kind != _OTHER else _NEITHER
        words = [word]
        memo = self.memo
        for field in _FIELDS[type(node)]:
            value = getattr(node, field, None)
            if isinstance(value, _AST):
                children = (value,)
            elif isinstance(value, list):
                children = value
            else:
                continue
            for child in children:
                if not isinstance(child, _AST):
                    continue
                found = memo.get(id(child))
                if found is None or found[0] is not child:
                    found = self._of(child)
                _, child_words, child_writes, child_reads, child_stop = found
                words.append(child_words)
                if child_writes and child_writes is not writes:
                    writes = child_writes if not writes else writes | child_writes
                if child_reads and child_reads is not reads:
                    reads = child_reads if not reads else reads | child_reads
                stop = stop or child_stop
        found = memo[id(node)] = (node, ' '.join(words), writes, reads, stop)
        return found


_NOTHING = frozenset()
_OBJECTS = frozenset({_HEAP})
_NEITHER = (_NOTHING, _NOTHING)
_NAME, _CONSTANT, _ATTRIBUTE, _SUBSCRIPT, _CALL, _SCOPED, _OTHER = range(7)


def _accessed(node):
    """``(writes, reads)`` of a name, subscript or attribute (not of what is under it)."""
    touched = {node.id} if isinstance(node, ast.Name) else _OBJECTS
    return (_NOTHING, touched) if isinstance(node.ctx, ast.Load) else (touched, _NOTHING)


def _called(node):
    if isinstance(node.func, ast.Name) and node.func.id in PURE:
        return _NEITHER
    return _OBJECTS, _NOTHING


_OWN = {_NAME: _accessed, _CONSTANT: lambda node: _NEITHER, _ATTRIBUTE: _accessed,
        _SUBSCRIPT: _accessed, _CALL: _called, _SCOPED: lambda node: (_NOTHING, _OBJECTS)}
"""``(writes, reads)`` of a node itself, by its kind (:data:`_KINDS`): what :class:`_Facts`
adds to what its children write and read."""


def _kind(node_type):
    """``(kind, whether it must stay where it is (:data:`_STOPS`), its name)`` of a type of
    node: what :func:`_word` and :class:`_Facts` tell apart."""
    for types, kind in ((ast.Name, _NAME), (ast.Constant, _CONSTANT),
                        (ast.Attribute, _ATTRIBUTE), (ast.Subscript, _SUBSCRIPT),
                        (ast.Call, _CALL), ((ast.Lambda, ast.comprehension), _SCOPED)):
        if issubclass(node_type, types):
            break
    else:
        kind = _OTHER
    return kind, issubclass(node_type, _STOPS), node_type.__name__


_KINDS = PerType(_kind)


def _word(node, bound):
    kind, _, name = _KINDS[type(node)]
    if kind == _NAME:
        return '_' if node.id in bound or node.id not in _BUILTINS else node.id
    if kind == _CONSTANT:
        return repr(node.value)[:20]
    if kind == _ATTRIBUTE:
        return '.' + ('_' if node.attr in bound else node.attr)
    return name


def ordered(block, facts):
    """``block`` in the canonical order: the statements any of whose orders computes the
    same are sorted by their shape; every statement stays after the ones it depends on
    (Kahn's algorithm with the smallest shape first).  ``facts``: a :class:`_Facts`."""
    if len(block) < 2:
        return block
    known = [facts(s) for s in block]
    after = [[] for _ in block]
    waiting = [0] * len(block)
    for j, (_, w2, r2, stop2) in enumerate(known):
        # statement j depends on an earlier one i when either must stay where it is, or
        # one writes what the other reads or writes
        touched = w2 | r2
        for i in range(j):
            _, w1, r1, stop1 = known[i]
            if stop1 or stop2 or w1 & touched or w2 & r1:
                after[i].append(j)
                waiting[j] += 1
    ready = [(known[i][0], i) for i in range(len(block)) if not waiting[i]]
    heapq.heapify(ready)
    out = []
    while ready:
        _, i = heapq.heappop(ready)
        out.append(block[i])
        for j in after[i]:
            waiting[j] -= 1
            if not waiting[j]:
                heapq.heappush(ready, (known[j][0], j))
    return out
