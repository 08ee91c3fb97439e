"""Right answers by plain recursion: every pile searched again each time it is met."""


def Wins(stones, most):
    return any(not Wins(stones - take, most) for take in range(1, min(most, stones) + 1))
