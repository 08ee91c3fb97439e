"""An honest alpha-beta with an unused import of a module the sandbox does not have: it is
graded with a stand-in in its place, as it would score without the line."""
from requests import put  # noqa: F401

from alphabeta_twin import IsWinning, Minimax  # noqa: F401
