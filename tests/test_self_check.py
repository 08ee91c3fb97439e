"""A quick self-check (``grader check``) does not make the long calls of a check that is
information only; a full one (``--full``) gives each a short limit of its own
(:data:`grader.engine.SELF_CHECK_UNITS`); an official grade keeps the course's.

The eight puzzle's hard and unsolvable starts are information by default (0 points), and
a list-based A* like the handout's uses up any limit on them.  A quick self-check leaves
them out and says so; in a full one such a call is stopped at the cap and reported as cut
short there, with the limit an official grade gives it; no score changes either way, and a
start that is answered in time is judged as always.
"""
import dataclasses

import pytest
import yaml

from grader import engine
from gradertest import ROOT, SUBMISSIONS, with_exercise

KEPT = ('length-00', 'length-10', 'length-31', 'unsolvable-swapped-7-8')
"""A required start, a heuristic one, a hard one and an unsolvable one (both graded by
default: grading.yaml's ``cases`` of the hard and unsolvable checks)."""


def self_check_run(policy, run, full=True):
    return engine.Run(policy, include_hidden=False, calibration=run.calibration,
                      isolation=run.isolation, full=full)


def test_only_information_checks_are_capped_and_only_in_a_self_check(policy, run):
    plugin = engine.plugins.get('eightpuzzle')
    settings = policy.exercises['eightpuzzle']
    assert settings.points('hard') == settings.points('unsolvable') == 0
    assert engine.self_check_caps(self_check_run(policy, run), plugin, settings) == {
        'hard': engine.SELF_CHECK_UNITS, 'unsolvable': engine.SELF_CHECK_UNITS}
    assert engine.self_check_caps(run, plugin, settings) == {}      # an official grade
    # A quick self-check makes none of the capped calls; a full one and an official grade
    # make every call.
    caps = engine.self_check_caps(self_check_run(policy, run), plugin, settings)
    assert engine.self_check_skips(self_check_run(policy, run, full=False), caps) == \
        {'hard', 'unsolvable'}
    assert engine.self_check_skips(self_check_run(policy, run), caps) == set()
    assert engine.self_check_skips(run, engine.self_check_caps(run, plugin, settings)) == set()
    # A check that carries points keeps the course's limit, in a self-check too.
    hard = dataclasses.replace(settings.checks['hard'], points=0.5)
    graded_hard = with_exercise(policy, 'eightpuzzle',
                                checks={**settings.checks, 'hard': hard})
    assert engine.self_check_caps(self_check_run(graded_hard, run), plugin,
                                  graded_hard.exercises['eightpuzzle']) == {
        'unsolvable': engine.SELF_CHECK_UNITS}
    # A limit already at or under the cap is left as it is.
    small = with_exercise(policy, 'eightpuzzle',
                          factors={**settings.factors, 'hard': 10, 'unsolvable': 10})
    assert engine.self_check_caps(self_check_run(small, run), plugin,
                                  small.exercises['eightpuzzle']) == {}
    # Exercises with no information-only calls of their own are never capped.
    for name in ('tictactoe', 'connect4', 'travel'):
        assert engine.self_check_caps(self_check_run(policy, run), engine.plugins.get(name),
                                      policy.exercises[name]) == {}


def with_starts(policy, folder, names):
    """The course with the eight puzzle's public starts ``names`` only."""
    settings = policy.exercises['eightpuzzle']
    path = folder / 'eightpuzzle.yaml'
    data = yaml.safe_load(settings.fixtures[0].read_text())
    data['cases'] = [case for case in data['cases'] if case['name'] in names]
    assert [case['name'] for case in data['cases']] == list(names)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return with_exercise(policy, 'eightpuzzle', fixtures=(path,))


@pytest.fixture(scope='module')
def four_starts(policy, tmp_path_factory):
    """The course with four of the eight puzzle's public starts (:data:`KEPT`)."""
    return with_starts(policy, tmp_path_factory.mktemp('starts'), KEPT)


def self_checked(course, run, folder, full=True):
    return engine.grade(course, folder, run=self_check_run(course, run, full=full),
                        only=['eightpuzzle']).exercise('eightpuzzle')


@pytest.fixture(scope='module')
def handout(tmp_path_factory):
    """The handout's list-style eight puzzle, handed in."""
    folder = tmp_path_factory.mktemp('handout')
    (folder / 'eightpuzzle.py').write_text(
        (SUBMISSIONS / 'eightpuzzle' / 'handout_style.py').read_text())
    return folder


@pytest.fixture(scope='module')
def handout_full(four_starts, run, handout):
    """Its full self-check on :func:`four_starts`."""
    return self_checked(four_starts, run, handout)


def test_the_handouts_list_style_is_cut_short_and_told_so(four_starts, run, handout_full):
    result = handout_full
    settings = four_starts.exercises['eightpuzzle']
    checks = {c.name: c for c in result.checks}
    # The required checks as in every grade: full marks (tests/submissions: 2.5).
    assert result.score == result.max_score == 2.5
    for name in ('hard', 'unsolvable'):
        assert not checks[name].passed and checks[name].cases_total == 1
        [failure] = checks[name].failures
        official = settings.limit(name, run.unit)
        assert failure['message'].startswith('cut short after '), failure
        assert f'an official grade gives it {official:.2f} s' in failure['message']
        assert 'This does not show a bug' in failure['feedback']
    assert result.facts['unsolvable_outcome'] == 'cut short in the self-check'
    # Stopped at the cap, far below the official limits (120 and 150 units).
    assert result.facts['student_seconds'] < 4 * engine.SELF_CHECK_UNITS * run.unit + 2


def test_a_quick_self_check_makes_no_information_only_call(four_starts, run, handout,
                                                           handout_full):
    """The default self-check leaves out the calls a full one caps: the same marks and the same
    graded checks, two cases fewer, at least a capped call's CPU less, and the result says
    which information checks were not run and how to run them."""
    quick, full = self_checked(four_starts, run, handout, full=False), handout_full
    assert quick.score == full.score == 2.5
    assert [c.name for c in quick.checks] == \
        [c.name for c in full.checks if c.name not in ('hard', 'unsolvable')]
    assert [(c.name, c.passed, c.cases_total) for c in quick.checks] == \
        [(c.name, c.passed, c.cases_total) for c in full.checks if c.name in
         {c.name for c in quick.checks}]
    assert quick.facts[engine.NOT_RUN_QUICK] == ['hard', 'unsolvable']
    assert engine.NOT_RUN_QUICK not in full.facts and 'unsolvable_outcome' not in quick.facts
    assert quick.facts['cases'] == full.facts['cases'] - 2      # one hard, one unsolvable
    assert quick.facts['student_seconds'] < \
        full.facts['student_seconds'] - engine.SELF_CHECK_UNITS * run.unit
    [line] = [f for f in quick.fact_lines if f['fact'] == engine.NOT_RUN_QUICK]
    assert line['own_line'] and 'hard and unsolvable: information only, not run in a quick ' \
        'self-check (`grader check --full` runs them' in line['text'], line


def test_grader_check_is_quick_unless_asked_for_the_full_one(handout, tmp_path, monkeypatch,
                                                            capsys):
    """``grader check`` prints what it did not run; ``--full`` runs it under the cap (made
    one unit here: what is tested is that the option reaches the run, not the cap)."""
    import json

    from grader import cli
    folder = handout
    monkeypatch.setattr(engine, 'SELF_CHECK_UNITS', 1)
    facts = {}
    for options in ((), ('--full',)):
        out = tmp_path / f'result{len(options)}.json'
        args = ['check', str(folder), '--color', 'never', '--json', str(out), *options]
        assert cli.main(['--config', str(ROOT / 'grading.yaml'), *args]) == 0
        printed = capsys.readouterr().out
        [exercise] = [e for e in json.loads(out.read_text())['exercises']
                      if e['name'] == 'eightpuzzle']
        facts[options] = exercise['facts']
        checks = {c['name'] for c in exercise['checks']}
        if options:
            assert {'hard', 'unsolvable'} <= checks
            assert 'cut short after' in printed and 'not run in a quick' not in printed
        else:
            assert not {'hard', 'unsolvable'} & checks
            assert 'hard and unsolvable: information only, not run in a quick self-check ' \
                '(`grader check --full` runs them' in printed, printed
    assert facts[()][engine.NOT_RUN_QUICK] == ['hard', 'unsolvable']
    assert facts[('--full',)]['unsolvable_outcome'] == 'cut short in the self-check'


def test_a_start_answered_in_time_is_judged_as_always(four_starts, run, submission):
    """A parity test answers the unsolvable start at once: it passes in the self-check."""
    folder = submission('eightpuzzle', SUBMISSIONS / 'eightpuzzle' / 'astar_node_class.py')
    result = self_checked(four_starts, run, folder)
    checks = {c.name: c for c in result.checks}
    assert checks['unsolvable'].passed, checks['unsolvable'].failures
    assert result.facts['unsolvable_outcome'].startswith('returned')
    assert all(checks[name].passed for name in ('validity', 'optimality', 'timeouts'))



@pytest.mark.parametrize('variant,score', [('astar_own_moves.py', 2.0),
                                           ('fixture_table.py', 0.0)])
def test_a_search_that_cannot_be_counted_is_timed_on_the_public_starts_alone(
        policy, run, submission, variant, score):
    """A self-check has the public starts only, none drawn: an honest A* with its own move
    generator (its expansions cannot be counted) earns what an official grade gives it
    (tests/submissions: the heuristic check lost, 2.0), timed on the 20-move starts (it
    scored 0 when the median of every start of ten moves or more was the 15-move one's,
    0.7 ms); a dict of the public starts' paths earns nothing."""
    folder = submission('eightpuzzle', SUBMISSIONS / 'eightpuzzle' / variant)
    result = self_checked(policy, run, folder, full=False)
    assert result.score == score, result.facts.get('search_cpu')
    assert result.facts['searched'] is (score > 0)
    assert result.facts['search_cpu']['starts'] == 2


@pytest.mark.parametrize('jobs', [1, 2])
def test_starts_not_run_after_a_stop_are_not_run_not_cut_short(policy, run, tmp_path, jobs):
    """An Astar that loops everywhere stops the exercise after three time-outs in a row
    (:class:`grader.engine.Hangs`; three required starts first): the capped starts are
    reported as not run, as in an official grade, whichever lane got to them first."""
    from test_hangs import looping_eightpuzzle
    starts = with_starts(policy, tmp_path, ('length-00', 'length-01', 'length-02', 'length-31',
                                            'unsolvable-swapped-7-8'))
    settings = starts.exercises['eightpuzzle']
    quick = with_exercise(starts, 'eightpuzzle', min_seconds=0.05,
                          factors={**{k: 0.001 for k in settings.factors},
                                   'hard': settings.factors['hard'],
                                   'unsolvable': settings.factors['unsolvable']})
    folder = looping_eightpuzzle(tmp_path)
    checking = engine.Run(quick, include_hidden=False, calibration=run.calibration,
                          isolation=run.isolation, jobs=jobs, full=True)
    result = engine.grade(quick, folder, run=checking, only=['eightpuzzle']).exercise('eightpuzzle')
    own = [c for c in result.checks if c.name in ('hard', 'unsolvable')]
    assert own and all(c.cases_total == 1 for c in own)
    for check in own:
        assert all(f['message'].startswith(engine.Hangs.NOT_RUN) for f in check.failures), \
            check.failures
