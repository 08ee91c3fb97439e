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
    """The fingerprints of files ``0..n-1`` (their distinct hashes, sorted) and, for each
    one, which files hold it (``owners``, in the same order)."""

    hashes: numpy.ndarray
    owners: numpy.ndarray
    size: int

    @classmethod
    def of(cls, prints):
        """The index of a list of :class:`grader.batch.similarity.Prints`."""
        distinct = [numpy.unique(p.hashes) for p in prints]
        if not distinct:
            return cls(numpy.zeros(0, numpy.int64), numpy.zeros(0, numpy.int32), 0)
        hashes = numpy.concatenate(distinct)
        owners = numpy.repeat(numpy.arange(len(prints), dtype=numpy.int32),
                              [len(d) for d in distinct])
        order = numpy.argsort(hashes, kind='stable')
        return cls(hashes[order], owners[order], len(prints))

    def holders(self, hashes):
        """The files holding each of ``hashes`` (distinct), all together: one entry per
        (fingerprint, file) pair."""
        first = numpy.searchsorted(self.hashes, hashes, side='left')
        last = numpy.searchsorted(self.hashes, hashes, side='right')
        lengths = last - first
        total = int(lengths.sum())
        if not total:
            return numpy.zeros(0, dtype=numpy.int32)
        offsets = numpy.repeat(first - numpy.cumsum(lengths) + lengths, lengths)
        return self.owners[offsets + numpy.arange(total)]

    def sharing(self, hashes):
        """How many of ``hashes`` (one file's distinct fingerprints) each file holds: an
        array of counts by file."""
        return numpy.bincount(self.holders(hashes), minlength=self.size)

    def frequency(self, weights=None):
        """``(distinct hashes, how many files hold each)``, each file counted ``weights[i]``
        times (default once)."""
        if not len(self.hashes):
            return self.hashes, numpy.zeros(0, dtype=numpy.int64)
        weight = numpy.ones(self.size) if weights is None else numpy.asarray(weights)
        distinct, where = numpy.unique(self.hashes, return_inverse=True)
        return distinct, numpy.bincount(where, weights=weight[self.owners]).astype(numpy.int64)


def common(prints, weights, share, at_least):
    """The fingerprints more than ``share`` of a class's hand-ins hold (sorted), when the
    class has ``at_least`` hand-ins (else none): ``prints`` of the class's distinct files,
    ``weights`` how many hand-ins hold each file."""
    hand_ins = int(sum(weights))
    if hand_ins < at_least or not prints:
        return numpy.zeros(0, dtype=numpy.int64)
    distinct, counts = Index.of(prints).frequency(weights)
    return distinct[counts > share * hand_ins]
