"""The nim oracle: expected answers by a memoized search of the game (not the formula)."""
import functools


@functools.lru_cache(maxsize=None)
def wins(stones, most):
    """Whether the player to move takes the last stone with best play."""
    return any(not wins(stones - take, most) for take in range(1, min(most, stones) + 1))


def expect(case_input, options):
    return {'wins': wins(case_input['stones'], case_input['most'])}


def default_cases(options):
    piles = [(0, 3), (1, 3), (4, 3), (5, 3), (7, 2), (9, 2), (12, 3), (13, 4)]
    cases = [{'name': f'pile-{s}-take-{m}', 'source': 'by hand', 'input': {'stones': s, 'most': m}}
             for s, m in piles]
    cases += [{'name': f'counted-{s}-take-3', 'source': 'by hand', 'tags': ['count'],
               'input': {'stones': s, 'most': 3}} for s in (17, 18)]
    return cases


def generate(rng, count, options):
    return [{'input': {'stones': rng.randrange(1, 16), 'most': rng.randrange(1, 5)}, 'tags': []}
            for _ in range(count)]
