"""Copies within a class and from known solutions: ``similarity.csv`` and its views.

For every exercise, the hand-ins are compared with each other, and every
hand-in with each known solution of that exercise (files an instructor
collected, in the folder ``similarity.known`` of grading.yaml names), with
the handout's template left out as boilerplate (:mod:`grader.batch.similarity`),
and so the fingerprints more than ``common_share`` of the class's hand-ins
hold (:func:`grader.batch.fingerprints.common`).  Only pairs of files that
share a fingerprint are compared: an inverted index of the class's
fingerprints counts what each file shares with every other at once
(:class:`grader.batch.fingerprints.Index`), and only the pairs it flags are
compared in full.  A pair is listed when it is flagged
(:meth:`similarity.Settings.flagged`); nothing here ever changes a score.

It runs where the batch runs, after grading, from the files stored in the
gradebook, whatever executor graded them.  Each file's fingerprints are kept
in the gradebook keyed by its content hash and the settings; the pairs
found, keyed by the two files' content hashes, the settings and the class's
common fingerprints: a resumed batch or a regrade compares only the files
that are new since the last comparison (each with every file it shares a
fingerprint with), and reads the pairs already compared back.  When the
class's common code changes (a fingerprint crosses ``common_share``), every
file is compared again.

Which file of a hand-in is an exercise's: the first of the exercise's
``files`` found at the top of the hand-in or under ``src/``, as grading
looks for it.  A known solution belongs to an exercise when its name is one
of the exercise's file names, or when it is a ``.py`` file in a folder
named after the exercise.
"""
import collections
import hashlib
import itertools
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy

from grader.batch import archives, fingerprints, identity, similarity

KNOWN = 'known:'
"""The prefix of a known solution's name in ``similarity.csv`` (its path in the folder)."""


@dataclass
class Code:
    """One file compared: a hand-in's (``name`` is its key) or a known solution's."""

    name: str
    text: str
    known: bool = False
    digest: str = field(init=False, repr=False)
    """SHA-256 of the text: what the comparisons kept in the gradebook are keyed by."""

    def __post_init__(self):
        self.digest = hashlib.sha256(self.text.encode('utf-8')).hexdigest()


@dataclass
class Pair:
    exercise: str
    a: Code
    b: Code
    match: similarity.Match

    @property
    def kind(self):
        return 'known' if self.b.known else 'class'

    @property
    def share(self):
        return max(self.match.share_a, self.match.share_b)


@dataclass
class Report:
    pairs: list = field(default_factory=list)
    """The flagged :class:`Pair` s, most alike first within each exercise."""
    compared: int = 0
    """Pairs of files compared in this run: those sharing a fingerprint, one of them new
    (pairs sharing none are never looked at; the others were compared in an earlier run)."""
    measured: int = 0
    """Of these, the pairs flagged by the index's counts, compared in full (their matched
    regions found)."""
    cached: int = 0
    """Pairs of different files compared in an earlier run (their results in the gradebook)."""
    common: int = 0
    """Fingerprints left out as code most of the class holds."""
    seconds: float = 0.0


def settings_of(config):
    """The :class:`similarity.Settings` of grading.yaml's ``similarity`` mapping."""
    keys = ('threshold', 'min_tokens', 'common_share')
    return similarity.Settings(**{k: config[k] for k in keys if k in config})


def _text(data):
    return data.decode('utf-8', errors='replace')


def exercise_path(files, names):
    """The first of ``names`` in a file map (at the top or under ``src/``), or None."""
    for name in names:
        for candidate in (name, f'src/{name}'):
            if candidate in files:
                return candidate
    return None


def exercise_file(files, names):
    """The text of the first of ``names`` in a file map, or None."""
    path = exercise_path(files, names)
    return None if path is None else _text(files[path])


def stored_files(book, key):
    """The file map of a hand-in stored in the gradebook (``{}`` for none)."""
    blob = book.archive(key)
    if not blob:
        return {}
    return archives.read_zip(blob, archives.Limits(max_bytes=2**40, max_files=10**6))


def template_of(folder, names):
    """The handout's file of an exercise in the template folder, or ''."""
    if not folder:
        return ''
    for name in names:
        for candidate in (Path(folder) / name, Path(folder) / 'src' / name):
            if candidate.is_file():
                return _text(candidate.read_bytes())
    return ''


def known_files(folder, exercise, names):
    """The known solutions of an exercise in ``folder``: ``[Code]`` by path."""
    if not folder:
        return []
    folder = Path(folder)
    basenames = {Path(n).name for n in names}
    out = []
    for path in sorted(folder.rglob('*')):
        relative = path.relative_to(folder)
        if path.is_file() and not path.is_symlink() and (
                path.name in basenames
                or (path.suffix == '.py' and exercise in relative.parts[:-1])):
            out.append(Code(KNOWN + relative.as_posix(), _text(path.read_bytes()), known=True))
    return out


def hand_ins(book, policy):
    """``{exercise: [Code]}`` of every stored hand-in holding the exercise's file."""
    out = {name: [] for name in policy.exercises}
    for key in book.keys():
        files = stored_files(book, key)
        for name, settings in policy.exercises.items():
            text = exercise_file(files, settings.files)
            if text is not None:
                out[name].append(Code(key, text))
    return out


def compare_class(exercise, codes, known, settings, template='', cache=None):
    """Compare ``codes`` (hand-ins) with each other and with each of ``known``: a
    :class:`Report` of the flagged pairs.  Only pairs of files that share fingerprints are
    compared (:class:`fingerprints.Index`); the fingerprints most of the class holds are
    boilerplate (:func:`fingerprints.common`).  ``cache`` (a :class:`Cache`, or None) gives
    the files' prints and the pairs compared before, and keeps those compared now."""
    started = time.monotonic()
    boilerplate = similarity.every_kgram(template, settings) if template else None
    base = settings.digest(hashlib.sha256(template.encode()).hexdigest())
    files = {c.digest: c for c in known}
    files.update({c.digest: c for c in codes})
    order = sorted(files)
    prints = cache.stored_prints(base, set(files)) if cache else {}
    fresh = {d: similarity.fingerprint(files[d].text, settings, boilerplate)
             for d in order if d not in prints}
    prints.update(fresh)
    if cache and fresh:
        cache.keep_comparisons(exercise, base, {}, set(), fresh)
    held = collections.Counter(c.digest for c in codes)
    shared = fingerprints.common([prints[d] for d in order if d in held],
                                 [held[d] for d in order if d in held],
                                 settings.common_share, settings.common_class)
    lean = [prints[d].without(shared) for d in order]
    digest = settings.digest(hashlib.sha256(template.encode()).hexdigest(),
                             hashlib.sha256(shared.tobytes()).hexdigest())
    done = cache.compared_files(exercise, digest) if cache else set()
    found = cache.similar_pairs(exercise, digest) if cache else {}
    report = Report(common=len(shared))
    matches = _compare_new(order, lean, [d in done for d in order],
                           [d not in held for d in order], settings, report)
    solutions = {c.digest for c in known}
    for i, d in enumerate(order):           # a file handed in twice, or a known solution's
        if (held[d] > 1 or (held[d] and d in solutions)) and (d, d) not in found:
            matches[d, d] = _flagged(similarity.compare(lean[i], lean[i]), settings)
    flagged = {}
    for (i, j), match in matches.items():
        if match is not None:
            a, b = order[i] if isinstance(i, int) else i, order[j] if isinstance(j, int) else j
            flagged[a, b] = _with_spans(match, lean[order.index(a)], lean[order.index(b)],
                                        files[a], files[b])
    if cache:
        cache.keep_comparisons(exercise, digest, flagged, set(files) - done)
    found.update(flagged)
    report.cached = _old_pairs(order, done, held)
    report.pairs = _listed(exercise, codes, known, found)
    report.seconds = time.monotonic() - started
    return report


def _compare_new(order, lean, old, is_known, settings, report):
    """``{(i, j): Match}`` of the flagged pairs of files (by place in ``order``) with one
    new file at least (``old[i]``: compared before): each new file's shared tokens with
    every file it shares fingerprints with are counted at once through the index, and only
    the flagged pairs are compared in full."""
    index = fingerprints.Index.of(lean)
    old, is_known = numpy.array(old, dtype=bool), numpy.array(is_known, dtype=bool)
    coverage = numpy.array([max(p.coverage, 1) for p in lean])
    out = {}
    for i in numpy.flatnonzero(~old).tolist():
        others = old.copy()
        others[i + 1:] = True                 # a pair of two new files once, from the earlier
        others[i] = False
        if is_known[i]:
            others &= ~is_known
        files, here, there = index.overlap(lean[i], settings.k, others)
        report.compared += len(files)
        share = numpy.maximum(numpy.round(here / coverage[i], 4),
                              numpy.round(there / coverage[files], 4))
        worth = (share >= settings.threshold) & (numpy.minimum(here, there)
                                                 >= settings.min_tokens)
        for j in files[worth].tolist():
            report.measured += 1
            a, b = (i, j) if order[i] < order[j] else (j, i)
            out[a, b] = _flagged(similarity.compare(lean[a], lean[b]), settings)
    return out


def _flagged(match, settings):
    return match if settings.flagged(match.share_a, match.share_b, match.tokens) else None


def _with_spans(match, a, b, code_a, code_b):
    """``match`` with the matched regions of each file (its tokens read again if need be)."""
    a.spanned(code_a.text)
    b.spanned(code_b.text)
    return similarity.spanned(match, a, b)


def _old_pairs(order, done, held):
    """How many pairs of different files were compared in an earlier run."""
    hand_ins = sum(1 for d in order if d in done and d in held)
    solutions = sum(1 for d in order if d in done and d not in held)
    return hand_ins * (hand_ins - 1) // 2 + hand_ins * solutions


def _listed(exercise, codes, known, found):
    """The :class:`Pair` s of hand-ins (and of a hand-in and a known solution) whose files'
    match is in ``found`` (``{(hash_a, hash_b): Match}``, ``hash_a <= hash_b``)."""
    by_file = collections.defaultdict(list)
    for code in sorted(codes, key=lambda c: c.name):
        by_file[code.digest].append(code)
    solutions = collections.defaultdict(list)
    for solution in known:
        solutions[solution.digest].append(solution)
    pairs = []
    for (x, y), match in found.items():
        if match is None:
            continue
        for a, b, oriented in _pairs_of(x, y, match, by_file, solutions):
            pairs.append(Pair(exercise, a, b, oriented))
    pairs.sort(key=lambda p: (-p.share, p.a.name, p.b.name))
    return pairs


def _pairs_of(x, y, match, by_file, solutions):
    """``(a, b, match as seen from a)`` of every pair of hand-ins (by name) and of a
    hand-in and a known solution whose files are ``x`` and ``y``."""
    ends = [(x, y, match), (y, x, _swapped(match))] if x != y else [(x, x, match)]
    for one, other, seen in ends:
        for a in by_file.get(one, []):
            for b in solutions.get(other, []):
                yield a, b, seen
    if x == y:
        yield from ((a, b, match) for a, b in itertools.combinations(by_file.get(x, []), 2))
        return
    for a in by_file.get(x, []):
        for b in by_file.get(y, []):
            yield (a, b, match) if a.name < b.name else (b, a, _swapped(match))


def _swapped(match):
    if match is None:
        return None
    return similarity.Match(match.share_b, match.share_a, match.tokens, match.spans_b,
                            match.spans_a)


def run(book, policy):
    """Compare the class stored in ``book`` as ``policy.similarity`` asks: a
    :class:`Report` over every exercise (None without ``similarity`` in grading.yaml)."""
    config = policy.similarity
    if config is None:
        return None
    settings = settings_of(config)
    total = Report()
    started = time.monotonic()
    for exercise, codes in hand_ins(book, policy).items():
        names = policy.exercises[exercise].files
        known = known_files(config.get('known'), exercise, names)
        if len(codes) + len(known) < 2 or not codes:
            continue
        report = compare_class(exercise, codes, known, settings,
                               template_of(config.get('template'), names), cache=book)
        total.pairs += report.pairs
        for counted in ('compared', 'measured', 'cached', 'common'):
            setattr(total, counted, getattr(total, counted) + getattr(report, counted))
    total.seconds = time.monotonic() - started
    return total


def view_name(pair):
    """The side-by-side view's path in the output folder (keys are safe file names; a
    known solution's path is made one)."""
    b = pair.b.name
    if pair.b.known:
        b = 'known-' + identity.safe_key(b[len(KNOWN):])
    return f'similarity/{pair.exercise}/{pair.a.name}--{b}.html'


COLUMNS = ('exercise', 'a', 'b', 'kind', 'share_a', 'share_b', 'matched_tokens', 'view')


def rows(report):
    """The rows of ``similarity.csv``: one per flagged pair."""
    return [(p.exercise, p.a.name, p.b.name, p.kind, f'{p.match.share_a:.2f}',
             f'{p.match.share_b:.2f}', p.match.tokens, view_name(p)) for p in report.pairs]


def write(report, out):
    """Write ``similarity.csv`` and a side-by-side view of each pair; the paths written."""
    from grader.batch import pages  # the page templates load only when pages are written
    from grader.report import csvfile
    from grader.report.files import write_text
    out = Path(out)
    csvfile.write(out / 'similarity.csv', COLUMNS, rows(report))
    for pair in report.pairs:
        write_text(out / view_name(pair), pages.pair_view(pair, depth=2))
    return [out / 'similarity.csv', out / 'similarity']
