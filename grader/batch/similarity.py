"""How much of two Python files is the same code, whatever a copier did to disguise it.

Each file is read into units of normalised tokens (:mod:`grader.batch.codetokens`:
parsed, put in a canonical form that undoes the usual obfuscations, names as
the order of their first use).  Fingerprints are hashed k-grams of a unit's
tokens, chosen by winnowing (copydetect's :func:`copydetect.utils.winnow`, the
MOSS algorithm), never spanning two units, so the same functions in another
order have the same fingerprints.

A k-gram is hashed with its names *parameterised* (Baker's p-strings): a name
is the distance back to the same name within the k-gram, or 0 at its first
use there.  So a run of code matches whatever its names and whatever comes
before it: a block moved into a helper of its own, or a function with unused
variables added before it, keeps its fingerprints.  The hashes are stable
(BLAKE2b of each word, combined with fixed arithmetic; not Python's salted
``hash``), so fingerprints compare across processes and runs.  Fingerprints
found in the handout's template (every k-gram of it, not only the winnowed
ones) are boilerplate and left out, as are those the caller says most of a
class shares (:meth:`Prints.without`).

:func:`compare` gives the share of each file's fingerprinted tokens that the
other one also holds; :func:`matched_spans` the matched regions of each file
for the side-by-side view, merged across the code the normalisation set
aside (an inserted no-op does not cut a region in two) and across gaps of a
few tokens.  Two short independent solutions share idioms, not long runs of
identical structure: a pair counts as a copy only when enough tokens match
(:attr:`Settings.min_tokens`) as well as a large share.
"""
import hashlib
import json
from dataclasses import asdict, dataclass, field
from functools import lru_cache

from grader.batch import codetokens

VERSION = 2
"""The normalisation and fingerprinting algorithm; cached results of another are recomputed."""


@dataclass(frozen=True)
class Settings:
    """How files are fingerprinted and when a pair counts as a copy."""

    threshold: float = 0.6
    """A pair is flagged when either file has at least this share of its code matched..."""
    min_tokens: int = 100
    """... and at least this many of its tokens are matched (short code is alike by nature)."""
    k: int = 12
    """Tokens per fingerprinted k-gram."""
    window: int = 4
    """Winnowing window: one fingerprint is kept per window of this many k-grams at least."""
    common_share: float = 0.5
    """A fingerprint more than this share of a class's hand-ins hold is boilerplate..."""
    common_class: int = 10
    """... in a class of at least this many hand-ins (MOSS's ``-m``)."""

    def digest(self, *extra):
        """What cached results computed with these settings (and ``extra``) are valid for."""
        text = json.dumps([VERSION, asdict(self), *extra], sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    def flagged(self, share_a, share_b, tokens):
        return max(share_a, share_b) >= self.threshold and tokens >= self.min_tokens


@dataclass
class Prints:
    """A file's fingerprints: ``hashes`` (sorted) and the token index where each one's
    k-gram starts (``starts``, numpy arrays), the number of tokens they cover, and the
    character span of each token (a numpy array of rows ``(start, end)``; None when not
    known: :meth:`spanned` adds them)."""

    hashes: object
    starts: object
    coverage: int
    k: int
    spans: object = None

    def to_json(self):
        """The prints as stored (not the spans: :meth:`spanned` reads them again)."""
        return json.dumps([self.k, self.coverage, self.hashes.tolist(), self.starts.tolist()])

    @classmethod
    def from_json(cls, text):
        import numpy
        k, coverage, hashes, starts = json.loads(text)
        return cls(hashes=numpy.array(hashes, dtype=numpy.int64),
                   starts=numpy.array(starts, dtype=numpy.int32), coverage=coverage, k=k)

    def spanned(self, text):
        """These prints with the character span of every token of ``text`` (their file)."""
        if self.spans is None:
            self.spans = _spans(codetokens.read(text))
        return self

    def without(self, hashes):
        """These prints without the fingerprints in ``hashes`` (a sorted numpy array), the
        tokens they cover counted again."""
        import numpy
        if not len(hashes) or not len(self.hashes):
            return self
        keep = ~numpy.isin(self.hashes, hashes, assume_unique=False)
        if keep.all():
            return self
        starts = self.starts[keep]
        return Prints(hashes=self.hashes[keep], starts=starts,
                      coverage=_covered(starts, self.k), k=self.k, spans=self.spans)


@dataclass
class Match:
    """How much of two files matched: shares of each file's fingerprinted tokens, the
    matched tokens (the smaller of the two counts) and the matched character spans."""

    share_a: float
    share_b: float
    tokens: int
    spans_a: list = field(default_factory=list)
    spans_b: list = field(default_factory=list)


# -- tokens ---------------------------------------------------------------------------
def normalise(text):
    """``[(unit number, token, (start, end))]`` of ``text``: the normalised tokens with
    their character spans, unit by unit (0: module code, else a function)."""
    return [(t.unit, t.word, (t.start, t.end)) for t in codetokens.read(text)]


# -- fingerprints -------------------------------------------------------------------
_MULTIPLIER = 0x9E3779B97F4A7C15
"""The k-gram hash: the sum of each token's code times this to the power of its place."""


@lru_cache(maxsize=1 << 16)
def _code(word):
    """A word's stable 64-bit code."""
    return int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), 'little')


def _name_codes(k):
    import numpy
    return numpy.array([_code('\x00name %d' % d) for d in range(k)], dtype=numpy.uint64)


def kgrams(tokens, k):
    """``(hashes, starts)`` of every k-gram of ``tokens`` (:class:`codetokens.Token` s) that
    lies within one unit, names parameterised (see the module's documentation)."""
    import numpy
    count = len(tokens) - k + 1
    if count <= 0:
        return numpy.zeros(0, dtype=numpy.int64), numpy.zeros(0, dtype=numpy.int32)
    words = [t.word for t in tokens]
    names = [word[:1] == '#' for word in words]  # Token.name, without a call a token
    codes = numpy.array([_code(word) for word in words], dtype=numpy.uint64)
    is_name = numpy.array(names, dtype=bool)
    units = numpy.array([t.unit for t in tokens], dtype=numpy.int32)
    back, last = [0] * len(tokens), {}
    for index, token in enumerate(tokens):
        if names[index]:
            key = (token.unit, token.word)
            back[index] = index - last.get(key, index)
            last[key] = index
    back = numpy.array(back, dtype=numpy.int64)
    starts = numpy.arange(count)
    starts = starts[units[starts] == units[starts + k - 1]]
    place = numpy.arange(k)
    at = starts[:, None] + place[None, :]
    distance = back[at]
    distance = numpy.where(distance <= place[None, :], distance, 0)
    grams = numpy.where(is_name[at], _name_codes(k)[distance], codes[at])
    powers = numpy.array([pow(_MULTIPLIER, j, 1 << 64) for j in range(k)], dtype=numpy.uint64)
    with numpy.errstate(over='ignore'):
        hashes = (grams * powers[None, :]).sum(axis=1, dtype=numpy.uint64)
        hashes ^= hashes >> numpy.uint64(31)
        hashes *= numpy.uint64(0xBF58476D1CE4E5B9)
        hashes ^= hashes >> numpy.uint64(29)
    return hashes.view(numpy.int64), starts.astype(numpy.int32)


def every_kgram(text, settings):
    """Every k-gram hash of ``text``, sorted (boilerplate: nothing of it is fingerprinted)."""
    import numpy
    return numpy.unique(kgrams(codetokens.read(text), settings.k)[0])


def _covered(starts, k):
    """How many tokens the k-grams starting at ``starts`` cover together."""
    import numpy
    starts = numpy.unique(starts)
    if not len(starts):
        return 0
    return int(numpy.minimum(numpy.diff(starts), k).sum()) + k


def fingerprint(text, settings, boilerplate=None):
    """The :class:`Prints` of ``text`` (its spans known), leaving out the hashes in
    ``boilerplate`` (a sorted numpy array, or None)."""
    import numpy
    from copydetect.utils import winnow  # the batch extra: MOSS-style winnowing

    tokens = codetokens.read(text)
    hashes, starts = kgrams(tokens, settings.k)
    chosen_hashes, chosen_starts = [], []
    breaks = numpy.flatnonzero(numpy.diff(starts) != 1) + 1
    for run_hashes, run_starts in zip(numpy.split(hashes, breaks), numpy.split(starts, breaks)):
        if not len(run_hashes):
            continue
        chosen, where = winnow(run_hashes, settings.window, remove_duplicates=False)
        chosen_hashes.append(chosen)
        chosen_starts.append(run_starts[where])
    if chosen_hashes:
        hashes, starts = numpy.concatenate(chosen_hashes), numpy.concatenate(chosen_starts)
    if boilerplate is not None and len(boilerplate) and len(hashes):
        keep = ~numpy.isin(hashes, boilerplate)
        hashes, starts = hashes[keep], starts[keep]
    order = numpy.argsort(hashes, kind='stable')
    hashes, starts = hashes[order], starts[order].astype(numpy.int32)
    return Prints(hashes=hashes, starts=starts, coverage=_covered(starts, settings.k),
                  k=settings.k, spans=_spans(tokens))


def _spans(tokens):
    """The character spans of ``tokens``, one row each (a numpy array: a class's files keep
    theirs in memory)."""
    import numpy
    return numpy.array([(t.start, t.end) for t in tokens], dtype=numpy.int32).reshape(-1, 2)


# -- comparing two files ------------------------------------------------------------------
def shared(a, b):
    """How many distinct fingerprints two files share."""
    import numpy
    return len(numpy.intersect1d(a.hashes, b.hashes))


def _matched_starts(prints, common):
    import numpy
    return prints.starts[numpy.isin(prints.hashes, common)]


def compare(a, b):
    """The :class:`Match` of two files' :class:`Prints` (without spans: :func:`spanned`)."""
    import numpy
    common = numpy.intersect1d(a.hashes, b.hashes)
    covered_a = _covered(_matched_starts(a, common), a.k)
    covered_b = _covered(_matched_starts(b, common), b.k)
    return Match(share_a=round(covered_a / a.coverage, 4) if a.coverage else 0.0,
                 share_b=round(covered_b / b.coverage, 4) if b.coverage else 0.0,
                 tokens=min(covered_a, covered_b))


GAP = 6
"""Matched regions this many unmatched tokens apart, or fewer, are shown as one."""


def matched_spans(prints, common, gap=GAP):
    """The matched regions of a file (its :class:`Prints` with spans) as merged
    ``[start, end]`` character spans: its tokens in the order of the file, a region
    running on across code the normalisation set aside and across ``gap`` unmatched
    tokens or fewer."""
    import numpy
    matched = numpy.zeros(len(prints.spans) + prints.k, dtype=bool)
    for start in _matched_starts(prints, common).tolist():
        matched[start:start + prints.k] = True
    token_spans = [tuple(span) for span in prints.spans.tolist()]
    order = sorted(range(len(token_spans)), key=token_spans.__getitem__)
    spans, unmatched = [], 0
    for index in order:
        start, end = token_spans[index]
        if not matched[index]:
            unmatched += 1
            continue
        if spans and unmatched <= gap:
            spans[-1][1] = max(spans[-1][1], end)
        else:
            spans.append([start, end])
        unmatched = 0
    return spans


def spanned(match, a, b):
    """``match`` of the prints ``a`` and ``b`` (their spans known) with the matched regions
    of each."""
    import numpy
    common = numpy.intersect1d(a.hashes, b.hashes)
    return Match(match.share_a, match.share_b, match.tokens, matched_spans(a, common),
                 matched_spans(b, common))


def similar(text_a, text_b, settings=Settings(), template=''):
    """The :class:`Match` of two texts (the handout's ``template`` left out), with spans."""
    boilerplate = every_kgram(template, settings) if template else None
    a = fingerprint(text_a, settings, boilerplate)
    b = fingerprint(text_b, settings, boilerplate)
    return spanned(compare(a, b), a, b)
