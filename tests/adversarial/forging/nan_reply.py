"""Writes a well-formed reply whose numbers are NaN and Infinity on the case process's
reply pipe, on positions with many empty cells; an honest alpha-beta elsewhere. Results
must never hold NaN or Infinity, and the JSON report must stay valid JSON."""
import os

from alphabeta_twin import IsWinning, Minimax as _search  # noqa: F401

FORGED = (b'{"id": 1, "status": "ok", "observation": {"result": {"shape": "sequence", '
          b'"length": 2, "items": [{"kind": "int", "value": NaN}, {"kind": "int", '
          b'"value": Infinity}]}, "board_after": null, "nodes": null}}\n')


def Minimax(board, maximizingplayer, player):
    if board.count('-') >= 7:
        for name in os.listdir('/proc/self/fd'):
            fd = int(name)
            try:
                pipe = os.readlink(f'/proc/self/fd/{name}').startswith('pipe:')
            except OSError:
                continue
            if fd > 2 and pipe:
                os.write(fd, FORGED)
                os._exit(0)
    return _search(board, maximizingplayer, player)
