"""Tries every way it knows to start a process, at import, and says which ones worked.

A process that starts only writes a marker, ``started-<way>``, into the
folder of the path in target.txt beside it (a folder the test owns), and
exits; a forked copy of this process writes it and leaves with ``os._exit``.
The ways: os.fork, os.posix_spawn, os.system, os.spawnv, subprocess,
``_posixsubprocess.fork_exec`` (through multiprocessing's own call of it),
a ``fork_exec`` bound before the guards were installed (``subprocess``
imports it by name), multiprocessing with the fork, spawn and forkserver
start methods, pty.spawn, ctypes' fork, and ways around the stand-ins:
``importlib.reload`` of posix and _posixsubprocess, deleting them from
sys.modules and importing them again, a fresh module from their spec, and
os.execv last.  The summary (the ways not refused) ends the import as an
exception, which the report shows as a warning; the search below is the
reference's alpha-beta.
"""
import os
import sys

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8),
         (0, 3, 6), (1, 4, 7), (2, 5, 8),
         (0, 4, 8), (2, 4, 6))


def IsWinning(board):
    """True when any line holds three equal marks."""
    return any(board[a] != '-' and board[a] == board[b] == board[c] for a, b, c in LINES)


def PrintBoard(board):
    for row in (6, 3, 0):
        print(' | '.join(board[row:row + 3]))


def Minimax(board, maximizingplayer, player, alpha=-1, beta=1):
    """Alpha-beta: (bestvalue, bestmove), values from the maximizer's side."""
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
        value, _ = Minimax(board, not maximizingplayer, opponent, alpha, beta)
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


def _folder():
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, 'target.txt')) as f:
        return os.path.dirname(f.read().strip())


def _marker(way):
    return os.path.join(_folder(), f'started-{way}')


def _shell(way):
    """A program that writes the way's marker and ends."""
    return ['/bin/sh', '-c', f'echo started > {_marker(way)}']


def _write(way):
    with open(_marker(way), 'w') as f:
        f.write('started\n')


def _wait(pid):
    if isinstance(pid, int) and pid > 0:
        os.waitpid(pid, 0)


def _fork(fork, way):
    pid = fork()
    if pid == 0:
        try:
            _write(way)
        finally:
            os._exit(0)
    _wait(pid)


def _spawn_fork_exec(way):
    import multiprocessing.util
    argv = _shell(way)
    _wait(multiprocessing.util.spawnv_passfds(os.fsencode(argv[0]), argv, ()))


def _prebound(way):
    """The fork_exec a module bound by name before the guards (subprocess does)."""
    import _posixsubprocess
    import subprocess
    found = getattr(subprocess, '_fork_exec', None)
    if found is None:
        return 'absent'
    _posixsubprocess.fork_exec = found
    _spawn_fork_exec(way)


def _multiprocessing(method):
    import multiprocessing
    context = multiprocessing.get_context(method)
    if method != 'fork':
        # The program a spawned process (and the helpers it starts) runs: a marker only.
        script = os.path.join(_folder(), f'{method}.sh')
        with open(script, 'w') as f:
            f.write(f'#!/bin/sh\necho started > {_marker("mp-" + method)}\n')
        os.chmod(script, 0o755)
        context.set_executable(script)
    process = context.Process(target=_write, args=(f'mp-{method}',))
    process.start()
    process.join(5)


def _reload(name, way):
    import importlib
    module = importlib.reload(importlib.import_module(name))
    return _use(module, way)


def _reimport(name, way):
    import importlib
    del sys.modules[name]
    return _use(importlib.import_module(name), way)


def _fresh(name, way):
    import importlib.util
    module = importlib.util.module_from_spec(importlib.util.find_spec(name))
    return _use(module, way)


def _use(module, way):
    if hasattr(module, 'fork_exec'):
        sys.modules['_posixsubprocess'] = module
        return _spawn_fork_exec(way)
    return _fork(module.fork, way)


def _ctypes_fork(way):
    import ctypes
    return _fork(ctypes.CDLL(None).fork, way)


def _pty(way):
    import pty
    pty.spawn(_shell(way))


def _subprocess(way):
    import subprocess
    subprocess.run(_shell(way), timeout=5)


WAYS = {
    'fork': lambda: _fork(os.fork, 'fork'),
    'posix_spawn': lambda: _wait(os.posix_spawn('/bin/sh', _shell('posix_spawn'), {})),
    'system': lambda: os.system(' '.join(_shell('system')[2:])),
    'spawnv': lambda: os.spawnv(os.P_WAIT, '/bin/sh', _shell('spawnv')),
    'subprocess': lambda: _subprocess('subprocess'),
    'fork_exec': lambda: _spawn_fork_exec('fork_exec'),
    'prebound': lambda: _prebound('prebound'),
    'mp-fork': lambda: _multiprocessing('fork'),
    'mp-spawn': lambda: _multiprocessing('spawn'),
    'mp-forkserver': lambda: _multiprocessing('forkserver'),
    'pty': lambda: _pty('pty'),
    'ctypes': lambda: _ctypes_fork('ctypes'),
    'reload-posix': lambda: _reload('posix', 'reload-posix'),
    'reload-fork_exec': lambda: _reload('_posixsubprocess', 'reload-fork_exec'),
    'reimport-posix': lambda: _reimport('posix', 'reimport-posix'),
    'reimport-fork_exec': lambda: _reimport('_posixsubprocess', 'reimport-fork_exec'),
    'fresh-posix': lambda: _fresh('posix', 'fresh-posix'),
    'fresh-fork_exec': lambda: _fresh('_posixsubprocess', 'fresh-fork_exec'),
    'execv': lambda: os.execv('/bin/sh', _shell('execv')),
}


def _attempts():
    """``N ways tried; not refused: way=what happened, ...`` (or ``none``)."""
    said = []
    for way, attempt in WAYS.items():
        try:
            outcome = attempt() or 'ran'
        except PermissionError:
            continue
        except BaseException as exc:  # noqa: B036 - every outcome is reported
            outcome = type(exc).__name__
        if outcome != 'absent':        # nothing of the kind on this Python
            said.append(f'{way}={outcome}')
    return f'{len(WAYS)} ways tried; not refused: {", ".join(said) or "none"}'


raise RuntimeError(_attempts())
