"""Leaves a trace wherever a case can write, and looks first for the traces earlier cases
left: it answers a wrong value (7) whenever it finds one, so it keeps full marks only if
every case starts from nothing.

Its traces: a file in /tmp, the home folder, the project folder and /dev/shm; the end of
this very file, overwritten in place with its size and times put back; a System V shared
memory segment, message queue and semaphore set, and a POSIX message queue (through
ctypes, which the audit hook refuses: with it switched off, the kernel's filter decides);
and an abstract unix socket, bound and left open."""
import os

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8),
         (0, 3, 6), (1, 4, 7), (2, 5, 8),
         (0, 4, 8), (2, 4, 6))
NAME = 'grader-trace'
KEY = 0x7ACE
O_CREAT, O_RDONLY, O_RDWR, IPC_CREAT = 0o100, 0, 2, 0o1000
TRAILER = 48
_left = []          # what this process keeps open (a socket), until it ends


def IsWinning(board):
    """True when any line holds three equal marks."""
    return any(board[a] != '-' and board[a] == board[b] == board[c] for a, b, c in LINES)


def Minimax(board, maximizingplayer, player, alpha=-1, beta=1, top=True):
    """Alpha-beta: (bestvalue, bestmove), values from the maximizer's side; the value 7 when
    the search starts (``top``) where an earlier case left a trace."""
    if top:
        found = _found() + AT_IMPORT
        _leave()
        value, move = Minimax(board, maximizingplayer, player, alpha, beta, False)
        return (7 if found else value), move
    if IsWinning(board):
        return (-1 if maximizingplayer else 1), None
    if '-' not in board:
        return 0, None
    opponent = 'O' if player == 'X' else 'X'
    bestvalue, bestmove = (-2 if maximizingplayer else 2), None
    for move in range(9):
        if board[move] != '-':
            continue
        board[move] = player
        value, _ = Minimax(board, not maximizingplayer, opponent, alpha, beta, False)
        board[move] = '-'
        if maximizingplayer and value > bestvalue or not maximizingplayer and value < bestvalue:
            bestvalue, bestmove = value, move
        if maximizingplayer:
            alpha = max(alpha, bestvalue)
        else:
            beta = min(beta, bestvalue)
        if alpha >= beta:
            break
    return bestvalue, bestmove


def _ipc_found():
    """The System V objects and POSIX message queue an earlier case left."""
    found = []
    for kind in ('shm', 'msg', 'sem'):
        lines = _attempt(lambda: open(f'/proc/sysvipc/{kind}').read().splitlines()) or []
        if len(lines) > 1:
            found.append(f'System V {kind}')
    if (_attempt(lambda: _mq_open(O_RDONLY)) or -1) >= 0:
        found.append('POSIX message queue')
    return found


def _ipc_leave():
    _attempt(lambda: _libc().shmget(KEY, 4096, IPC_CREAT | 0o600))
    _attempt(lambda: _libc().msgget(KEY, IPC_CREAT | 0o600))
    _attempt(lambda: _libc().semget(KEY, 1, IPC_CREAT | 0o600))
    _attempt(lambda: _mq_open(O_CREAT | O_RDWR))


def _folders():
    return ['/tmp', os.path.expanduser('~'), os.path.dirname(os.path.abspath(__file__)),
            '/dev/shm']


def _libc():
    import ctypes
    return ctypes.CDLL('libc.so.6', use_errno=True)


def _mq_open(flags):
    import ctypes
    for library in ('libc.so.6', 'librt.so.1'):
        try:
            mq_open = ctypes.CDLL(library, use_errno=True).mq_open
        except (OSError, AttributeError):
            continue
        mq_open.restype = ctypes.c_int
        return mq_open(('/' + NAME).encode(), flags, 0o600, None)
    return -1


def _attempt(action):
    try:
        return action()
    except Exception:   # noqa: BLE001 - refused or missing here: no trace that way
        return None


def _found():
    """Where an earlier case's trace is."""
    found = []
    for folder in _folders():
        if NAME in (_attempt(lambda: os.listdir(folder)) or []):
            found.append(folder)
    own = os.path.abspath(__file__)
    with open(own, 'rb') as stream:
        if NAME.encode() in stream.read()[-TRAILER:]:
            found.append('this file')
    found += _ipc_found()
    if _attempt(_abstract_socket) == 'taken':
        found.append('abstract socket')
    return found


def _abstract_socket():
    import socket
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind('\0' + NAME)
    except OSError:
        sock.close()
        return 'taken'
    sock.listen(1)
    _left.append(sock)
    return 'bound'


def _leave():
    for folder in _folders():
        _attempt(lambda: open(os.path.join(folder, NAME), 'w').write(NAME))
    own = os.path.abspath(__file__)
    times = os.stat(own)

    def overwrite():
        with open(own, 'r+b') as stream:
            stream.seek(-TRAILER, 2)
            stream.write(('# ' + NAME).ljust(TRAILER - 1).encode() + b'\n')
    _attempt(overwrite)
    _attempt(lambda: os.utime(own, ns=(times.st_atime_ns, times.st_mtime_ns)))
    _ipc_leave()


# Also at import (each case process runs the module again), where ctypes may be allowed
# when a counted search refuses it.
AT_IMPORT = _ipc_found()
_ipc_leave()


#                                              
