"""Blocks every signal a time limit could use, ignores the timer signals, and loops in
Minimax swallowing every exception: only a limit enforced from outside stops it."""
import signal

for number in (signal.SIGPROF, signal.SIGALRM, signal.SIGVTALRM, signal.SIGXCPU):
    try:
        signal.signal(number, signal.SIG_IGN)
    except (OSError, ValueError):
        pass
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGPROF, signal.SIGALRM, signal.SIGVTALRM,
                                          signal.SIGXCPU, signal.SIGTERM, signal.SIGINT})
signal.setitimer(signal.ITIMER_PROF, 0)
signal.setitimer(signal.ITIMER_REAL, 0)


def Minimax(board, maximizingplayer, player):
    while True:
        try:
            while True:
                pass
        except BaseException:
            pass
