"""Disguised copies are listed, above every honest pair of their class (issue 41).

For each exercise, the class is every example and test submission and the
reference solution (and, for tic-tac-toe, tests/copies).  Each of them whose
exact copy would be listed (some hand in the template alone: too short to list
whatever is done to them) is copied with every obfuscation of tests/obfuscate.py
alone and with three of them at once (the triples taken in turn, so that every
triple is tried on some file), and the copy must be listed with its original and
have a larger share than any pair of two files of the class that is not listed.
Many of the class's own files are variants of one another (a bug put into a
correct submission): those pairs are listed, rightly, and are no honest pair.

Each class is fingerprinted once (:func:`the_class`), and each file's copies
with one obfuscation are made once for this module (:func:`copies_with_one`:
listed, and for tic-tac-toe and Connect 4 compiled).
"""
import ast
import functools
import gc
import itertools

import pytest

import obfuscate
from grader.batch import canonical, similarity
from gradertest import ROOT, SUBMISSIONS

SETTINGS = similarity.Settings()
TEMPLATES = {'tictactoe': 'tictactoe.py', 'connect4': 'connect4.py',
             'eightpuzzle': 'eightpuzzle.py', 'travel': 'travel/src/citymap.py'}
TRIPLES = [c for c in obfuscate.combinations(3) if len(c) == 3]


@pytest.fixture(autouse=True, scope='module')
def fewer_collections():
    """The tests here parse, rewrite and drop some 4,000 syntax trees of thousands of nodes
    each.  At CPython's default threshold (a collection every 700 new objects) the tree
    alive at each collection is moved on to the oldest generation, and the full
    collections that follow walk the whole test process (every module pytest and the
    suite loaded): about 2 s, a sixth of this module's CPU time.  The threshold is raised
    while its tests run, and put back after them."""
    threshold = gc.get_threshold()
    gc.set_threshold(50_000, *threshold[1:])
    yield
    gc.set_threshold(*threshold)


def sources(exercise):
    """``{path: text}`` of the class of ``exercise`` (files that parse)."""
    name = TEMPLATES[exercise].split('/')[-1]
    paths = sorted((SUBMISSIONS / exercise).glob('*.py'))
    paths += sorted((SUBMISSIONS / exercise).glob('*/src/citymap.py'))
    paths += sorted(ROOT.glob(f'reference/{name}')) + sorted(ROOT.glob(f'examples/*/{name}'))
    paths += sorted(ROOT.glob(f'examples/*/src/{name}'))
    if exercise == 'tictactoe':
        paths += sorted((ROOT / 'tests' / 'copies').rglob('*.py'))
    out = {}
    for path in paths:
        text = path.read_text()
        try:
            ast.parse(text)
        except SyntaxError:
            continue
        out[str(path.relative_to(ROOT))] = text
    return out


@functools.lru_cache(maxsize=None)
def the_class(exercise):
    """``(boilerplate, {path: (text, prints)} of the files an exact copy of which is
    listed, the largest share of a pair of the class's files that is not listed)``."""
    boilerplate = similarity.every_kgram((ROOT / 'student_template' / TEMPLATES[exercise])
                                         .read_text(), SETTINGS)
    files = {path: (text, similarity.fingerprint(text, SETTINGS, boilerplate))
             for path, text in sources(exercise).items()}
    ceiling = 0.0
    for a, b in itertools.combinations(sorted(files), 2):
        match = similarity.compare(files[a][1], files[b][1])
        if not SETTINGS.flagged(match.share_a, match.share_b, match.tokens):
            ceiling = max(ceiling, match.share_a, match.share_b)
    listable = {}
    for path, (text, prints) in files.items():
        itself = similarity.compare(prints, prints)
        if SETTINGS.flagged(itself.share_a, itself.share_b, itself.tokens):
            listable[path] = (text, prints)
    return boilerplate, listable, ceiling


@pytest.fixture(scope='module')
def copies_with_one():
    """``copies(exercise)``: ``{path: [(copy, obfuscations applied)]}``, each file of
    :func:`the_class` copied with each obfuscation alone (in the order of
    :data:`obfuscate.OBFUSCATIONS`), seeded with the file's number (its place in the
    sorted paths); made once for the module's tests, dropped after them."""
    @functools.lru_cache(maxsize=None)
    def copies(exercise):
        files = the_class(exercise)[1]
        return {path: [obfuscate.disguised(files[path][0], [name], seed=number)
                       for name in obfuscate.OBFUSCATIONS]
                for number, path in enumerate(sorted(files))}
    return copies


def three_obfuscations(number, text):
    """``(copy, obfuscations applied)`` of two copies of ``text``, file ``number`` of its
    class, each with a triple of obfuscations (taken in turn); ``copy`` is None when none
    applied."""
    for turn in range(2):
        names = TRIPLES[(2 * number + turn) % len(TRIPLES)]
        tree, applied = obfuscate.obfuscated(text, names, seed=number)
        yield (obfuscate.written(tree) if applied else None), applied


def missed(exercise, copies):
    """``[(path, obfuscations, share, tokens)]`` of the copies ``copies(number of the file,
    path, text)`` gives (``(copy, obfuscations applied)``; a copy none of whose
    obfuscations applied is not looked at) that are not listed above every honest pair."""
    boilerplate, files, ceiling = the_class(exercise)
    out = []
    for number, path in enumerate(sorted(files)):
        text, prints = files[path]
        for copy, applied in copies(number, path, text):
            if not applied:
                continue
            match = similarity.compare(prints, similarity.fingerprint(copy, SETTINGS,
                                                                      boilerplate))
            share = max(match.share_a, match.share_b)
            if not SETTINGS.flagged(match.share_a, match.share_b, match.tokens) \
                    or share <= ceiling:
                out.append((path, applied, share, match.tokens))
    return out


@pytest.mark.parametrize('exercise', sorted(TEMPLATES))
def test_a_copy_with_any_one_obfuscation_is_listed_above_every_honest_pair(
        exercise, copies_with_one):
    _, files, ceiling = the_class(exercise)
    assert len(files) >= 15 and ceiling > 0.3
    copies = copies_with_one(exercise)
    assert missed(exercise, lambda number, path, text: copies[path]) == []


@pytest.mark.parametrize('exercise', sorted(TEMPLATES))
def test_a_copy_with_three_obfuscations_is_listed_above_every_honest_pair(exercise):
    assert missed(exercise, lambda number, path, text: three_obfuscations(number, text)) == []


def test_every_obfuscation_changes_code_and_keeps_it_python(copies_with_one):
    changed = {name: 0 for name in obfuscate.OBFUSCATIONS}
    for exercise in ('tictactoe', 'connect4'):
        copies = copies_with_one(exercise)
        for path, (text, _) in the_class(exercise)[1].items():
            original = ast.dump(ast.parse(text))
            for name, (copy, applied) in zip(obfuscate.OBFUSCATIONS, copies[path]):
                tree = ast.parse(copy)  # the copy parses, and compiles:
                compile(tree, name, 'exec')
                if applied:
                    assert ast.dump(tree) != original, name
                    changed[name] += 1
    assert all(count >= 3 for count in changed.values()), changed


def test_without_the_canonical_form_the_obfuscations_hide_a_copy(monkeypatch):
    """The attack is real: with the code fingerprinted as written (no canonical form), a
    no-op after every statement, alone or with two more obfuscations, hides honest_a's
    copy; with it, the copy is whole."""
    original = (ROOT / 'tests' / 'copies' / 'honest_a.py').read_text()
    template = (ROOT / 'student_template' / 'tictactoe.py').read_text()
    attacks = [['no_ops'], ['no_ops', 'swapped_operands', 'spelled_out']]
    seen = [similarity.similar(original, obfuscate.disguised(original, names)[0], SETTINGS,
                               template) for names in attacks]
    assert all(min(m.share_a, m.share_b) >= 0.9 for m in seen), seen
    monkeypatch.setattr(canonical, 'canonical', lambda tree, bound: tree)
    hidden = [similarity.similar(original, obfuscate.disguised(original, names)[0],
                                 SETTINGS, template) for names in attacks]
    assert not any(SETTINGS.flagged(m.share_a, m.share_b, m.tokens) for m in hidden), hidden


@pytest.mark.parametrize('name', ['no_ops', 'spelled_out', 'while_loops'])
def test_what_the_canonical_form_undoes_leaves_the_same_tokens(name):
    for exercise in ('tictactoe', 'connect4', 'eightpuzzle'):
        text = (ROOT / 'reference' / f'{exercise}.py').read_text()
        copy, applied = obfuscate.disguised(text, [name])
        if applied:
            assert [w for _, w, _ in similarity.normalise(copy)] == \
                [w for _, w, _ in similarity.normalise(text)], exercise
