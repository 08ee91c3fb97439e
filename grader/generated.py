"""Positions drawn at grading time: cases no submission has seen (parent side).

Every official grade (``grade``, ``batch``, ``regrade``, the Gradescope
route) adds, to an exercise's fixture cases, ``generated.count`` cases drawn
by the reference's oracle (``reference/oracles/<exercise>.py``:
``generate(rng, count, options)`` for the inputs, ``expect(input,
options)`` for the answers), computed here, in the grader's own process,
never in the sandbox.  ``grader check`` (public fixtures only) does not
draw any, and says that the official grade will.

The seed comes from the course's name (``course:`` in grading.yaml), the
exercise and the content of the submission's files: the same files get the
same positions and so the same grade, on every machine and in every
regrade, and the seed is kept in the result.  A look-up table of the public
fixtures answers these positions only as well as its fallback does.

Generated cases are hidden: a report shows their number and the kind of
their outcome only (:mod:`grader.judging.outcomes`).

With ``killers: n`` beside the count, more positions follow the oracle's: drawn from
the exercise's pool (``<reference>/pools/<exercise>.json``, written by ``grader
fixtures --select``, :mod:`grader.selection`), positions that known buggy variants of
the reference answer wrongly.  They are drawn with the same seed until every variant of
the pool meets ``n`` positions that catch it (fewer when the pool holds fewer), so every
official grade meets several killers of every known bug class.  The pool keeps the
cheapest positions that catch each variant, so they add little to a grade's time, and
the reference's answers to them (:mod:`grader.poolanswers`), used while the options and
the reference they were computed under still hold: the same for every submission, they
are not computed again for each.
"""
import hashlib
import json
import random
from pathlib import Path

from grader import fixtures, poolanswers
from grader.contract import Case
from grader.errors import UserError
from grader.sandbox import bundle


def submission_digest(folder):
    """SHA-256 over the submission's files (relative names and bytes), as the sandbox gets them."""
    digest = hashlib.sha256()
    for relative, path in bundle.submission_files(folder):
        name = relative.encode('utf-8', 'surrogateescape')
        digest.update(len(name).to_bytes(4, 'big') + name)
        with open(path, 'rb') as f:
            data = f.read()
        digest.update(len(data).to_bytes(8, 'big') + data)
    return digest.hexdigest()


def seed_for(course, exercise, content_digest):
    """The seed (16 hex digits) of one exercise of one submission in one course."""
    text = f'{course}\0{exercise}\0{content_digest}'.encode()
    return hashlib.sha256(text).hexdigest()[:16]


def oracle_of(policy, exercise):
    """The oracle that draws and answers the positions of ``exercise``: a missing reference
    or an oracle without ``generate`` is a :class:`UserError` naming grading.yaml."""
    oracle = fixtures.oracle(policy, exercise)
    if not hasattr(oracle, 'generate'):
        raise UserError(f'exercises.{exercise}.generated: the oracle '
                        f'{Path(policy.reference).name}/oracles/{exercise}.py has no generate()',
                        policy.path)
    return oracle


def draw(policy, exercise, seed):
    """The generated :class:`Case` list of ``exercise`` for ``seed`` (empty when count is 0).

    A missing reference or an oracle without ``generate`` is a
    :class:`UserError` naming grading.yaml: the official grade needs them.
    """
    settings = policy.exercises[exercise]
    count = int(settings.generated.get('count', 0))
    per_variant = int(settings.generated.get('killers', 0))
    if count <= 0:
        return []
    oracle = oracle_of(policy, exercise)
    options = dict(settings.options, **{k: v for k, v in settings.generated.items()
                                        if k not in ('count', 'killers')})
    rng = random.Random(int(seed, 16))
    drawn = [(raw['input'], raw.get('tags', ()), None)
             for raw in oracle.generate(rng, count, options)]      # (input, tags, answer)
    if per_variant:
        pool = fitting_pool(policy, exercise)
        # the reference's answers stored in the pool, while they still hold (poolanswers)
        answers = poolanswers.stored(pool, poolanswers.key(policy, exercise))
        for index in chosen(pool, rng, per_variant):
            position = pool['positions'][index]['input']
            drawn.append((position, oracle.tags(position), answers[index] if answers else None))
    return [Case(name=f'generated-{n}', input=position,
                 expected=oracle.expect(position, settings.options) if answer is None else answer,
                 source='drawn at grading time', tags=tuple(tags), hidden=True, generated=True)
            for n, (position, tags, answer) in enumerate(drawn, 1)]

def pool_of(policy, exercise):
    """The pool of ``exercise`` (``<reference>/pools/<exercise>.json``): a
    :class:`UserError` naming grading.yaml when it is missing."""
    path = Path(policy.reference) / 'pools' / f'{exercise}.json'
    try:
        return json.loads(path.read_text(encoding='utf-8'))
    except (OSError, ValueError) as exc:
        raise UserError(f'exercises.{exercise}.generated.killers: no readable pool {path} '
                        f'({exc.__class__.__name__}); run grader fixtures --select', policy.path)


def fitting_pool(policy, exercise):
    """The pool of ``exercise``, when it was drawn on the data files the course grades on
    (the pool's ``data``: option name -> digest of the file): a :class:`UserError` naming
    grading.yaml when an option names other files."""
    pool = pool_of(policy, exercise)
    options = policy.exercises[exercise].options
    for option, digest in pool.get('data', {}).items():
        path = options.get(option)
        try:
            fits = path is not None and poolanswers.file_digest(path) == digest
        except OSError:
            fits = False
        if not fits:
            raise UserError(f'exercises.{exercise}.generated.killers: the pool '
                            f'{Path(policy.reference).name}/pools/{exercise}.json was drawn on '
                            f'other data than options.{option} ({path}): drop killers on this '
                            'data, or draw a pool on it (grader fixtures --select)', policy.path)
    return pool


def cover(pool, rng, per_variant):
    """Inputs drawn from ``pool`` with ``rng`` until every variant meets ``per_variant`` of
    its killers (all it has in the pool when fewer): :func:`chosen`'s positions."""
    return [pool['positions'][i]['input'] for i in chosen(pool, rng, per_variant)]


def chosen(pool, rng, per_variant):
    """The indexes of the positions drawn from ``pool`` with ``rng`` until every variant
    meets ``per_variant`` of its killers (all it has in the pool when fewer), in the order
    drawn.

    Greedy: the variant that still needs the most (the order of the variants shuffled
    first) picks, among its killers not drawn yet, the one that also serves most of the
    others' needs, ties broken at random.
    """
    masks = [int(position['kills'], 16) for position in pool['positions']]
    variants = list(range(len(pool['variants'])))
    rng.shuffle(variants)
    levels = killed_at_least(masks, per_variant)
    need = {v: sum(level >> v & 1 for level in levels) for v in variants}
    picked = []
    while True:
        wanting = [v for v in variants if need[v] > 0]
        if not wanting:
            return picked
        first = max(wanting, key=lambda v: need[v])
        open_mask = sum(1 << v for v in wanting)
        candidates = [i for i, m in enumerate(masks) if m >> first & 1 and i not in picked]
        pick = max(candidates, key=lambda i: (bin(masks[i] & open_mask).count('1'),
                                              rng.random()))
        picked.append(pick)
        for v in wanting:
            if masks[pick] >> v & 1:
                need[v] -= 1


def killed_at_least(masks, most):
    """``levels[k]``: the variants (as a bit mask) that at least ``k + 1`` of ``masks`` kill,
    for k below ``most``; a variant's bits over the levels add up to min(most, its killers).

    One pass over the pool with whole masks, a level taking the variants of the level below
    that the position kills once more (the highest level first, so each position counts once).
    """
    levels = [0] * most
    for mask in masks:
        for k in reversed(range(1, most)):
            levels[k] |= levels[k - 1] & mask
        if most:
            levels[0] |= mask
    return levels
