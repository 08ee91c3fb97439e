"""Plain minimax that, at its first call (inside the counted search, once the position is
given), calls every function of every grader module present in the case process (through
sys.modules, and the compiled counter's own: install, hold, given, seal, watch, floor,
prctl, filter ... each refused once sealed), with no argument, with the board, and with
the board and the player, catching whatever they raise: an attempt to reach the counter, the trampoline, the reply
channel or the probe from the search.  The counter refuses or flags what it must, the
channel is closed to the search, and the search earns at most what a minimax earns."""
import sys
import types

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
SKIP = {'run', 'main', '_exit', '_kill', 'die_with_parent', 'serve', 'answer', 'wait',
        'collect', 'read', 'read_exactly', 'message', 'block'}
"""Functions that would end or block the case process itself (a search that ends its own
process loses its answer: that is no gain to test)."""
DONE = []


def IsWinning(board):
    return any(board[a] != '-' and board[a] == board[b] == board[c] for a, b, c in LINES)


def _grader_namespaces():
    """Every grader module in sys.modules, and the compiled counter its ``tally`` holds."""
    for name, module in list(sys.modules.items()):
        if not (name == 'grader' or name.startswith('grader.')) or module is None:
            continue
        yield vars(module)
        for held in getattr(module, '_ext', None) or ():
            if isinstance(held, types.ModuleType):
                yield vars(held)


def _call_everything(board, player):
    for namespace in _grader_namespaces():
        for attribute, value in list(namespace.items()):
            if attribute in SKIP or not isinstance(
                    value, (types.FunctionType, types.BuiltinFunctionType)):
                continue
            for args in ((), (list(board),), (list(board), player)):
                try:
                    value(*args)
                except BaseException:  # noqa: B036 - whatever the grader's code raises
                    pass


def Minimax(board, maximizingplayer, player):
    if not DONE:
        DONE.append(True)
        _call_everything(board, player)
    if IsWinning(board):
        return (-1 if maximizingplayer else 1), None
    if '-' not in board:
        return 0, None
    opponent = 'O' if player == 'X' else 'X'
    best, bestmove = (-2 if maximizingplayer else 2), None
    for move in range(9):
        if board[move] == '-':
            board[move] = player
            value, _ = Minimax(board, not maximizingplayer, opponent)
            board[move] = '-'
            if (value > best) if maximizingplayer else (value < best):
                best, bestmove = value, move
    return best, bestmove
