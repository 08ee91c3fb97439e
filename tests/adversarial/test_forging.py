"""Submissions that try to win points without the work, each beside its honest twin.

Every file in ``forging/`` is graded as a tic-tac-toe submission through the real
engine, as an official grade (positions drawn at grading time included), with
``alphabeta_twin.py`` beside it (some attacks borrow its search): in ``make test`` on two
public cases of each kind and two drawn positions (:func:`course`), in ``make slow`` under
the course itself.  The table
below gives the verdict each deserves: the score, the facts, and words its
report must (or must not) contain.  The honest twins -- ``alphabeta_twin`` (an
ordinary alpha-beta) and ``minimax_twin`` (an ordinary minimax) -- show what
the same search earns without the trick: every trick gains nothing.
"""
import json
import math
import shutil
import sys
import time
from pathlib import Path

import pytest

from gradertest import ROOT, SUBMISSIONS, drawing_less, one_of_each_kind, with_exercise

HERE = Path(__file__).resolve().parent / 'forging'
TWIN = HERE / 'alphabeta_twin.py'
MINIMAX = SUBMISSIONS / 'tictactoe' / 'minimax_make_undo.py'

FULL = 2.5
VERDICTS = {
    # name: (score or (low, high), facts, words in the report, words never in the report)
    'alphabeta_twin': (FULL, {'prunes': True, 'searched': True}, [], []),
    'minimax_twin': (FULL, {'prunes': False, 'searched': True}, [], []),
    # issue: plain minimax credited "prunes" through a counter that saw nothing
    'stack_minimax': (FULL, {'prunes': False, 'searched': True}, ['could not be counted'], []),
    'generator_minimax': (FULL, {'prunes': False, 'searched': True}, [], []),
    'closure_minimax': (FULL, {'prunes': False, 'searched': True}, [], []),
    'thread_minimax': (FULL, {'prunes': False, 'searched': True}, [], []),
    'memo_minimax': (FULL, {'prunes': False, 'searched': True}, [], []),
    'one_run_memo': (0.0, {'prunes': False, 'tampered': True}, ["changed the grader's own code"],
                     []),
    'renamed_minimax': (FULL, {'prunes': False, 'searched': True}, [], []),
    'patched_counter': (FULL, {'prunes': False}, [], []),
    'forged_reply': ((0.0, FULL), {'prunes': False}, [], []),
    # issue: counts made where the submission cannot reach (the C counter)
    'patched_trampoline': ((0.0, FULL), {'prunes': False}, [], []),
    'hidden_recursion': (FULL, {'prunes': False, 'searched': True}, [], []),
    # (the collector's walk is refused once sealed: its import fails)
    'input_at_import': ((0.0, FULL), {'prunes': False}, [], []),
    'patched_decoder': (0.0, {'prunes': False, 'tampered': True},
                        ["changed the grader's own code"], []),
    # issue: searches where the counter cannot see (a plain minimax inside the route, a
    # counted dummy of a quarter its size outside): counted, or the run is void
    'monitoring_search': ((0.0, FULL), {'prunes': False}, [], []),
    'signal_search': ((0.0, FULL), {'prunes': False}, [], []),
    'finalizer_search': ((0.0, FULL), {'prunes': False}, [], []),
    'weakref_search': ((0.0, FULL), {'prunes': False}, [], []),
    'gc_callback_search': ((0.0, FULL), {'prunes': False}, [], []),
    'atexit_search': ((0.0, FULL), {'prunes': False}, [], []),
    'audit_hook_search': ((0.0, FULL), {'prunes': False}, [], []),
    'profile_search': ((0.0, FULL), {'prunes': False}, [], []),
    # every function of every grader module in the case process: replaced, or called
    'every_attribute_wrapped': ((0.0, FULL), {'prunes': False}, [], []),
    'every_attribute_called': ((0.0, FULL), {'prunes': False}, [], []),
    # time limits enforced from outside
    'blocked_signals': (0.0, {'prunes': False}, ['timed out'], []),
    # answers without a search
    'public_table': ((0.0, 0.5), {'prunes': False, 'searched': False}, [], []),
    'complete_table': (0.0, {'prunes': False, 'searched': False},
                       ['answered without a search'], []),
    # (the one-mark answers come from a real alpha-beta; positions won in one need no proof)
    'table_one_counted': ((0.0, 1.0), {'prunes': False}, ['answered without a search'], []),
    'table_constant_counts': (0.0, {'prunes': False, 'tampered': True},
                              ['more search calls than the whole game tree'], []),
    'calibration_minimax': (0.0, {'prunes': False}, [], []),
    # honest code that must not be called tampered, or lose to the grader's instrument
    'monitoring_hog': (FULL, {'prunes': True, 'tampered': False}, [], ['ValueError']),
    'honest_noise': (FULL, {'prunes': True, 'tampered': False}, [], ['measurement tampered']),
    'unused_import': (FULL, {'prunes': True}, ['`requests` is not available', 'stand-in'], []),
    # replies that must not crash the grader
    'exit_125': (0.0, {}, ['exited with status 125'], ['sandbox']),
    'odd_observation': (0.0, {}, ['did not have the expected shape'], []),
    'deep_reply': ((0.0, 2.4), {}, ['not well-formed JSON'], []),
    'nan_reply': ((0.0, 2.4), {}, ['not well-formed JSON'], []),
}


ROUTE_TRICKS = ('monitoring_search', 'signal_search', 'finalizer_search', 'weakref_search',
                'gc_callback_search', 'atexit_search', 'audit_hook_search', 'profile_search')
"""Searches run where a counter might not look: each route is counted or voids the run."""

COURSE_CASES = {'table_one_counted'}
"""Tricks graded on the course's own public cases in ``make test`` too: its real alpha-beta
answers the one-mark positions, which the first two pruning positions are, so only the
course's later ones show that the table does not prune."""

ENDLESS = {'blocked_signals'}
"""Tricks that never answer: they time out under any limit, so they are graded under 5
units (at least 0.3 s) instead of the course's 40, and stopped from outside just the same."""


TABLE_TRICKS = {
    # the table, and the twin's real alpha-beta (counted) on the one-mark positions only
    'table_one_counted': [
        'import alphabeta_twin', '',
        'def Minimax(board, maximizingplayer, player):',
        "    if board.count('-') == 8:",
        '        return alphabeta_twin.Minimax(board, maximizingplayer, player)',
        "    return ANSWERS.get((''.join(board), maximizingplayer, player), (0, None))", ''],
    # the table, a counted dummy recursion of a constant size and CPU burnt in each call
    'table_constant_counts': [
        'import time', '',
        'def dummy(n):',
        '    return dummy(n - 1) if n > 1 else None', '',
        'def Minimax(board, maximizingplayer, player):',
        '    dummy(400)',
        '    until = time.thread_time() + 0.004',
        '    while time.thread_time() < until:',
        '        pass',
        "    return ANSWERS.get((''.join(board), maximizingplayer, player), (0, None))", ''],
}
"""Tricks built on :func:`complete_table`: the lines that replace its ``Minimax``."""


def complete_table(folder, minimax=None):
    """A tictactoe.py holding the answer of every reachable position, and no search (or the
    ``minimax`` lines in place of its plain look-up)."""
    sys.path.insert(0, str(ROOT))
    from reference.oracles import tictactoe as oracle
    answers, stack, seen = {}, [('-' * 9, mark) for mark in 'XO'], set()
    while stack:
        cells, mover = stack.pop()
        if (cells, mover) in seen:
            continue
        seen.add((cells, mover))
        board = list(cells)
        if oracle.winner(board) is not None or '-' not in board:
            continue
        for maximizing in (True, False):
            top = mover if maximizing else oracle.other(mover)
            value, best, _, _ = oracle.solve(cells, mover, top)
            answers[(cells, maximizing, mover)] = (value, best[0])
        for move in range(9):
            if board[move] == '-':
                stack.append((cells[:move] + mover + cells[move + 1:], oracle.other(mover)))
    lines = ['"""Every reachable position\'s answer, and no search at all."""',
             f'ANSWERS = {answers!r}', '',
             *(minimax or [
                 'def Minimax(board, maximizingplayer, player):',
                 "    return ANSWERS.get((''.join(board), maximizingplayer, player), (0, None))",
                 ''])]
    (folder / 'tictactoe.py').write_text('\n'.join(lines))
    return len(answers)


@pytest.fixture(scope='module')
def course(policy, tmp_path_factory):
    """The course the tricks are graded under in ``make test``: tic-tac-toe's public cases
    two of each kind (:func:`gradertest.one_of_each_kind`: every check keeps its cases, the
    pruning positions theirs) and :func:`gradertest.drawing_less` positions drawn; the
    course itself under ``GRADER_SLOW_TESTS`` (``make slow``).  What a trick gains is
    decided case by case, by the same checks: it gains nothing on fewer cases either, and
    the honest twins keep their full marks."""
    import os
    if os.environ.get('GRADER_SLOW_TESTS'):
        return policy
    folder = tmp_path_factory.mktemp('forging-course')
    fixtures = tuple(one_of_each_kind(path, folder / f'tictactoe-{i}.yaml', per_kind=2)
                     for i, path in enumerate(policy.exercises['tictactoe'].fixtures))
    return with_exercise(drawing_less(policy, 'tictactoe'), 'tictactoe', fixtures=fixtures)


@pytest.fixture(scope='module')
def graded(course, policy, run, tmp_path_factory):
    """``grade(name)``: ``(result, seconds)`` of one case, graded once in this module."""
    from grader import engine
    done = {}

    def grade(name):
        if name not in done:
            done[name] = grade_once(name)
        return done[name]

    def grade_once(name):
        folder = tmp_path_factory.mktemp('forging') / name
        folder.mkdir()
        shutil.copy(TWIN, folder / 'alphabeta_twin.py')
        if name == 'complete_table' or name in TABLE_TRICKS:
            assert complete_table(folder, TABLE_TRICKS.get(name)) > 8000
        elif name == 'minimax_twin':
            shutil.copy(MINIMAX, folder / 'tictactoe.py')
        else:
            shutil.copy(HERE / f'{name}.py', folder / 'tictactoe.py')
        this = policy if name in COURSE_CASES else course
        if name in ENDLESS:
            this = with_exercise(this, 'tictactoe', min_seconds=0.3, factors={'default': 5})
        this_run = engine.Run(this, calibration=run.calibration, isolation=run.isolation)
        started = time.monotonic()
        result = engine.grade(this, folder, run=this_run, only=['tictactoe'])
        return result, time.monotonic() - started
    return grade


@pytest.mark.parametrize('name', sorted(VERDICTS))
def test_the_trick_gains_nothing(name, graded):
    score, facts, words, never = VERDICTS[name]
    result, seconds = graded(name)
    exercise = result.exercise('tictactoe')
    report = json.dumps(result.to_dict(), allow_nan=False)   # NaN or Infinity would raise
    if isinstance(score, tuple):
        assert score[0] <= exercise.score <= score[1], (exercise.score, exercise.checks)
    else:
        assert exercise.score == pytest.approx(score), [(c.name, c.message)
                                                        for c in exercise.checks]
    for fact, value in facts.items():
        assert exercise.facts.get(fact) == value, (fact, exercise.facts.get(fact),
                                                   exercise.facts.get('evidence'))
    for word in words:
        assert word in report, word
    for word in never:
        assert word not in report, word
    assert exercise.generated.get('count', 0) > 0
    assert seconds < 60


def test_a_trick_never_beats_its_twin(graded):
    """The tricks that keep a correct search earn exactly what their twin earns, no more."""
    twin = graded('minimax_twin')[0].exercise('tictactoe')
    for name in ('stack_minimax', 'memo_minimax', 'one_run_memo', 'patched_counter',
                 'forged_reply', *ROUTE_TRICKS):
        tricked = graded(name)[0].exercise('tictactoe')
        assert tricked.score <= twin.score and not tricked.facts.get('prunes')
    assert not math.isnan(twin.score)
