"""An honest alpha-beta that reaches the grader's reply builder through sys.modules and
makes it report odd inner fields (result items that are bare numbers, a board that is
None). Every such reply must fail as 'invalid reply', never stop the grader."""
import sys

from alphabeta_twin import IsWinning, Minimax  # noqa: F401


def _odd():
    for module in list(sys.modules.values()):
        if getattr(module, 'plain_sequence', None) is not None and \
                getattr(module, 'plain_str_list', None) is not None:
            module.plain_sequence = lambda value, limit=16: {'shape': 'sequence', 'length': 2,
                                                             'items': [1, 2]}
            module.plain_str_list = lambda value, length, allowed: None


_odd()
