"""Which files of a class hold each fingerprint: an inverted index.

Only files that share fingerprints can be alike, so a class is compared by
looking up each file's fingerprints in the index (:meth:`Index.sharing`)
rather than by comparing every pair: in a class of thousands most pairs
share nothing, and are never looked at.  The same counts say which
fingerprints most of the class holds (:func:`common`): code the handout gave
everyone, or that everyone writes alike, left out as boilerplate even when
no template, or the wrong one, is given (MOSS's ``-m``).
"""
from dataclasses import dataclass

import numpy


@dataclass
class Index:
    """Every fingerprint of files ``0..n-1``: its hash (sorted), which file holds it
    (``owners``) and the token where its k-gram starts in that file (``starts``)."""

    hashes: numpy.ndarray
    owners: numpy.ndarray
    starts: numpy.ndarray
    size: int

    @classmethod
    def of(cls, prints):
        """The index of a list of :class:`grader.batch.similarity.Prints`."""
        if not prints:
            empty = numpy.zeros(0, numpy.int64)
            return cls(empty, empty.astype(numpy.int32), empty.astype(numpy.int32), 0)
        hashes = numpy.concatenate([p.hashes for p in prints])
        owners = numpy.repeat(numpy.arange(len(prints), dtype=numpy.int32),
                              [len(p.hashes) for p in prints])
        starts = numpy.concatenate([p.starts for p in prints]).astype(numpy.int32)
        order = numpy.argsort(hashes, kind='stable')
        return cls(hashes[order], owners[order], starts[order], len(prints))

    def _postings(self, hashes):
        """``(query, place)``: for each fingerprint in the index with one of ``hashes``, the
        place of that hash in ``hashes`` and its place in the index."""
        first = numpy.searchsorted(self.hashes, hashes, side='left')
        lengths = numpy.searchsorted(self.hashes, hashes, side='right') - first
        total = int(lengths.sum())
        query = numpy.repeat(numpy.arange(len(hashes)), lengths)
        offsets = numpy.repeat(first - numpy.cumsum(lengths) + lengths, lengths)
        return query, offsets + numpy.arange(total)

    def overlap(self, prints, k, others):
        """``(files, covered here, covered there)``: the files among ``others`` (a mask by
        file) that share fingerprints with ``prints`` (a file's), and for each, how many
        tokens of this file and of that one the shared fingerprints cover: the figures
        :func:`grader.batch.similarity.compare` gives, for every file at once."""
        query, place = self._postings(prints.hashes)
        owner = self.owners[place]
        keep = others[owner]
        owner = owner[keep]
        here = prints.starts[query[keep]]
        there = self.starts[place[keep]]
        files = numpy.unique(owner)
        return (files, _covered_by(owner, here, k, self.size)[files],
                _covered_by(owner, there, k, self.size)[files])

    def frequency(self, weights=None):
        """``(distinct hashes, how many files hold each)``, each file counted ``weights[i]``
        times (default once)."""
        if not len(self.hashes):
            return self.hashes, numpy.zeros(0, dtype=numpy.int64)
        weight = numpy.ones(self.size) if weights is None else numpy.asarray(weights)
        pairs = numpy.unique(numpy.stack([self.hashes, self.owners.astype(numpy.int64)]),
                             axis=1)
        distinct, where = numpy.unique(pairs[0], return_inverse=True)
        counts = numpy.bincount(where.ravel(), weights=weight[pairs[1]])
        return distinct, counts.astype(numpy.int64)


def _covered_by(owner, starts, k, size):
    """For each file, how many tokens the k-grams starting at ``starts`` (of the entries
    of that ``owner``) cover together."""
    if not len(owner):
        return numpy.zeros(size, dtype=numpy.int64)
    order = numpy.lexsort((starts, owner))
    owner, starts = owner[order], starts[order].astype(numpy.int64)
    step = numpy.full(len(starts), k, dtype=numpy.int64)
    same = owner[1:] == owner[:-1]
    step[:-1][same] = numpy.minimum(starts[1:] - starts[:-1], k)[same]
    return numpy.bincount(owner, weights=step, minlength=size).astype(numpy.int64)


def common(prints, weights, share, at_least):
    """The fingerprints more than ``share`` of a class's hand-ins hold (sorted), when the
    class has ``at_least`` hand-ins (else none): ``prints`` of the class's distinct files,
    ``weights`` how many hand-ins hold each file."""
    hand_ins = int(sum(weights))
    if hand_ins < at_least or not prints:
        return numpy.zeros(0, dtype=numpy.int64)
    distinct, counts = Index.of(prints).frequency(weights)
    return distinct[counts > share * hand_ins]
