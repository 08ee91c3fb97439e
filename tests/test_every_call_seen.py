"""The counter sees every call of a search, however the interpreter makes it.

From Python 3.11 on the interpreter runs a call between Python functions inside its
caller's evaluation once the call site is specialised (a plain call, a bound method, a
property, ``__getitem__``, ``__getattribute__``, a class's ``__init__``, a generator in a
``for`` loop).  The counter must see each such call all the same: a search that recursed
through any one of them would otherwise go uncounted.  One submission makes ``CALLS``
calls by each route, from call sites specialised before the counter watched (a warm-up at
import) and after; its ``calls`` and ``nodes`` are read from the tally the runner read, as
the judges read them.  Run by ``make matrix`` on every Python from 3.9 to 3.13.
"""
import pytest

from grader import instruments
from grader.child import tally
from grader.judging import tallies
from grader.sandbox import layers
from grader.sandbox.session import Session

CALLS = 300
DEPTH = 40
ROUTES = ('plain', 'defaults', 'method', 'property', 'getitem', 'getattribute', 'init',
          'lambda', 'closure', 'partial', 'stored', 'executed', 'key', 'map', 'super',
          'generator-body')
RECURSIONS = ('plain', 'method', 'getitem', 'init', 'property', 'lambda', 'generator')
FLAGGED = {'lambda': 'unnamed-recursion', 'generator': 'generator-recursion'}
"""Recursions the counter flags rather than counts (through lambdas alone, generators)."""

SUBMISSION = f'''
import functools

CALLS, DEPTH = {CALLS}, {DEPTH}
ROUTES = {ROUTES!r}
RECURSIONS = {RECURSIONS!r}


def f(x):
    return x


def with_defaults(x, y=1, z=2):
    return x


class Box:
    def __init__(self, x):
        self.x = x

    def method(self, x):
        return x

    @property
    def value(self):
        return 1

    def __getitem__(self, i):
        return i


class Seen:
    def __getattribute__(self, name):
        return 1


class Base:
    def method(self, x):
        return x


class Child(Base):
    def method(self, x):
        return super().method(x)


def closure():
    def inner(x):
        return x
    return inner


exec("def executed(x):\\n    return x\\n")
inner = closure()
partial = functools.partial(with_defaults, y=3)
stored = {{'f': f}}
square = lambda x: x


def numbers(n):
    for i in range(n):
        yield f(i)


def route_calls(route):
    """``CALLS`` calls by ``route``: one frame of Python each."""
    box, seen, child = Box(0), Seen(), Child()
    total = 0
    if route == 'super':          # Child.method and, through super(), Base.method
        for i in range(CALLS // 2):
            total += child.method(i)
        return total
    if route == 'generator-body':  # f, called from a generator's body: CALLS frames
        return sum(numbers(CALLS))
    for i in range(CALLS):
        if route == 'plain':
            total += f(i)
        elif route == 'defaults':
            total += with_defaults(i)
        elif route == 'method':
            total += box.method(i)
        elif route == 'property':
            total += box.value
        elif route == 'getitem':
            total += box[i]
        elif route == 'getattribute':
            total += seen.anything
        elif route == 'init':
            total += Box(i).x
        elif route == 'lambda':
            total += square(i)
        elif route == 'closure':
            total += inner(i)
        elif route == 'partial':
            total += partial(i)
        elif route == 'stored':
            total += stored['f'](i)
        elif route == 'executed':
            total += executed(i)
    if route == 'key':
        total += len(sorted(range(CALLS), key=f))
    if route == 'map':
        total += sum(map(f, range(CALLS)))
    return total


class Down:
    def __init__(self, n):
        self.child = Down(n - 1) if n else None

    def method(self, n):
        return self.method(n - 1) if n else 0

    def __getitem__(self, n):
        return self[n - 1] if n else 0

    @property
    def deeper(self):
        self.n -= 1
        return self.deeper if self.n else 0


def down(n):
    return down(n - 1) if n else 0


lambda_down = lambda n: lambda_down(n - 1) if n else 0


def generator_down(n):
    if n:
        yield from generator_down(n - 1)
    yield n


def recursion(route):
    """A recursion ``DEPTH`` calls deep through ``route``."""
    if route == 'plain':
        return down(DEPTH)
    if route == 'method':
        return Down(0).method(DEPTH)
    if route == 'getitem':
        return Down(0)[DEPTH]
    if route == 'init':
        return Down(DEPTH) and 0
    if route == 'property':
        box = Down(0)
        box.n = DEPTH + 1
        return box.deeper
    if route == 'lambda':
        return lambda_down(DEPTH)
    if route == 'generator':
        return sum(generator_down(DEPTH))


def board(first, number):
    """The board that asks for route (or recursion) ``number``: its bits in cells 1-8."""
    return [first] + ['X' if number >> i & 1 else '-' for i in range(8)]


def Minimax(board, maximizing, player):
    """The board's first cell picks what to do: '-' nothing, 'X' a route's calls, 'O' a
    recursion; the other eight cells spell which one, in binary."""
    number = sum(1 << i for i, mark in enumerate(board[1:]) if mark == 'X')
    if board[0] == 'X':
        route_calls(ROUTES[number])
    elif board[0] == 'O':
        recursion(RECURSIONS[number])
    return 0


for _warm in range(30):         # every call site specialised before the counter watches
    for _r in range(len(ROUTES)):
        Minimax(board('X', _r), True, 'X')
    for _r in range(len(RECURSIONS)):
        Minimax(board('O', _r), True, 'X')
'''


def board(first, number):
    """The board that asks for route (or recursion) ``number``: its bits in cells 1-8."""
    return [first] + ['X' if number >> i & 1 else '-' for i in range(8)]


def searched(folder, boards):
    """The :class:`tallies.Counted` of one counted search of each board, in one sandbox."""
    folder.mkdir()
    (folder / 'tictactoe.py').write_text(SUBMISSION)
    found = []
    with Session(folder, 'tictactoe.py', 'grader.exercises.tictactoe.probe',
                 isolation=layers.detect()) as box:
        assert box.start().ok
        for cells in boards:
            reply = box.call({'board': cells, 'maximizing': True, 'player': 'X',
                              'count': True, 'reps': 1}, 30.0)
            assert reply.ok, reply.error
            found.append(tallies.counted(reply))
    return found


@pytest.fixture(scope='module')
def tallied(tmp_path_factory):
    if not tally.loaded() and not tally.load(None):
        pytest.skip(instruments.missing_counter_line(official=False))
    boards = ([board('-', 0)] + [board('X', r) for r in range(len(ROUTES))]
              + [board('O', r) for r in range(len(RECURSIONS))])
    counted = searched(tmp_path_factory.mktemp('every-call') / 'submission', boards)
    for one in counted[:1 + len(ROUTES)]:
        assert one.intact, one.problem
    nothing = counted[0]
    return (nothing, dict(zip(ROUTES, counted[1:1 + len(ROUTES)])),
            dict(zip(RECURSIONS, counted[1 + len(ROUTES):])))


@pytest.mark.parametrize('route', ROUTES)
def test_every_call_by_every_route_is_counted(route, tallied):
    nothing, routes, _ = tallied
    plain = routes['plain'].calls[0] - nothing.calls[0]
    extra = routes[route].calls[0] - nothing.calls[0]
    # the plain loop's own frames (route_calls) beside its CALLS calls of f
    overhead = plain - CALLS
    assert 0 < overhead < 5, f'the plain route counted {plain} frames for {CALLS} calls'
    assert extra - overhead == CALLS, (
        f'{route}: {extra - overhead} calls counted where the search made {CALLS}')


@pytest.mark.parametrize('route', RECURSIONS)
def test_a_recursion_through_every_route_is_a_recursion(route, tallied):
    _, _, recursions = tallied
    counted = recursions[route]
    if route in FLAGGED:
        # a recursion the counter cannot name, or follow: it says so, and counts nothing
        assert FLAGGED[route] in counted.flags and not counted.intact, counted.flags
        return
    assert counted.intact, counted.problem
    assert counted.nodes[0] == DEPTH + 1, (
        f'{route}: {counted.nodes[0]} nodes counted for a recursion {DEPTH + 1} calls deep')
    assert counted.depth >= DEPTH + 1
