"""The human views show each failed public position once, cause by cause (issue 43).

The Result keeps one outcome per check and case; the terminal, Markdown, the course
platforms' test outputs and the class's feedback draw from one grouping
(:mod:`grader.report.grouping`, worded by :mod:`grader.report.paragraphs`): a position
drawn once with a line of every check it costs, a check lost only because the answer is
wrong named in that line and never drawn again, up to three causes drawn (the first
position of each), the other positions named, ``--verbose`` drawing each.

Measured with ``grader check`` on the example submissions (``bench/feedback_lines.py``
prints the table for every file in tests/submissions; BENCHMARKS.md holds it):

=====================================================  ======  =====
submission                                             before  after
=====================================================  ======  =====
student_template/ (all three Oulu files, untouched)       135     33
tests/submissions/tictactoe/bug_wrong_sign.py              56     49
=====================================================  ======  =====

Before, bug_wrong_sign.py drew ``min-after-block`` three times (values, robustness,
timeouts) and named none of the 6 other wrong positions; now it draws 2 boards (the sign,
and the plain minimax that does not prune) and names all 7.  The limits asserted below:
the template in at most 35 lines, the sign error's 7 positions all named with at most 3
boards, every public failure named (and drawn with ``--verbose``).
"""
import json
import re
import shutil

from grader import cli, model
from grader.report import check_parts, grouping, jsonout, junit, markdown, paragraphs, terminal
from gradertest import ROOT, SUBMISSIONS

SIGN = "The sign is flipped: values are from the maximizer's point of view."
PRUNE = 'Alpha-beta returns as soon as alpha >= beta; pass alpha and beta down.'


def board(case):
    """A drawing that names its case, as a judge's heading does."""
    return [f"Minimax(board, True, 'X') -- {case}", f'  X | O | {case[-1]}']


def failure(case, message, *lines):
    return {'case': case, 'message': message, 'feedback': '\n'.join(lines), 'hidden': False}


def check(name, failures, total=8, max_score=1.0, **more):
    passed = total - len(failures)
    return model.CheckResult(name, not failures, max_score * passed / total, max_score,
                             f'{passed}/{total} cases passed', passed, total,
                             failures=failures, **more)


def exercise(*checks):
    return model.ExerciseResult('tictactoe', 'Tic-tac-toe', 0.0, 2.5, True, 'tictactoe.py',
                                checks=list(checks))


def wrong_value(case):
    """The checks a wrong value costs, worded as the tic-tac-toe judge words them."""
    drawn = board(case) + [f'returned: (1, {len(case)})', 'expected: value -1']
    return {'values': failure(case, 'value +1, expected -1', *drawn, SIGN),
            'robustness': failure(case, 'well-formed, but the value is wrong', *drawn),
            'timeouts': failure(case, '0.01 s of 1.20 s of CPU time, but the value is wrong',
                                *drawn)}


def sign_error(cases):
    costs = [wrong_value(case) for case in cases]
    return exercise(*(check(name, [c[name] for c in costs])
                      for name in ('values', 'robustness', 'timeouts')))


def text_of(ex, **options):
    return '\n'.join(line for p in paragraphs.paragraphs(ex, **options)
                     for line in [p.title] + p.drawing + p.notes)


# -- one position, everything it costs ----------------------------------------------
def test_a_position_wrong_in_three_checks_is_drawn_once_with_all_it_costs():
    ex = sign_error(['min-after-block'])
    [shown] = paragraphs.paragraphs(ex)
    text = text_of(ex)
    assert text.count('  X | O | k') == 1 and text.count('returned: (1, 15)') == 1
    assert shown.title == 'min-after-block: value +1, expected -1'
    assert shown.drawing[-1] == SIGN
    assert shown.notes == ['Costs: values; robustness (well-formed, but the value is wrong); '
                           'timeouts (0.01 s of 1.20 s of CPU time, but the value is wrong).']


def test_a_second_cause_on_the_same_position_is_kept_and_a_consequence_is_not():
    drawn = board('corner') + ['returned: (0, 1)', 'expected: value 0']
    ex = exercise(check('values', [failure('corner', 'value +1, expected 0', *drawn, SIGN)]),
                  check('moves', [failure('corner', 'move 1 is not optimal', *drawn,
                                          'Update bestmove exactly when a child improves.')]),
                  check('balance', [failure('corner', 'restored, but the answer is wrong', *drawn,
                                            'Balance counts only where the answer is right.')]))
    [position] = grouping.failed_positions(ex)
    assert position.drawing == drawn + [SIGN, 'Update bestmove exactly when a child improves.']
    assert [(c.check, c.consequence) for c in position.costs] == [
        ('values', False), ('moves', False), ('balance', True)]


# -- causes ------------------------------------------------------------------------------
def test_one_cause_on_many_positions_draws_the_first_and_names_the_others():
    cases = [f'position-{n:0{n + 1}d}' for n in range(14)]
    ex = sign_error(cases)
    [shown] = paragraphs.paragraphs(ex)
    assert shown.title.startswith('position-0:') and shown.cases == cases
    named = shown.notes[-1]
    assert named.startswith('The same on 13 more cases: position-01, position-002, ')
    assert all(case in named for case in cases[1:1 + paragraphs.MAX_NAMED])
    assert named.endswith(' and 3 more.')
    assert len(paragraphs.paragraphs(ex, max_named=None)[0].notes[-1].split(', ')) == 13


def test_up_to_three_causes_are_drawn_and_each_further_one_named_on_a_line():
    sentences = [SIGN, PRUNE, 'Update bestmove exactly when a child improves the best value.',
                 'Undo every move you try before returning.', 'The move must be an empty cell.']
    failures = [failure(f'pos-{n}', f'wrong in way {n}', *board(f'pos-{n}'),
                        f'returned: ({n}, 0)', sentence) for n, sentence in enumerate(sentences)]
    shown = paragraphs.paragraphs(exercise(check('values', failures)))
    assert [bool(p.drawing) for p in shown] == [True, True, True, False, False]
    assert [p.title.split(':')[0] for p in shown] == [f'pos-{n}' for n in range(5)]
    assert all(sentences[n] in (p.drawing + p.notes) for n, p in enumerate(shown))
    assert shown[3].notes[-1].endswith('--verbose draws it.')


def test_verbose_draws_every_position_once():
    ex = sign_error(['a-1', 'bb-2', 'ccc-3'])
    text = text_of(ex, verbose=True)
    assert [text.count(f'  X | O | {n}') for n in '123'] == [1, 1, 1]
    assert text.count('Costs: values; robustness') == 3


def test_the_same_answer_on_every_case_is_said_once_and_drawn_nowhere():
    none = 'returned None instead of the pair: is Minimax still the template placeholder?'
    failures = [failure(case, none, *board(case), 'returned: None', f'expected: value {v}')
                for case, v in (('near-end', -1), ('opening', 0), ('middle', 1))]
    ex = exercise(check('values', failures), check('moves', failures))
    [said] = paragraphs.paragraphs(ex)
    assert said.title == f'The same on 3 cases: {none}' and not said.drawing
    assert said.notes[-1].startswith('Costs: values, moves, on near-end, opening, middle;')
    assert len(paragraphs.paragraphs(ex, verbose=True)) == 3          # --verbose draws each
    timeouts = [failure(c, 'timed out after 2.40 s of CPU time', *board(c)) for c in 'xy']
    assert paragraphs.paragraphs(exercise(check('values', failures[:1] + timeouts)))[0].drawing


def test_a_case_lost_only_because_answers_are_wrong_is_named_not_drawn():
    ex = sign_error(['a-1'])
    ex.checks.append(check('unsolvable', [failure(
        'odd-start', 'returned None, but also no path for a start one move from the goal',
        *board('odd-start'), 'The tiles show an odd number of inversions.')], total=1))
    last = paragraphs.paragraphs(ex)[-1]
    assert not last.title and not last.drawing and last.cases == ['odd-start']
    assert last.notes == ['Lost as well, only because answers are wrong: odd-start '
                          '(unsolvable: returned None, but also no path for a start one move '
                          'from the goal).']


# -- hidden cases ------------------------------------------------------------------------
def test_hidden_cases_change_nothing_drawn_or_named():
    """Grouping reads public failures only: a check's hidden part (how many passed) and a
    failure marked hidden (an earlier version's result) change neither the order nor the
    number of what is printed; the hidden part says its own line, as before."""
    plain = sign_error(['a-1', 'b-2'])
    hidden = sign_error(['a-1', 'b-2'])
    hidden.checks[0].failures.insert(0, dict(failure('hidden-7', 'value +1, expected -1',
                                                     *board('hidden-7'), SIGN), hidden=True))
    hidden.checks[0].split = {
        'public': {'score': 0.75, 'max_score': 1.0, 'cases_passed': 6, 'cases_total': 8,
                   'passed': False, 'visibility': 'visible'},
        'hidden': {'score': 0.0, 'max_score': 1.0, 'cases_passed': 0, 'cases_total': 5,
                   'passed': False, 'visibility': 'after_published',
                   'message': 'values: not shown to hold on 5 hidden cases'}}
    assert paragraphs.paragraphs(hidden) == paragraphs.paragraphs(plain)
    assert paragraphs.paragraphs(hidden, verbose=True) == paragraphs.paragraphs(plain,
                                                                                verbose=True)
    assert 'hidden-7' not in '\n'.join(terminal.failure_lines(hidden, terminal.Style(False),
                                                                True))


# -- every human view, one drawing each --------------------------------------------------
def result_of(ex):
    return model.Result('0.1.0', 'oulu-exercise-1', 0.0, 5.0, [ex], {'level': 'strong'}, '',
                        {}, hidden_checks_included=False)


def test_each_course_platform_test_draws_a_position_once_and_names_it_elsewhere():
    result = result_of(sign_error(['a-1', 'bb-2']))
    outputs = {part['name'].split(': ')[-1]: part['output'] for part in check_parts(result)}
    assert ''.join(outputs.values()).count('  X | O | 1') == 1
    assert '  X | O | 1' in outputs['values']
    assert 'The same on 1 more case: bb-2.' in outputs['values']
    assert 'well-formed, but the value is wrong (a-1, bb-2)' in outputs['robustness']
    assert '--verbose' not in ''.join(outputs.values())       # a platform has no such option


def test_markdown_draws_each_position_once_in_a_code_block():
    result = result_of(sign_error(['a-1', 'bb-2', 'ccc-3']))
    text = markdown.render(result)
    assert text.count('```text') == 1 and text.count('  X | O | 1') == 1
    assert 'The same on 2 more cases: bb-2, ccc-3.' in text
    assert markdown.render(result, verbose=True).count('```text') == 3


def test_machine_formats_keep_one_outcome_per_check_and_case():
    result = result_of(sign_error(['a-1', 'b-2']))
    data = json.loads(jsonout.render(result))
    assert [len(c['failures']) for c in data['exercises'][0]['checks']] == [2, 2, 2]
    assert junit.render(result).count('  X | O | 1') == 3


# -- measured on the example submissions -------------------------------------------------
def grader_check(tmp_path, capsys, files, *options):
    """``grader check`` on a folder holding ``files``: (the lines printed, the Result)."""
    folder = tmp_path / 'submission'
    folder.mkdir()
    for source, name in files:
        shutil.copy(source, folder / name)
    out = tmp_path / 'result.json'
    capsys.readouterr()
    cli.main(['--config', str(ROOT / 'grading.yaml'), 'check', str(folder), '--color', 'never',
              '--json', str(out), *options])
    return capsys.readouterr().out.splitlines(), model.from_dict(json.loads(out.read_text()))


def failed_cases(result):
    return {f['case'] for e in result.exercises if e.submitted for c in e.checks
            for f in c.failures if not f.get('hidden')}


def test_the_untouched_template_says_it_all_in_35_lines(tmp_path, capsys):
    template = ROOT / 'student_template'
    files = [(template / name, name) for name in ('tictactoe.py', 'connect4.py',
                                                  'eightpuzzle.py')]
    lines, result = grader_check(tmp_path, capsys, files)
    assert len(lines) <= 35, '\n'.join(lines)
    assert all(e.submitted and e.score == 0 for e in result.exercises)
    text = '\n'.join(lines)
    assert text.count('is Minimax still the template placeholder') == 1
    assert text.count('Is the A* loop still the template placeholder?') == 1
    assert text.count('alphabetapruning and minimax both returned None') == 1
    assert len(failed_cases(result)) > 50        # every one of them named or counted
    for exercise in result.exercises:
        said = paragraphs.paragraphs(exercise)
        assert {c for p in said for c in p.cases} == {f['case'] for c in exercise.checks
                                                      for f in c.failures}


def test_a_flipped_sign_names_its_seven_positions_with_at_most_three_boards(tmp_path, capsys):
    source = SUBMISSIONS / 'tictactoe' / 'bug_wrong_sign.py'
    lines, result = grader_check(tmp_path, capsys, [(source, 'tictactoe.py')])
    values = result.exercise('tictactoe').checks[0]
    wrong = [f['case'] for f in values.failures]
    assert values.name == 'values' and len(wrong) == 7
    text = '\n'.join(lines)
    assert all(re.search(rf'\b{re.escape(case)}\b', text) for case in wrong)
    assert all(case in text for case in failed_cases(result))
    assert 0 < text.count('---+---+---') <= 2 * 3            # two rules per board drawn
    assert text.count('min-after-block: value +1, expected -1') == 1
    assert 'robustness (well-formed, but the value is wrong)' in text
    assert 'but the value is wrong' not in '\n'.join(line for line in lines
                                                    if not line.strip().startswith('Costs:'))
    # every human view draws min-after-block once; the JSON keeps each check's 7 outcomes
    views = {'markdown': markdown.render(result), 'platform tests': ''.join(
        part['output'] for part in check_parts(result))}
    for name, view in views.items():
        assert view.count(' ---+---+---\n  X | O |        0 1 2') == 1, name
        assert 0 < view.count('---+---+---') <= 2 * 3, name
    checks = {c.name: c for c in result.exercise('tictactoe').checks}
    assert [len(checks[name].failures) for name in ('values', 'robustness', 'timeouts')] == \
        [7, 7, 7]


def test_verbose_draws_every_failed_public_case_in_full(tmp_path, capsys):
    """``--verbose`` draws each failed position once, in the terminal and in ``--markdown``."""
    source = SUBMISSIONS / 'tictactoe' / 'bug_flag_not_flipped.py'
    summary = tmp_path / 'summary.md'
    lines, result = grader_check(tmp_path, capsys, [(source, 'tictactoe.py')], '--verbose',
                                 '--markdown', str(summary))
    text = '\n'.join(lines)
    cases = failed_cases(result)
    assert len(cases) > 10
    for check_result in result.exercise('tictactoe').checks:
        for failure in check_result.failures:
            title = f"{failure['case']}: "
            assert sum(line.strip().startswith(title) for line in lines) == 1, title
            assert all(line in text for line in failure['feedback'].splitlines())
    assert summary.read_text().count('```text') == len(cases)


def test_a_position_is_titled_by_its_first_failure_that_is_not_a_consequence():
    """Whatever order the checks come in, the position's title, answer and cause are
    those of the failure that says what is wrong."""
    costs = wrong_value('a-1')
    ex = exercise(check('timeouts', [costs['timeouts']]), check('values', [costs['values']]))
    [found] = grouping.failed_positions(ex)
    assert found.message == 'value +1, expected -1' and found.cause == SIGN
    assert [(c.check, c.consequence) for c in found.costs] == [('timeouts', True),
                                                              ('values', False)]
    assert found.drawing.count(SIGN) == 1
