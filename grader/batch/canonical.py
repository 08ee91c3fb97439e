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
def _scopes(tree):
    """The module and every function in it."""
    yield tree
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
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
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            live.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            live.update(node.names)
        stack.extend(ast.iter_child_nodes(node))


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
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Load)}


def drop_unread(scope):
    """Drop the assignments of ``scope`` (a module or function) to names that nothing
    else there reads, following chains (``a = 1; b = a`` with ``b`` unread drops both)."""
    assignments, live = {}, set()
    _walk_scope(scope, assignments, live)
    _spread(assignments, live)
    dead = {key: node for key, (node, names, _) in assignments.items() if not names & live}
    if dead:
        _Unread(dead).visit(scope)


def _spread(assignments, live):
    """Add to ``live`` what the assignments to live names read, until nothing changes."""
    changed = True
    while changed:
        changed = False
        for _, names, reads in assignments.values():
            if names & live and not reads <= live:
                live |= reads
                changed = True


class _Unread(ast.NodeTransformer):
    """The assignments ``dead`` (by id) dropped, or reduced to their value when it calls
    something."""

    def __init__(self, dead):
        self.dead = dead

    def visit_Assign(self, node):
        if id(node) not in self.dead:
            return self.generic_visit(node)
        if any(isinstance(n, ast.Call) and not (isinstance(n.func, ast.Name)
                                                and n.func.id in PURE)
               for n in ast.walk(node.value)):
            return ast.copy_location(ast.Expr(value=node.value), node)
        return None

    visit_AnnAssign = visit_Assign


# -- loops, tests, operands ------------------------------------------------------------
def shape(node, bound):
    """The code of ``node`` with every name it binds as ``_``: what orders are made by."""
    return ' '.join(_word(child, bound) for child in ast.walk(node)
                    if not isinstance(child, ast.expr_context))


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
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                if value and isinstance(value[0], ast.stmt):
                    block = [self(s) for s in counted(value)]
                    setattr(node, field, ordered(block, self.facts))
                elif value and isinstance(value[0], ast.AST):
                    setattr(node, field, [self(v) if isinstance(v, ast.AST) else v
                                          for v in value])
            elif isinstance(value, ast.AST):
                setattr(node, field, self(value))
        rewrite = getattr(self, 'rewrite_' + type(node).__name__, None)
        return node if rewrite is None else rewrite(node)

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
            found = self.memo[id(node)] = (node, *self._of(node))
        return found[1:]

    def _of(self, node):
        words, writes, reads = [_word(node, self.bound)], set(), set()
        stop = isinstance(node, _STOPS)
        if isinstance(node, ast.Name):
            (reads if isinstance(node.ctx, ast.Load) else writes).add(node.id)
        elif isinstance(node, (ast.Subscript, ast.Attribute)):
            (reads if isinstance(node.ctx, ast.Load) else writes).add(_HEAP)
        elif isinstance(node, ast.Call) and not (
                isinstance(node.func, ast.Name) and node.func.id in PURE):
            writes.add(_HEAP)
        elif isinstance(node, (ast.Lambda, ast.comprehension)):
            reads.add(_HEAP)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr_context):
                continue
            child_words, child_writes, child_reads, child_stop = self(child)
            words.append(child_words)
            writes |= child_writes
            reads |= child_reads
            stop = stop or child_stop
        return ' '.join(words), writes, reads, stop


def _word(node, bound):
    if isinstance(node, ast.Name):
        return '_' if node.id in bound or node.id not in _BUILTINS else node.id
    if isinstance(node, ast.Constant):
        return repr(node.value)[:20]
    if isinstance(node, ast.Attribute):
        return '.' + ('_' if node.attr in bound else node.attr)
    return type(node).__name__


def _depends(one, other):
    _, w1, r1, stop1 = one
    _, w2, r2, stop2 = other
    return stop1 or stop2 or bool(w1 & (w2 | r2) or w2 & r1)


def ordered(block, facts):
    """``block`` in the canonical order: the statements any of whose orders computes the
    same are sorted by their shape; every statement stays after the ones it depends on
    (Kahn's algorithm with the smallest shape first).  ``facts``: a :class:`_Facts`."""
    if len(block) < 2:
        return block
    known = [facts(s) for s in block]
    after = [[] for _ in block]
    waiting = [0] * len(block)
    for j in range(len(block)):
        for i in range(j):
            if _depends(known[i], known[j]):
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
