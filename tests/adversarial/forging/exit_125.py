"""Ends its process with status 125 inside Minimax, the status the sandbox's own start-up
uses for its failures: it must be reported as the submission's exit, not the sandbox's."""
import os


def Minimax(board, maximizingplayer, player):
    os._exit(125)
