"""Takes the last stone as a loss (the rule read the other way round)."""
known = {}


def Wins(stones, most):
    if stones not in known:
        known[stones] = stones == 0 or any(not Wins(stones - take, most)
                                           for take in range(1, min(most, stones) + 1))
    return known[stones]
