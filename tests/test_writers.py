"""Every writer, on real results: schema-valid, consistent with the Result, no hidden answers.

Submissions: reference/tictactoe.py (full marks) and examples/bob/tictactoe.py
(buggy), an empty folder, and bob again under a policy whose tic-tac-toe
cases are split into a public and a hidden fixture file.
"""
import io
import json
import re
import shutil
import xml.etree.ElementTree as ET

import jsonschema
import pytest
import yaml

from grader import cli, engine, scoring, yamlio
from grader.exercises.tictactoe import board as boards
from grader.report import (
    PUBLIC_ONLY_NOTE,
    gradescope,
    jsonout,
    junit,
    markdown,
    prairielearn,
    terminal,
)
from gradertest import ROOT

WRITERS = {'json': jsonout, 'gradescope': gradescope, 'junit': junit, 'markdown': markdown,
           'prairielearn': prairielearn}


def folder_with(tmp_path_factory, label, source=None):
    folder = tmp_path_factory.mktemp(label)
    if source:
        shutil.copy(source, folder / 'tictactoe.py')
    return folder


@pytest.fixture(scope='module')
def results(policy, run, tmp_path_factory):
    """Results graded once for the whole module, by label."""
    found = {}
    for label, source in (('reference', ROOT / 'reference' / 'tictactoe.py'),
                          ('buggy', ROOT / 'examples' / 'bob' / 'tictactoe.py')):
        found[label] = engine.grade(policy, folder_with(tmp_path_factory, label, source), run=run)
    # none of the assignment's exercises graded: a folder without its files is refused
    # before grading (grader.submission), so this one is graded for connect4 alone
    found['empty'] = engine.grade(policy, folder_with(tmp_path_factory, 'empty', source),
                                  assignment='oulu-exercise-1', run=run, only={'connect4'})
    return found


@pytest.fixture(scope='module')
def hidden_policy(tmp_path_factory):
    """The tic-tac-toe cases split in two: even ones public, odd ones hidden."""
    folder = tmp_path_factory.mktemp('hidden-policy')
    data = yaml.safe_load((ROOT / 'fixtures' / 'tictactoe.yaml').read_text())
    public = dict(data, cases=data['cases'][0::2])
    hidden = dict(data, cases=[dict(c, name=f"hidden-{c['name']}") for c in data['cases'][1::2]])
    for name, content in (('public.yaml', public), ('hidden.yaml', hidden)):
        (folder / name).write_text(yaml.safe_dump(content, sort_keys=False))
    policy = yaml.safe_load((ROOT / 'grading.yaml').read_text())
    exercise = policy['exercises']['tictactoe']
    exercise['fixtures'] = [str(folder / 'public.yaml')]
    exercise['hidden_fixtures'] = [str(folder / 'hidden.yaml')]
    exercise['checks']['moves']['hidden_visibility'] = 'hidden'
    policy['exercises'] = {'tictactoe': exercise}
    policy['reference'] = str(ROOT / 'reference')     # answers the positions drawn at grading
    policy['assignments'] = {'demo': {'title': 'public and hidden cases',
                                      'exercises': ['tictactoe']}}
    (folder / 'grading.yaml').write_text(yaml.safe_dump(policy, sort_keys=False))
    from grader import config
    return config.load(folder / 'grading.yaml'), public['cases'], hidden['cases']


@pytest.fixture(scope='module')
def hidden_results(hidden_policy, run, tmp_path_factory):
    policy, _, _ = hidden_policy
    folder = folder_with(tmp_path_factory, 'bob', ROOT / 'examples' / 'bob' / 'tictactoe.py')
    official = engine.grade(policy, folder, run=engine.Run(
        policy, calibration=run.calibration, isolation=run.isolation))
    public_run = engine.Run(policy, include_hidden=False, calibration=run.calibration,
                            isolation=run.isolation)
    check = engine.grade(policy, folder, run=public_run)
    check.hidden_checks_pending = scoring.hidden_pending(policy, check, include_hidden=False)
    return {'official': official, 'check': check}


def all_results(results, hidden_results):
    return {**results, **{f'hidden-{k}': v for k, v in hidden_results.items()}}


# -- schemas ------------------------------------------------------------------
def test_json_and_gradescope_outputs_match_their_schemas(results, hidden_results):
    result_schema = yamlio.schema('result.schema.json')
    gradescope_schema = yamlio.schema('gradescope.schema.json')
    for label, result in all_results(results, hidden_results).items():
        jsonschema.validate(json.loads(jsonout.render(result)), result_schema)
        jsonschema.validate(json.loads(gradescope.render(result)), gradescope_schema)
        jsonschema.validate(json.loads(prairielearn.render(result)),
                            yamlio.schema('prairielearn.schema.json'))


def test_the_gradescope_schema_rejects_what_gradescope_would():
    schema = yamlio.schema('gradescope.schema.json')
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid({'score': 1.0})
    assert validator.is_valid({'tests': [{'score': 1, 'max_score': 1, 'name': 'a'}]})
    assert not validator.is_valid({'tests': [{'name': 'no score anywhere'}]})
    assert not validator.is_valid({'score': 1, 'tests': [{'score': 1, 'visibility': 'later'}]})
    assert not validator.is_valid({'score': 1, 'points': 3})


def test_the_json_result_reads_back_into_the_model(results):
    from grader.model import from_dict
    result = results['buggy']
    assert from_dict(json.loads(jsonout.render(result))) == result


# -- Gradescope -----------------------------------------------------------------
def test_gradescope_scores_come_from_the_result(results):
    for result in results.values():
        doc = gradescope.document(result)
        assert doc['score'] == result.score
        submitted = [e for e in result.exercises if e.submitted]
        # One test per check, or one per part when hidden cases (the positions drawn
        # at grading time among them) split it into a public and a hidden part.
        parts = [part for e in submitted for c in e.checks
                 for part in ([c.split['public'], c.split['hidden']] if c.split else [c])]
        assert len(doc['tests']) == len(parts)
        def value(part, key):
            return part[key] if isinstance(part, dict) else getattr(part, key)
        scores = [(t['score'], t['max_score']) for t in doc['tests']]
        assert scores == [(value(p, 'score'), value(p, 'max_score')) for p in parts]
        assert all(t['status'] == ('passed' if value(p, 'passed') else 'failed')
                   for t, p in zip(doc['tests'], parts))
    assert gradescope.document(results['reference'])['score'] == 2.5
    assert 'not submitted' not in gradescope.document(results['empty'])['output']
    assert 'No exercise of this assignment' in gradescope.document(results['empty'])['output']


def test_gradescope_hidden_parts_carry_their_visibility(hidden_results):
    result = hidden_results['official']
    doc = gradescope.document(result)
    hidden_tests = [t for t in doc['tests'] if 'hidden' in t['tags']]
    checks = result.exercise('tictactoe').checks
    assert len(hidden_tests) == sum(1 for c in checks if c.split)
    by_name = {t['name'].split(': ', 1)[1]: t for t in hidden_tests}
    assert by_name['moves (hidden cases)']['visibility'] == 'hidden'
    assert by_name['values (hidden cases)']['visibility'] == 'after_published'
    assert sum(t['score'] for t in doc['tests']) == pytest.approx(result.score, abs=1e-3)
    public_tests = [t for t in doc['tests'] if 'hidden' not in t['tags']]
    assert all(t['visibility'] == 'visible' for t in public_tests)
    assert all('(hidden case)' not in t['output'] for t in public_tests)


# -- PrairieLearn ----------------------------------------------------------------
def test_prairielearn_score_is_the_share_of_the_points(results, hidden_results):
    for result in all_results(results, hidden_results).values():
        doc = prairielearn.document(result)
        assert doc['gradable'] is True
        assert doc['score'] == pytest.approx(result.score / result.max_score)
        # PrairieLearn heads the tests with their total: it is the score
        assert sum(t['points'] for t in doc['tests']) == pytest.approx(result.score, abs=1e-3)
        assert sum(t['max_points'] for t in doc['tests']) == pytest.approx(result.max_score,
                                                                           abs=1e-3)
        assert all(0 <= t['points'] <= t['max_points'] for t in doc['tests'])
    assert prairielearn.document(results['reference'])['score'] == 0.5     # 2.5 of 5
    buggy = prairielearn.document(results['buggy'])
    lost = [t for t in buggy['tests'] if t['points'] < t['max_points'] and t['name'] != 'Score']
    assert lost and all('cases passed' in t['message'] for t in lost)
    assert any('expected' in t['output'] for t in lost)     # the failed case is drawn


def test_grade_writes_prairielearn_results_even_when_nothing_can_be_graded(tmp_path):
    folder = tmp_path / 'student'
    folder.mkdir()
    shutil.copy(ROOT / 'examples' / 'bob' / 'tictactoe.py', folder)
    out = tmp_path / 'results' / 'results.json'
    config = ['--config', str(ROOT / 'grading.yaml')]
    assert cli.main([*config, 'grade', str(folder), '-q', '--prairielearn', str(out)]) == 0
    doc = json.loads(out.read_text())
    jsonschema.validate(doc, yamlio.schema('prairielearn.schema.json'))
    assert doc['gradable'] and 0 < doc['score'] < 1
    (folder / 'tictactoe.py').rename(folder / 'TicTacToe.py')
    assert cli.main([*config, 'grade', str(folder), '-q', '--prairielearn', str(out)]) == 2
    doc = json.loads(out.read_text())
    jsonschema.validate(doc, yamlio.schema('prairielearn.schema.json'))
    assert doc['gradable'] is False and doc['score'] == 0
    assert 'tictactoe.py' in doc['message'] and str(folder) not in doc['message']


# -- hidden answers stay hidden ---------------------------------------------------
def pictures(cases):
    return {boards.draw(boards.from_rows(c['input']['board'])) for c in cases}


def test_no_writer_shows_a_hidden_cases_position_or_answer(hidden_policy, hidden_results):
    _, public_cases, hidden_cases = hidden_policy
    secret = pictures(hidden_cases) - pictures(public_cases)
    result = hidden_results['official']
    lost = [c for c in result.exercise('tictactoe').checks
            if c.split and not c.split['hidden']['passed']]
    assert lost and secret                           # the test can fail
    assert not any(f['hidden'] for c in lost for f in c.failures)   # counted, never listed
    assert all(c.split['hidden']['message'].startswith(f'{c.name}: not shown to hold on ')
               for c in lost)
    public_failures = [f for c in result.exercise('tictactoe').checks for f in c.failures
                       if not f['hidden']]
    assert any(boards.draw(boards.from_rows(c['input']['board'])) in f['feedback']
               for f in public_failures for c in public_cases)   # pictures are drawn
    outputs = {name: w.render(result) for name, w in WRITERS.items()}
    outputs['terminal'] = terminal.render(result, verbose=True)
    for name, text in outputs.items():
        text = text.replace('\\n', '\n') if name in ('json', 'gradescope', 'prairielearn') \
            else text
        for picture in secret:
            assert picture not in text, f'{name} shows a hidden position'
        assert not re.search(r'(hidden|generated)-\d', text), f'{name} names a hidden case'
        assert all(c.split['hidden']['message'] in text for c in lost), name


def test_public_check_says_the_grade_is_not_final(hidden_results, results):
    pending, official = hidden_results['check'], hidden_results['official']
    assert pending.hidden_checks_pending and not official.hidden_checks_pending
    assert not pending.hidden_checks_included and official.hidden_checks_included
    for writer in (markdown, gradescope, terminal):
        assert PUBLIC_ONLY_NOTE in writer.render(pending)
        assert PUBLIC_ONLY_NOTE not in writer.render(official)
    assert all(not c.split for c in pending.exercise('tictactoe').checks)


# -- JUnit ----------------------------------------------------------------------
JUNIT = {   # element: (allowed attributes, required attributes, allowed children)
    'testsuites': ({'name', 'time', 'tests', 'failures', 'disabled', 'errors'}, set(),
                   {'testsuite'}),
    'testsuite': ({'name', 'tests', 'failures', 'errors', 'time', 'disabled', 'skipped',
                   'timestamp', 'hostname', 'id', 'package', 'file', 'log', 'url', 'version',
                   'group'}, {'name', 'tests'},
                  {'properties', 'testcase', 'system-out', 'system-err'}),
    'properties': (set(), set(), {'property'}),
    'property': ({'name', 'value'}, {'name', 'value'}, set()),
    'testcase': ({'name', 'assertions', 'time', 'classname', 'status', 'class', 'file', 'line',
                  'log', 'group', 'url'}, {'name'},
                 {'skipped', 'error', 'failure', 'system-out', 'system-err'}),
    'failure': ({'message', 'type'}, set(), set()),
    'error': ({'message', 'type'}, set(), set()),
    'skipped': ({'message'}, set(), set()),
}
"""The JUnit XML structure CI servers validate against (Jenkins' junit-10.xsd)."""


def validate_junit(element):
    allowed, required, children = JUNIT[element.tag]
    assert set(element.attrib) <= allowed, (element.tag, set(element.attrib) - allowed)
    assert required <= set(element.attrib), (element.tag, required - set(element.attrib))
    for child in element:
        assert child.tag in children, (element.tag, child.tag)
        validate_junit(child)


def test_junit_parses_back_to_one_testcase_per_check(results):
    for label, result in results.items():
        root = ET.fromstring(junit.render(result).encode())
        validate_junit(root)
        assert root.tag == 'testsuites'
        suites = root.findall('testsuite')
        assert [s.get('name') for s in suites] == [e.name for e in result.exercises]
        for suite, exercise in zip(suites, result.exercises):
            cases = suite.findall('testcase')
            assert [c.get('name') for c in cases] == [c.name for c in exercise.checks]
            props = {p.get('name'): p.get('value') for p in suite.iter('property')}
            for check in exercise.checks:
                assert float(props[f'points.{check.name}']) == check.score
            failed = [c.get('name') for c in cases if c.find('failure') is not None]
            skipped = [c.get('name') for c in cases if c.find('skipped') is not None]
            if exercise.submitted:
                assert failed == [c.name for c in exercise.checks if not c.passed]
            else:
                assert skipped == [c.name for c in exercise.checks]
            for key in ('tests', 'failures', 'errors', 'skipped'):
                tag = {'tests': 'testcase', 'failures': 'testcase/failure',
                       'errors': 'testcase/error', 'skipped': 'testcase/skipped'}[key]
                assert int(suite.get(key)) == len(suite.findall(tag))
        assert int(root.get('tests')) == sum(int(s.get('tests')) for s in suites)
    buggy = ET.fromstring(junit.render(results['buggy']).encode())
    failure = buggy.find(".//testcase[@name='values']/failure")
    assert 'returned:' in failure.text and 'expected:' in failure.text


def test_a_module_that_cannot_load_is_a_junit_error(policy, run, tmp_path):
    (tmp_path / 'tictactoe.py').write_text('def Minimax(board, maximizing, player)\n')
    result = engine.grade(policy, tmp_path, run=run)
    root = ET.fromstring(junit.render(result).encode())
    validate_junit(root)
    assert len(root.findall('.//testcase/error')) == len(result.exercise('tictactoe').checks)


# -- Markdown -------------------------------------------------------------------
def table_rows(text):
    return [line for line in text.splitlines() if line.startswith('|')]


def cells(row):
    return re.split(r'(?<!\\)\|', row.strip())[1:-1]


def test_markdown_is_one_well_formed_table(results, hidden_results):
    for result in all_results(results, hidden_results).values():
        text = markdown.render(result)
        rows = table_rows(text)
        assert re.fullmatch(r'\| (-+:? \| )+', rows[1] + ' ')
        assert {len(cells(r)) for r in rows} == {5}
        assert text.startswith(f'### {result.assignment}: {scoring.fmt(result.score)} / ')
        for line in result.explanation:
            assert markdown.cell(line) in text
    text = markdown.render(results['buggy'])
    assert '<details>' in text and '```text' in text and 'returned:' in text
    assert '| tictactoe.py | values |' in text


def test_check_appends_to_the_github_job_summary(monkeypatch, tmp_path, capsys):
    folder = tmp_path / 'submission'
    folder.mkdir()
    shutil.copy(ROOT / 'examples' / 'bob' / 'tictactoe.py', folder)
    summary = tmp_path / 'summary.md'
    summary.write_text('# earlier step\n')
    monkeypatch.setenv('GITHUB_STEP_SUMMARY', str(summary))
    out = {name: tmp_path / f'out.{name}' for name in WRITERS}
    status = cli.main(['--config', str(ROOT / 'grading.yaml'), 'check', str(folder),
                       '--json', str(out['json']), '--gradescope', str(out['gradescope']),
                       '--junit', str(out['junit']), '--markdown', str(out['markdown']),
                       '--fail-under', '2.5'])
    assert status == 1                                 # bob is below full marks
    text = summary.read_text()
    assert text.startswith('# earlier step\n### oulu-exercise-1: ')
    assert text.split('\n', 1)[1] == out['markdown'].read_text()
    result = json.loads(out['json'].read_text())
    jsonschema.validate(result, yamlio.schema('result.schema.json'))
    assert json.loads(out['gradescope'].read_text())['score'] == result['score']
    validate_junit(ET.parse(out['junit']).getroot())
    printed = capsys.readouterr().out
    assert 'Score:' in printed and '\033[' not in printed


# -- the terminal -------------------------------------------------------------------
class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_colour_only_on_a_terminal(results, monkeypatch):
    monkeypatch.delenv('NO_COLOR', raising=False)
    monkeypatch.delenv('FORCE_COLOR', raising=False)
    plain, tty = io.StringIO(), Terminal()
    terminal.write(results['buggy'], plain)
    terminal.write(results['buggy'], tty)
    assert '\033[' not in plain.getvalue() and '\033[' in tty.getvalue()
    monkeypatch.setenv('NO_COLOR', '1')
    quiet = Terminal()
    terminal.write(results['buggy'], quiet)
    assert '\033[' not in quiet.getvalue()
    forced = io.StringIO()
    terminal.write(results['buggy'], forced, colour='always')
    assert '\033[' in forced.getvalue()


def test_terminal_draws_the_failure_and_says_what_counted(results):
    text = terminal.render(results['buggy'])
    assert re.search(r'-- values +\d+/\d+', text)
    assert ' | ' in text and 'returned:' in text and 'expected:' in text
    assert 'counted' in text and re.search(r'Score: \d\.\d\d / 5\.00', text)
    assert 'Counted: tictactoe' in text
    assert 'not submitted' in terminal.render(results['empty'])


# -- the late penalty, end to end -------------------------------------------------------
def test_a_late_submission_loses_its_share_in_every_report(run, tmp_path):
    from grader import config
    from test_policy import policy_copy, with_late_penalty
    policy = config.load(policy_copy(tmp_path, with_late_penalty))
    folder = tmp_path / 'submission'
    folder.mkdir()
    shutil.copy(ROOT / 'reference' / 'tictactoe.py', folder)
    on_time = engine.grade(policy, folder, run=run, submitted_at='2024-02-01T20:00:00+02:00')
    late = engine.grade(policy, folder, run=run, submitted_at='2024-02-03T08:00:00+02:00')
    assert on_time.late == {'late': False, 'submitted_at': '2024-02-01T20:00:00+02:00',
                            'deadline': '2024-02-01T23:59:00+02:00'}
    assert late.late['days_late'] == 2 and late.late['penalty_share'] == 0.2
    assert late.score == pytest.approx(on_time.score * 0.8)
    assert any('2 day(s) late' in line for line in late.explanation)
    jsonschema.validate(json.loads(jsonout.render(late)), yamlio.schema('result.schema.json'))
    assert gradescope.document(late)['score'] == late.score
    assert '2 day(s) late' in markdown.render(late) and '2 day(s) late' in terminal.render(late)
