"""Similar code in a class and from known solutions, on files (nothing is graded here).

tests/copies holds a class as an instructor would meet it: two honest,
independent tic-tac-toe solutions (``honest_a``: plain minimax on the
board with two helpers; ``honest_b``: alpha-beta on copies of the board), a
copy of ``honest_a`` with every name changed, its functions reordered and
other comments and blank lines (``renamed_a``), a known solution
(``known/tictactoe.py``, as found in a public repository) and a hand-in
made from it the same way (``from_known``).  Each is a whole hand-in: the
handout's template with the student's code.
"""
import dataclasses
import hashlib
import itertools
import json
import subprocess
import sys

import numpy
import pytest

from grader import config
from grader.batch import archives, copies, pages, similarity
from grader.batch.gradebook import Gradebook
from grader.batch.identity import Identity
from grader.errors import UserError
from gradertest import ROOT

COPIES = ROOT / 'tests' / 'copies'
TEMPLATE = (ROOT / 'student_template' / 'tictactoe.py').read_text()
SETTINGS = similarity.Settings()


def text(name):
    return (COPIES / f'{name}.py').read_text()


def the_class():
    """The hand-ins (an exact copy of ``honest_b`` among them) and the known solution."""
    codes = [copies.Code(name, text(name))
             for name in ('honest_a', 'honest_b', 'renamed_a', 'from_known')]
    codes.append(copies.Code('copy_b', text('honest_b')))
    known = copies.known_files(COPIES / 'known', 'tictactoe', ['tictactoe.py'])
    return codes, known


def flagged(report):
    return {(p.a.name, p.b.name) for p in report.pairs}


def test_copies_are_flagged_and_the_honest_pair_is_not():
    codes, known = the_class()
    report = copies.compare_class('tictactoe', codes, known, SETTINGS, TEMPLATE)
    assert flagged(report) == {('copy_b', 'honest_b'), ('honest_a', 'renamed_a'),
                               ('from_known', 'known:tictactoe.py')}
    exact = next(p for p in report.pairs if p.a.name == 'copy_b')
    assert (exact.match.share_a, exact.match.share_b) == (1.0, 1.0)
    # only the pairs of different files that share a fingerprint were looked at (of the 6
    # pairs of the 4 different hand-ins and their 4 pairs with the known solution), once
    assert report.compared == len(sharing_pairs(codes, known)) < 6 + 4
    assert frozenset({'honest_a', 'honest_b'}) not in sharing_pairs(codes, known)


def sharing_pairs(codes, known, template=TEMPLATE):
    """The pairs of different files (by name) that share a fingerprint, by brute force."""
    boilerplate = similarity.every_kgram(template, SETTINGS)
    files = {c.digest: c for c in known + codes}
    prints = {d: similarity.fingerprint(c.text, SETTINGS, boilerplate)
              for d, c in files.items()}
    return {frozenset({files[a].name, files[b].name})
            for a, b in itertools.combinations(sorted(files), 2)
            if not (files[a].known and files[b].known)
            and similarity.shared(prints[a], prints[b])}


def test_a_renamed_reordered_copy_ranks_above_every_honest_pair():
    files = {name: text(name) for name in ('honest_a', 'honest_b', 'renamed_a', 'from_known')}
    files['known'] = (COPIES / 'known' / 'tictactoe.py').read_text()
    files.update({f'example:{p.stem}': p.read_text() for p in [
        ROOT / 'reference' / 'tictactoe.py', ROOT / 'examples' / 'alice' / 'tictactoe.py',
        ROOT / 'tests' / 'submissions' / 'tictactoe' / 'minimax_builtin_max.py',
        ROOT / 'tests' / 'submissions' / 'tictactoe' / 'alphabeta_nested.py']})
    copied = {frozenset({'honest_a', 'renamed_a'}), frozenset({'known', 'from_known'})}
    shares = {}
    for a, b in itertools.combinations(sorted(files), 2):
        match = similarity.similar(files[a], files[b], SETTINGS, TEMPLATE)
        shares[frozenset({a, b})] = max(match.share_a, match.share_b)
    honest = max(s for pair, s in shares.items() if pair not in copied)
    assert min(shares[pair] for pair in copied) > honest + 0.3, shares
    assert honest < SETTINGS.threshold


def test_names_comments_blank_lines_and_order_do_not_change_a_function():
    """The copy's ``Minimax`` reads the same as the original's once normalised."""
    def minimax_words(code):
        tokens = similarity.normalise(code)
        first = code.index('def Minimax')
        unit = next(u for u, _, (start, _) in tokens if start == first)
        return [word for u, word, _ in tokens if u == unit]

    original, copy = minimax_words(text('honest_a')), minimax_words(text('renamed_a'))
    assert original == copy
    assert len(original) > 100 and '#1' in original and 'S' in original


def test_two_short_independent_solutions_of_one_function_are_not_flagged():
    """Short code written to one specification is alike by nature: one heuristic, written
    twice, matches whole but is far too short to be worth a look."""
    one = ('def manhattan(state, goal):\n'
           '    total = 0\n'
           '    for tile in range(1, 9):\n'
           '        i, j = state.index(tile), goal.index(tile)\n'
           '        total += abs(i // 3 - j // 3) + abs(i % 3 - j % 3)\n'
           '    return total\n')
    other = ('def h(board, target):\n'
             '    # sum of the distances of every tile\n'
             '    s = 0\n'
             '    for t in range(1, 9):\n'
             '        a, b = board.index(t), target.index(t)\n'
             '        s += abs(a // 3 - b // 3) + abs(a % 3 - b % 3)\n'
             '    return s\n')
    match = similarity.similar(one, other, SETTINGS)
    assert match.share_a > 0.9 and match.share_b > 0.9      # the same code...
    assert match.tokens < SETTINGS.min_tokens                 # ... but short
    assert not SETTINGS.flagged(match.share_a, match.share_b, match.tokens)


def test_the_handouts_template_is_left_out():
    """Two students who handed in the template with a few changes of their own share the
    template, not a copy."""
    one = TEMPLATE.replace('    # TODO: your search here.\n    return None\n',
                           '    return (0, board.index(\'-\'))\n')
    other = TEMPLATE.replace('    # TODO: your search here.\n    return None\n',
                             '    for i in range(9):\n        if board[i] == \'-\':\n'
                             '            return 0, i\n')
    assert similarity.similar(one, other, SETTINGS).tokens > SETTINGS.min_tokens
    left_out = similarity.similar(one, other, SETTINGS, TEMPLATE)
    assert left_out.tokens == 0 and not SETTINGS.flagged(left_out.share_a, left_out.share_b,
                                                          left_out.tokens)


PRINTS = ('import json, sys; from grader.batch import similarity; '
          'p = similarity.fingerprint(sys.stdin.read(), similarity.Settings()); '
          'print(json.dumps([hash("salt"), p.hashes.tolist(), p.starts.tolist()]))')


def test_fingerprints_are_the_same_in_every_process():
    """Stable hashes (not Python's salted ``hash``): what one process or Dask worker stored
    compares with what another computes."""
    salt, *there = json.loads(subprocess.run(
        [sys.executable, '-c', PRINTS], input=text('honest_b'), capture_output=True,
        text=True, check=True, env={'PYTHONHASHSEED': '0', 'PATH': '/usr/bin:/bin'}).stdout)
    assert salt != hash('salt')             # another process, salted otherwise
    here = similarity.fingerprint(text('honest_b'), SETTINGS)
    assert there == [here.hashes.tolist(), here.starts.tolist()] and len(there[0]) > 50


def test_code_that_does_not_parse_is_still_compared():
    """A hand-in with a syntax error (graded as such) is read token by token."""
    broken = text('honest_a').replace('def other(player):', 'def other(player)')
    match = similarity.similar(broken, text('renamed_a'), SETTINGS, TEMPLATE)
    assert SETTINGS.flagged(match.share_a, match.share_b, match.tokens)


# -- in the gradebook: only what changed is compared again ---------------------------------
def store(book, key, code, run_id):
    files = {'tictactoe.py': code.encode()}
    book.put_submission(Identity(key=key, student_id=key), archives.content_hash(files),
                        archives.pack(files), '', run_id)


@pytest.fixture
def compared_class(tmp_path, policy):
    known = tmp_path / 'known'
    (known / 'tictactoe').mkdir(parents=True)
    (known / 'tictactoe' / 'public.py').write_bytes((COPIES / 'known' / 'tictactoe.py')
                                                    .read_bytes())
    course = dataclasses.replace(policy, similarity={
        'known': known, 'template': ROOT / 'student_template'})
    book = Gradebook(tmp_path / 'out', create=True)
    run_id = book.start_run('batch')
    codes, _ = the_class()
    for code in codes:
        store(book, code.name, code.text, run_id)
    yield book, course, run_id
    book.close()


def test_a_resumed_batch_compares_only_the_files_that_changed(compared_class):
    book, course, run_id = compared_class
    first = copies.run(book, course)
    codes, known = the_class()
    assert first.compared == len(sharing_pairs(codes, known)) and first.cached == 0
    assert flagged(first) == {('copy_b', 'honest_b'), ('honest_a', 'renamed_a'),
                              ('from_known', 'known:tictactoe/public.py')}
    again = copies.run(book, course)
    # the 4 different hand-ins' 6 pairs and their 4 pairs with the known solution
    assert (again.compared, again.cached) == (0, 6 + 4)
    assert [(p.a.name, p.b.name, p.match) for p in again.pairs] == \
        [(p.a.name, p.b.name, p.match) for p in first.pairs]
    # honest_b hands in again, now a copy of honest_a with a comment of its own: that
    # file is compared with those of the 4 others (copy_b's among them) and the known
    # solution that share a fingerprint with it, and no other pair
    store(book, 'honest_b', text('honest_a') + '# my own work\n', run_id)
    changed = copies.run(book, course)
    new = copies.Code('honest_b', text('honest_a') + '# my own work\n')
    others = [c for c in codes if c.name != 'honest_b'] + known
    assert changed.compared == sum(1 for c in others if {'honest_b', c.name} in
                                   sharing_pairs([new], [c] if c.known else [])
                                   | sharing_pairs([new, c], [])) > 0
    assert ('honest_a', 'honest_b') in flagged(changed)
    assert ('copy_b', 'honest_b') not in flagged(changed)
    # ... and once more, the very file of honest_a: nothing to compare, and a copy
    store(book, 'honest_b', text('honest_a'), run_id)
    same = copies.run(book, course)
    assert same.compared == 0 and ('honest_a', 'honest_b') in flagged(same)


def test_similarity_csv_and_views_escape_what_students_wrote(compared_class, tmp_path):
    book, course, run_id = compared_class
    hostile = text('honest_a').replace('"""The mark that moves after ``player``."""',
                                       '"""</pre><script>document.title="pwned"</script>"""')
    store(book, 'mallory', hostile, run_id)
    report = copies.run(book, course)
    written = copies.write(report, tmp_path / 'out')
    assert written[0].read_text().splitlines()[0] == ','.join(copies.COLUMNS)
    pair = next(p for p in report.pairs if 'mallory' in (p.a.name, p.b.name))
    page = (tmp_path / 'out' / copies.view_name(pair)).read_text()
    assert '&lt;script&gt;document.title' in page and '<script>' not in page
    assert page.count('<mark>') >= 1
    assert hashlib.sha256(page.encode()).hexdigest() == hashlib.sha256(
        pages.pair_view(pair).encode()).hexdigest()


# -- grading.yaml --------------------------------------------------------------------
def policy_with(tmp_path, similarity_yaml):
    text = (ROOT / 'grading.yaml').read_text().replace(
        '\nexercises:\n', f'\nsimilarity: {similarity_yaml}\n\nexercises:\n', 1)
    path = tmp_path / 'grading.yaml'
    path.write_text(text)
    return path


def test_similarity_in_grading_yaml(tmp_path):
    (tmp_path / 'known-solutions').mkdir()
    policy = config.load(policy_with(tmp_path, '{known: known-solutions/, threshold: 0.7}'))
    assert policy.similarity['known'] == tmp_path / 'known-solutions'
    assert copies.settings_of(policy.similarity).threshold == 0.7
    with pytest.raises(UserError) as error:
        config.load(policy_with(tmp_path, '{known: nowhere/}'))
    message = str(error.value)
    assert 'similarity.known: nowhere/ is not a folder' in message and '\n' not in message
    assert 'grading.yaml:' in message
    with pytest.raises(UserError) as error:
        config.load(policy_with(tmp_path, '{threshold: 2}'))
    assert 'similarity.threshold' in str(error.value) and '\n' not in str(error.value)
    shared = config.load(policy_with(tmp_path, '{common_share: 0.3}'))
    assert copies.settings_of(shared.similarity).common_share == 0.3
    assert copies.settings_of({}).common_share == 0.5
    with pytest.raises(UserError) as error:
        config.load(policy_with(tmp_path, '{common_share: 0}'))
    assert 'similarity.common_share' in str(error.value) and '\n' not in str(error.value)


# -- code most of the class holds --------------------------------------------------------
INDEPENDENT = [
    'tests/submissions/tictactoe/alphabeta_default_args.py',
    'tests/submissions/tictactoe/alphabeta_many_helpers.py',
    'tests/submissions/tictactoe/bug_ties_min_takes_equal_bound.py',
    'tests/submissions/tictactoe/import_infinite_loop.py',
    'tests/submissions/tictactoe/minimax_builtin_max.py',
    'tests/submissions/tictactoe/minimax_inline_terminal.py',
    'tests/copies/honest_a.py', 'tests/copies/honest_b.py',
    'tests/submissions/eightpuzzle/astar_node_class.py',
    'tests/submissions/eightpuzzle/bug_no_better_path_test.py',
    'tests/submissions/connect4/alphabeta_deepcopy.py', 'reference/connect4.py']
"""Solutions no two of which are alike, once the code of their own exercise's template
that they hand in unchanged is taken out (:func:`own_code`)."""
HANDOUT = (ROOT / 'student_template' / 'connect4.py').read_text()


def own_code(path):
    """The top-level code of a solution that its exercise's template does not hold as it is
    (imports, docstrings and ``if __name__`` blocks left out too)."""
    import ast
    exercise = path.split('/')[-2] if 'submissions' in path else (
        'tictactoe' if 'copies' in path else 'connect4')
    template = ast.parse((ROOT / 'student_template' / f'{exercise}.py').read_text())
    same = {ast.dump(node) for node in template.body}
    tree = ast.parse((ROOT / path).read_text())
    tree.body = [n for n in tree.body if ast.dump(n) not in same and not isinstance(
        n, (ast.Import, ast.ImportFrom, ast.If, ast.Expr))]
    return ast.unparse(tree) + '\n'


def handout_class():
    """Twelve independent hand-ins, each the course's handout (connect four's template
    here, never given as the template) with a student's own code under it."""
    return [copies.Code(f'student{i:02d}', HANDOUT + '\n\n' + own_code(path))
            for i, path in enumerate(INDEPENDENT)]


def test_code_most_of_the_class_holds_is_boilerplate_without_the_template():
    alone = [copies.Code(c.name, own_code(p)) for c, p in zip(handout_class(), INDEPENDENT)]
    assert copies.compare_class('tictactoe', alone, [], SETTINGS).pairs == []
    codes = handout_class()
    everything = dataclasses.replace(SETTINGS, common_share=1.0)  # the rule off
    shared = copies.compare_class('tictactoe', codes, [], everything)
    assert len(shared.pairs) >= 60 and shared.common == 0        # of 66 pairs
    report = copies.compare_class('tictactoe', codes, [], SETTINGS)
    assert report.pairs == [] and report.common > 100
    # ... while a disguised copy among them is still listed, and alone
    import obfuscate
    copy = obfuscate.disguised(codes[6].text, ['no_ops', 'swapped_operands', 'reordered'])[0]
    report = copies.compare_class('tictactoe', codes + [copies.Code('copier', copy)], [],
                                  SETTINGS)
    assert flagged(report) == {('copier', 'student06')}


def test_a_class_below_ten_keeps_the_code_its_hand_ins_share():
    """Nine hand-ins are too few to tell what a class shares: nothing is left out."""
    report = copies.compare_class('tictactoe', handout_class()[:9], [], SETTINGS)
    assert report.common == 0 and len(report.pairs) >= 30


# -- the side-by-side view ---------------------------------------------------------------
def test_a_disguised_copy_is_marked_in_whole_regions_across_the_inserted_lines():
    """A no-op after every statement (and operands and statements swapped): the view marks
    the copied functions as regions that run on across the inserted lines, no more regions
    than in the original, not a fragment per line."""
    import ast

    import obfuscate
    original = text('honest_a')
    copy = obfuscate.disguised(original, ['no_ops', 'swapped_operands', 'reordered'])[0]
    match = similarity.similar(original, copy, SETTINGS, TEMPLATE)
    assert SETTINGS.flagged(match.share_a, match.share_b, match.tokens)
    assert len(match.spans_b) <= len(match.spans_a) <= 3
    offsets = [0]
    for line in copy.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    inserted = [s.lineno - 1 for s in ast.walk(ast.parse(copy))
                if isinstance(s, ast.stmt) and obfuscate_no_op(s)]
    marked = [line for line in inserted if any(start <= offsets[line] < end
                                                for start, end in match.spans_b)]
    # the no-ops of the copied functions (other, empty_cells, Minimax) are inside a region:
    # the others follow the template's code (left out) or end a function
    assert len(marked) >= 15


def obfuscate_no_op(statement):
    """Whether a statement is one of the no-ops tests/obfuscate.py inserts."""
    import ast
    code = ast.unparse(statement)
    return code == 'pass' or code.startswith(('unused_', 'print_guard_', 'scratch_', 'print('))


def test_the_index_counts_the_shared_tokens_a_comparison_of_the_pair_counts():
    """What the index counts for one file against all the others at once is what comparing
    each pair gives: the tokens of each side the shared fingerprints cover."""
    from grader.batch import fingerprints
    boilerplate = similarity.every_kgram(TEMPLATE, SETTINGS)
    texts = [text(n) for n in ('honest_a', 'honest_b', 'renamed_a', 'from_known')]
    texts += [(ROOT / p).read_text() for p in INDEPENDENT[:6]]
    prints = [similarity.fingerprint(t, SETTINGS, boilerplate) for t in texts]
    index = fingerprints.Index.of(prints)
    shared_pairs = 0
    for i, one in enumerate(prints):
        others = numpy.ones(len(prints), dtype=bool)
        others[i] = False
        files, here, there = index.overlap(one, SETTINGS.k, others)
        for j, covered_here, covered_there in zip(files, here, there):
            match = similarity.compare(one, prints[j])
            assert round(covered_here / one.coverage, 4) == match.share_a
            assert round(covered_there / prints[j].coverage, 4) == match.share_b
            shared_pairs += 1
        assert set(files) == {j for j in range(len(prints))
                              if j != i and similarity.shared(one, prints[j])}
    assert shared_pairs >= 20


BEFORE_ISSUE_41 = {('honest_a', 'honest_b'): 0.00, ('honest_a', 'known'): 0.00,
                   ('honest_b', 'known'): 0.16, ('from_known', 'honest_b'): 0.16,
                   ('honest_b', 'renamed_a'): 0.00, ('from_known', 'honest_a'): 0.00,
                   ('from_known', 'renamed_a'): 0.00, ('known', 'renamed_a'): 0.00}
"""The larger share of each honest pair of tests/copies before the canonical form (issue
41), the template left out."""


def test_honest_pairs_stay_at_or_below_their_shares_before_the_canonical_form():
    files = {name: text(name) for name in ('honest_a', 'honest_b', 'renamed_a', 'from_known')}
    files['known'] = (COPIES / 'known' / 'tictactoe.py').read_text()
    for (a, b), before in BEFORE_ISSUE_41.items():
        match = similarity.similar(files[a], files[b], SETTINGS, TEMPLATE)
        assert max(match.share_a, match.share_b) <= before, (a, b, match)


def test_a_resumed_batch_with_code_the_class_shares_compares_only_the_new_file(tmp_path,
                                                                               policy):
    """Twelve hand-ins under one handout, no template given: a thirteenth hand-in (a
    disguised copy) is compared alone, the class's common code being the same."""
    import obfuscate
    course = dataclasses.replace(policy, similarity={})
    with Gradebook(tmp_path / 'out', create=True) as book:
        run_id = book.start_run('batch')
        codes = handout_class()
        for code in codes:
            store(book, code.name, code.text, run_id)
        first = copies.run(book, course)
        assert first.pairs == [] and first.common > 100 and first.cached == 0
        copy = obfuscate.disguised(codes[3].text, ['while_loops', 'dead_function'])[0]
        store(book, 'copier', copy, run_id)
        again = copies.run(book, course)
        assert again.common == first.common
        assert again.cached == 12 * 11 // 2 and 0 < again.compared <= 12
        assert flagged(again) == {('copier', 'student03')}


def test_a_hand_in_that_is_a_known_solution_word_for_word_is_listed_with_it():
    codes, known = the_class()
    codes.append(copies.Code('verbatim', known[0].text))
    report = copies.compare_class('tictactoe', codes, known, SETTINGS, TEMPLATE)
    exact = [p for p in report.pairs if p.a.name == 'verbatim' and p.b.known]
    assert [(p.match.share_a, p.match.share_b) for p in exact] == [(1.0, 1.0)]
