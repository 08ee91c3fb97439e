"""Tic-tac-toe: minimax / alpha-beta on the handout's keypad-indexed board."""
