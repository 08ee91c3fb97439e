"""The obfuscations copy tools and language models make, as a generator of disguised copies.

As the bug library makes mutants of a solution, :func:`disguised` makes a
copy of one that hides what it is with up to a few of these edits (each a
function of a parsed module and a seeded random generator, returning
whether it changed anything); the copy is written out by ``ast.unparse``,
so comments, blank lines and layout change as well:

- ``no_ops``: a no-op after every statement of every function: a dead
  assignment, ``pass``, an unused variable or a print of a constant;
- ``reordered``: adjacent independent assignments swapped;
- ``swapped_operands``: ``a < b`` as ``b > a``, ``a == b`` as ``b == a``,
  ``a + b`` as ``b + a`` (and ``*``);
- ``spelled_out``: ``x += y`` as ``x = x + y``;
- ``while_loops``: ``for i in range(a, b)`` and ``for x in xs`` as ``while``
  loops with a counter;
- ``swapped_branches``: ``if c: A else: B`` as ``if not c: B else: A``;
- ``extracted_helper``: an expression of a function moved into a helper
  function of its own, called in its place;
- ``inlined_helper``: a one-line helper's calls replaced by its expression;
- ``dead_function``: a function nothing calls added.

The edits keep what the program computes (the generator is for tests of
copy detection, not of grading: the copies are not run).
"""
import ast
import builtins
import copy
import itertools
import random

_BUILTINS = frozenset(dir(builtins))


def _walk(node):
    """:func:`ast.walk` (the same nodes in the same order, each one's children in line
    before it is given), at half the cost: the tests make thousands of copies."""
    todo = [node]
    for node in todo:
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                todo += [item for item in value if isinstance(item, ast.AST)]
            elif isinstance(value, ast.AST):
                todo.append(value)
        yield node


_BLOCKS = frozenset({'body', 'orelse', 'finalbody', 'handlers', 'cases'})
"""The fields that hold statements (or the handlers and cases that hold some)."""


def _statements(node):
    """The statements under ``node`` (``node`` first), with the ``except`` handlers and
    ``match`` cases that hold some, in :func:`_walk`'s order (each one's children in line
    before it is given): expressions, which hold no statement, are not entered."""
    todo = [node]
    for node in todo:
        for field in node._fields:
            if field in _BLOCKS:
                value = getattr(node, field, None)
                if isinstance(value, list):
                    todo += [item for item in value if isinstance(item, ast.AST)]
        yield node


def _functions(tree):
    for node in _statements(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def _blocks(tree):
    """Every statement list of the functions of ``tree``."""
    for function in _functions(tree):
        for node in _statements(function):
            for name in ('body', 'orelse'):
                block = getattr(node, name, None)
                if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                    yield node, name, block


def _statement(code):
    return ast.parse(code).body[0]


# -- the obfuscations --------------------------------------------------------------------
def no_ops(tree, rng):
    """A no-op after every statement of every function."""
    changed = False
    for node, name, block in list(_blocks(tree)):
        out = []
        for statement in block:
            out.append(statement)
            number = rng.randrange(1000)
            out.append(_statement(rng.choice([
                f'unused_{number} = {number}', 'pass', f'print_guard_{number} = None',
                f"print('{'-' * (number % 7)}')", f'scratch_{number} = len("abc") * 2'])))
            changed = True
        setattr(node, name, out)
    return changed


def _names(node, ctx):
    return {n.id for n in _walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)}


def _simple_assignment(statement):
    return (isinstance(statement, ast.Assign)
            and all(isinstance(t, ast.Name) for t in statement.targets)
            and not any(isinstance(n, (ast.Call, ast.Subscript, ast.Attribute))
                        for n in _walk(statement.value)))


def reordered(tree, rng):
    """Adjacent assignments of plain values to names, independent of each other, swapped."""
    changed = False
    for _, _, block in _blocks(tree):
        for i in range(len(block) - 1):
            one, other = block[i], block[i + 1]
            if not (_simple_assignment(one) and _simple_assignment(other)):
                continue
            w1, r1 = _names(one, ast.Store), _names(one, ast.Load)
            w2, r2 = _names(other, ast.Store), _names(other, ast.Load)
            if not (w1 & (w2 | r2) or w2 & r1):
                block[i], block[i + 1] = other, one
                changed = True
    return changed


_MIRROR = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE,
           ast.Eq: ast.Eq, ast.NotEq: ast.NotEq}


def _swapped(node):
    """Whether ``node`` is a comparison or a ``+`` or ``*`` whose operands were swapped (each
    node on its own: the order nodes are swapped in changes nothing)."""
    if isinstance(node, ast.Compare):
        if len(node.ops) == 1 and type(node.ops[0]) in _MIRROR:
            node.left, node.comparators = node.comparators[0], [node.left]
            node.ops = [_MIRROR[type(node.ops[0])]()]
            return True
    elif isinstance(node, ast.BinOp):
        if isinstance(node.op, (ast.Add, ast.Mult)) and not any(
                isinstance(n, ast.Constant) and isinstance(n.value, str)
                for n in (node.left, node.right)):
            node.left, node.right = node.right, node.left
            return True
    return False


def swapped_operands(tree, rng):
    """The operands of comparisons and of ``+`` and ``*`` swapped."""
    changed = False
    for function in list(_functions(tree)):
        for node in _walk(function):
            changed = _swapped(node) or changed
    return changed


def _spelled(node):
    read = copy.deepcopy(node.target)
    for child in ast.walk(read):
        if hasattr(child, 'ctx'):
            child.ctx = ast.Load()
    return ast.Assign(targets=[node.target], value=ast.BinOp(read, node.op, node.value),
                      lineno=node.lineno)


def spelled_out(tree, rng):
    """Augmented assignments spelled out (statements: only blocks hold them)."""
    changed = False
    for node in _statements(tree):
        for field in node._fields:
            block = getattr(node, field, None) if field in _BLOCKS else None
            if isinstance(block, list) and any(isinstance(s, ast.AugAssign) for s in block):
                block[:] = [_spelled(s) if isinstance(s, ast.AugAssign) else s for s in block]
                changed = True
    return changed


def _as_while(loop, number):
    """The ``while`` statements of a ``for`` loop, or None when it is not a simple one."""
    if loop.orelse or not isinstance(loop.target, ast.Name) or any(
            isinstance(n, ast.Continue) for n in _walk(loop)):
        return None
    it, target = loop.iter, loop.target.id
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == 'range' \
            and 1 <= len(it.args) <= 2 and not it.keywords:
        start = ast.unparse(it.args[0]) if len(it.args) == 2 else '0'
        stop = ast.unparse(it.args[-1])
        head = [_statement(f'{target} = {start}')]
        loop_code = f'while {target} < {stop}:\n    pass'
        body, step = loop.body, _statement(f'{target} += 1')
    elif isinstance(it, ast.Name):
        counter = f'position_{number}'
        head = [_statement(f'{counter} = 0')]
        loop_code = f'while {counter} < len({it.id}):\n    pass'
        body = [_statement(f'{target} = {it.id}[{counter}]')] + loop.body
        step = _statement(f'{counter} += 1')
    else:
        return None
    new = _statement(loop_code)
    new.body = body + [step]
    return head + [new]


def while_loops(tree, rng):
    """``for`` loops over a range or a name written as ``while`` loops."""
    changed = False
    for node, name, block in list(_blocks(tree)):
        out = []
        for statement in block:
            loops = _as_while(statement, rng.randrange(1000)) \
                if isinstance(statement, ast.For) else None
            out += loops or [statement]
            changed = changed or bool(loops)
        setattr(node, name, out)
    return changed


def swapped_branches(tree, rng):
    """``if c: A else: B`` as ``if not c: B else: A``."""
    changed = False
    for function in _functions(tree):
        for node in _statements(function):
            if isinstance(node, ast.If) and node.orelse and not (
                    len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If)):
                node.test = ast.UnaryOp(op=ast.Not(), operand=node.test)
                node.body, node.orelse = node.orelse, node.body
                changed = True
    return changed


def _free_names(expression, module_names):
    return sorted(n for n in _names(expression, ast.Load)
                  if n not in _BUILTINS and n not in module_names)


def extracted_helper(tree, rng):
    """The largest expression of a function's statements (a test, a value assigned or
    returned) moved into a helper of its own."""
    module_names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef,
                                                                ast.ClassDef))}
    module_names |= {t.id for n in tree.body if isinstance(n, ast.Assign)
                     for t in n.targets if isinstance(t, ast.Name)}
    candidates = []
    for function in _functions(tree):
        for node in _statements(function):
            if not isinstance(node, ast.stmt):
                continue
            for field in ('test', 'value'):
                expression = getattr(node, field, None)
                if not isinstance(expression, ast.expr):
                    continue
                inside = list(_walk(expression))
                if not any(isinstance(n, (ast.Yield, ast.Await, ast.NamedExpr, ast.Lambda))
                           for n in inside):
                    candidates.append((len(inside), node, field))
    if not candidates:
        return False
    _, node, field = max(candidates, key=lambda c: c[0])
    expression = getattr(node, field)
    parameters = _free_names(expression, module_names)
    name = f'helper_{rng.randrange(1000)}'
    helper = _statement(f'def {name}({", ".join(parameters)}):\n    return None')
    helper.body[0].value = expression
    setattr(node, field, ast.parse(f'{name}({", ".join(parameters)})', mode='eval').body)
    tree.body.append(helper)
    return True


class _Inliner(ast.NodeTransformer):
    def __init__(self, helper):
        self.helper = helper
        self.changed = False

    def visit_Call(self, node):
        self.generic_visit(node)
        parameters = [a.arg for a in self.helper.args.args]
        if not (isinstance(node.func, ast.Name) and node.func.id == self.helper.name
                and len(node.args) == len(parameters) and not node.keywords):
            return node
        values = dict(zip(parameters, node.args))
        body = copy.deepcopy(self.helper.body[0].value)
        for child in _walk(body):
            for field, value in ast.iter_fields(child):
                if isinstance(value, ast.Name) and value.id in values:
                    setattr(child, field, copy.deepcopy(values[value.id]))
                elif isinstance(value, list):
                    value[:] = [copy.deepcopy(values[v.id]) if isinstance(v, ast.Name)
                                and v.id in values else v for v in value]
        self.changed = True
        return body


def inlined_helper(tree, rng):
    """A helper whose body is one ``return`` of an expression replaced, where it is
    called, by that expression (its parameters replaced by the arguments)."""
    for helper in [n for n in tree.body if isinstance(n, ast.FunctionDef)]:
        if not (len(helper.body) == 1 and isinstance(helper.body[0], ast.Return)
                and helper.body[0].value is not None and not helper.args.defaults
                and not helper.args.vararg and not helper.args.kwarg
                and not isinstance(helper.body[0].value, ast.Name)):
            continue
        inliner = _Inliner(helper)
        for function in _functions(tree):
            if function is not helper:
                inliner.visit(function)
        if inliner.changed:
            return True
    return False


DEAD = '''def summary_{n}(values):
    """The sum and the largest of some values."""
    total = 0
    largest = None
    for value in values:
        total = total + value
        if largest is None or value > largest:
            largest = value
    return total, largest
'''


def dead_function(tree, rng):
    """A function nothing calls added."""
    tree.body.insert(rng.randrange(len(tree.body) + 1), _statement(
        DEAD.format(n=rng.randrange(1000))))
    return True


OBFUSCATIONS = {f.__name__: f for f in (
    no_ops, reordered, swapped_operands, spelled_out, while_loops, swapped_branches,
    extracted_helper, inlined_helper, dead_function)}


def obfuscated(text, names, seed=0):
    """``(tree, applied)``: the module of ``text`` with the obfuscations ``names`` (in that
    order) applied, and the names of those that changed something."""
    tree = ast.parse(text)
    rng = random.Random(seed)
    return tree, [name for name in names if OBFUSCATIONS[name](tree, rng)]


def written(tree):
    """The code of an :func:`obfuscated` tree.  ``ast.unparse`` reads no position but the
    line of a statement that may carry a type comment (to look it up in the module's
    ``type_ignores``, which ``ast.parse`` leaves empty): the statements the obfuscations
    make are parsed, or given the line of the one they replace, and no other position is
    filled in (``ast.fix_missing_locations`` would cost as much as the obfuscations)."""
    return ast.unparse(tree) + '\n'


def disguised(text, names, seed=0):
    """``text`` with the obfuscations ``names`` (in that order) applied, and the names of
    those that changed something."""
    tree, applied = obfuscated(text, names, seed)
    return written(tree), applied


def combinations(most=3):
    """Every set of at most ``most`` obfuscations, as tuples of names."""
    for size in range(1, most + 1):
        yield from itertools.combinations(OBFUSCATIONS, size)
