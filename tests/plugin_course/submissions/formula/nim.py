"""Right answers from the formula, with no search at all: earns the values, never 'memoizes'."""


def Wins(stones, most):
    return stones % (most + 1) != 0
