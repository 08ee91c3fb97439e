"""Copies within a class and from known solutions: ``similarity.csv`` and its views.

For every exercise, every pair of hand-ins is compared, and every hand-in
with each known solution of that exercise (files an instructor collected,
in the folder ``similarity.known`` of grading.yaml names), with the
handout's template left out as boilerplate (:mod:`grader.batch.similarity`).
A pair is listed when it is flagged (:meth:`similarity.Settings.flagged`);
nothing here ever changes a score.

It runs where the batch runs, after grading, from the files stored in the
gradebook, whatever executor graded them.  Results are kept in the
gradebook keyed by the two files' content hashes and the settings' digest:
a resumed batch or a regrade compares only the files that are new since
the last comparison (each with every other file); the pairs of files
already compared are read back.

Which file of a hand-in is an exercise's: the first of the exercise's
``files`` found at the top of the hand-in or under ``src/``, as grading
looks for it.  A known solution belongs to an exercise when its name is one
of the exercise's file names, or when it is a ``.py`` file in a folder
named after the exercise.
"""
import hashlib
import itertools
import time
from dataclasses import dataclass, field
from pathlib import Path

from grader.batch import archives, identity, similarity

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
    """Pairs of files compared in this run (the others were read from the gradebook)."""
    cached: int = 0
    """Pairs of files whose comparison was read from the gradebook."""
    seconds: float = 0.0


def settings_of(config):
    """The :class:`similarity.Settings` of grading.yaml's ``similarity`` mapping."""
    keys = ('threshold', 'min_tokens')
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
    """Compare every pair of ``codes`` and each of them with each of ``known``: a
    :class:`Report` of the flagged pairs.  ``cache`` (a :class:`Cache`, or None) gives
    the pairs of files compared before and keeps those compared now."""
    started = time.monotonic()
    report = Report()
    boilerplate = similarity.every_kgram(template, settings) if template else frozenset()
    digest = settings.digest(hashlib.sha256(template.encode()).hexdigest())
    done = cache.compared_files(exercise, digest) if cache else set()
    files = {c.digest: c for c in codes + known}
    prints = cache.stored_prints(digest, set(files)) if cache else {}
    fresh = set()

    def prints_of(d):
        if d not in prints:
            prints[d] = similarity.fingerprint(files[d].text, settings, boilerplate)
            fresh.add(d)
        return prints[d]

    def spanned(d):
        return prints_of(d).spanned(files[d].text)

    found = cache.similar_pairs(exercise, digest) if cache else {}
    new_matches = {}
    for a, b in _pairs(codes, known):
        key = tuple(sorted((a.digest, b.digest)))
        if key[0] == key[1]:        # the same file: nothing to compare, all of it matches
            if key not in found:
                found[key] = _identical(spanned(key[0]), settings)
            continue
        if key in new_matches or (key[0] in done and key[1] in done):
            report.cached += key not in new_matches
            continue
        report.compared += 1
        new_matches[key] = _compare(prints_of(key[0]), prints_of(key[1]), settings,
                                    lambda: (spanned(key[0]), spanned(key[1])))
    flagged = {k: m for k, m in new_matches.items() if m is not None}
    if cache:
        cache.keep_comparisons(exercise, digest, flagged, set(files) - done,
                               {d: prints[d] for d in fresh})
    found.update(flagged)
    found = {k: m for k, m in found.items() if m is not None}
    for a, b in _pairs(codes, known):
        key = (a.digest, b.digest)
        match = found.get(key) or _swapped(found.get(key[::-1]))
        if match is not None:
            report.pairs.append(Pair(exercise, a, b, match))
    report.pairs.sort(key=lambda p: (-p.share, p.a.name, p.b.name))
    report.seconds = time.monotonic() - started
    return report


def _pairs(codes, known):
    """Every pair of hand-ins (by name), then every hand-in with every known solution."""
    codes = sorted(codes, key=lambda c: c.name)
    yield from itertools.combinations(codes, 2)
    for code in codes:
        for solution in known:
            yield code, solution


def _compare(a, b, settings, spanned):
    """The :class:`similarity.Match` of two files' prints when flagged, else None (the
    bound on what can match is tried first: most pairs share little; ``spanned()`` gives
    the two prints with their spans, for a pair worth comparing in full)."""
    common = a.keys & b.keys
    if not common:
        return None
    bound_a = settings.k * sum(len(a.hashes[h]) for h in common)
    bound_b = settings.k * sum(len(b.hashes[h]) for h in common)
    if min(bound_a, bound_b) < settings.min_tokens or (
            bound_a < settings.threshold * a.coverage
            and bound_b < settings.threshold * b.coverage):
        return None
    match = similarity.compare(*spanned())
    return match if settings.flagged(match.share_a, match.share_b, match.tokens) else None


def _identical(prints, settings):
    """The :class:`similarity.Match` of a file with itself when flagged, else None."""
    match = similarity.compare(prints, prints)
    return match if settings.flagged(match.share_a, match.share_b, match.tokens) else None


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
        total.compared += report.compared
        total.cached += report.cached
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
