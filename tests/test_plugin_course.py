"""An exercise is one plug-in package plus its fixtures: a course with a plug-in of its own.

``tests/plugin_course`` holds a nim exercise written as a plug-in outside the
grader (``plugins/nim``, mounted by ``plugin:`` in its grading.yaml), its
fixtures, its oracle and hand-ins.  It is graded here end to end through the
sandbox by ``grader grade``: its checks, its facts in the words its plug-in
declares (terminal, Markdown, JSON) and a course rule on its ``memoizes``
fact, beside the grader's own tic-tac-toe.  Nothing of the grader names it.
"""
import json
import os
import re
import shutil
import subprocess
import sys

import jsonschema
import pytest

from gradertest import ROOT

COURSE = ROOT / 'tests' / 'plugin_course'
CONFIG = COURSE / 'grading.yaml'
HAND_INS = COURSE / 'submissions'
RULE = 'Nim and tic-tac-toe count together only if the nim search memoizes'


def grade(tmp_path, variant):
    """``grader grade`` of a hand-in (nim.py of ``variant`` + the reference tic-tac-toe):
    ``(printed report, JSON result, Markdown)``."""
    folder = tmp_path / variant
    folder.mkdir()
    shutil.copy(HAND_INS / variant / 'nim.py', folder)
    shutil.copy(ROOT / 'reference' / 'tictactoe.py', folder)
    out_json, out_md = tmp_path / f'{variant}.json', tmp_path / f'{variant}.md'
    done = subprocess.run([sys.executable, '-m', 'grader', '--config', str(CONFIG), 'grade',
                           str(folder), '--json', str(out_json), '--markdown', str(out_md)],
                          capture_output=True, text=True, timeout=240, cwd=tmp_path,
                          env=dict(os.environ, NO_COLOR='1'))
    assert done.returncode == 0, done.stderr
    return done.stdout, json.loads(out_json.read_text()), out_md.read_text()


@pytest.fixture(scope='module')
def graded(tmp_path_factory):
    folder = tmp_path_factory.mktemp('plugin-course')
    return {variant: grade(folder, variant) for variant in ('memo', 'plain', 'formula', 'wrong')}


def nim_of(result):
    return next(e for e in result['exercises'] if e['name'] == 'nim')


def test_the_memoized_search_counts_with_its_fact_in_every_report(graded):
    printed, result, markdown = graded['memo']
    jsonschema.Draft202012Validator(
        json.loads((ROOT / 'grader' / 'schemas' / 'result.schema.json').read_text())
    ).validate(result)
    nim = nim_of(result)
    assert nim['submitted'] and nim['counted'] and nim['score'] == 1.0
    assert nim['facts']['memoizes'] is True and 0 < nim['facts']['calls'] <= 4 * 18 + 1
    words = f"memoizes: yes (at most {nim['facts']['calls']} search calls)"
    assert {'fact': 'memoizes', 'text': words, 'own_line': False} in nim['fact_lines']
    assert re.search(rf'^  {re.escape(words)}; [0-9.]+ s of CPU in your code', printed, re.M)
    assert words in markdown
    assert re.search(r'^nim\.py +One-pile nim .* 1\.00 / 1\.00  counted$', printed, re.M)
    assert 'ok values        13/13' in printed and 'ok memo' in printed
    assert 'also graded on 3 positions drawn for this submission' in printed
    assert result['score'] == 3.0 and RULE not in '\n'.join(result['explanation'])


def test_the_course_rule_reads_the_plugins_fact(graded):
    """The same right answers by plain recursion: no "memoizes", so the rule leaves nim out."""
    printed, result, _ = graded['plain']
    nim = nim_of(result)
    assert nim['score'] == 1.0 and not nim['counted']
    assert nim['facts']['memoizes'] is False and nim['facts']['calls'] > 4 * 18 + 1
    assert 'memoizes: no (at most' in printed
    assert '-- memo            0/2' in printed and 'search calls, more than 69' in printed
    assert result['score'] == 2.0
    assert f'{RULE} ("memoizes" holds for neither); so tictactoe (2) counts and nim does not.' \
        in result['explanation']
    assert 'Not counted: nim (1, by the rule above).' in result['explanation']


def test_answers_without_a_search_never_have_the_fact(graded):
    printed, result, _ = graded['formula']
    nim = nim_of(result)
    assert nim['score'] == 1.0 and nim['facts']['memoizes'] is False and not nim['counted']
    assert 'no search calls were counted' in printed and result['score'] == 2.0


def test_wrong_answers_fail_with_the_plugins_feedback(graded):
    printed, result, _ = graded['wrong']
    nim = nim_of(result)
    values = next(c for c in nim['checks'] if c['name'] == 'values')
    assert values['cases_passed'] < values['cases_total'] and nim['score'] < 0.5
    assert re.search(r'^  pile-0-take-3: expected no', printed, re.M) and 'Wins(0, 3)' in printed
    assert nim['facts']['memoizes'] is False


def test_the_fixtures_match_the_courses_oracle():
    from grader import config, fixtures
    policy = config.load(CONFIG)
    assert fixtures.verify(policy, 'nim') == []
    assert len(fixtures.load_cases(policy_plugin('nim'), policy.exercises['nim'])[0]) == 10


def policy_plugin(name):
    from grader import exercises
    return exercises.get(name)


def test_the_sandbox_ships_the_mounted_probe_and_nothing_else_of_it():
    from grader import config
    from grader.sandbox import bundle
    config.load(CONFIG)
    names = set(bundle.members())
    assert {'grader/exercises/nim/__init__.pyc', 'grader/exercises/nim/probe.pyc'} <= names
    assert not {'grader/exercises/nim/judge.pyc', 'grader/exercises/nim/facts.pyc'} & names
    assert policy_plugin('nim').folder == COURSE / 'plugins' / 'nim'


def test_no_file_of_the_grader_names_the_plugin_or_its_fact():
    for path in (ROOT / 'grader').rglob('*'):
        if path.suffix in ('.py', '.json', '.md') and path.is_file():
            text = path.read_text(encoding='utf-8')
            assert not re.search(r'\bnim\b|memoizes', text), path


# -- what grading.yaml may say about plug-ins of its own ------------------------------
def course_with(tmp_path, change):
    """A copy of the course whose grading.yaml went through ``change(text)``; its plug-in
    stays where it is (a plug-in is mounted once per process, from one folder)."""
    folder = tmp_path / 'course'
    shutil.copytree(COURSE, folder, ignore=shutil.ignore_patterns('__pycache__', 'submissions',
                                                                  'plugins'))
    policy = folder / 'grading.yaml'
    mounted = f"plugin: {COURSE / 'plugins' / 'nim'}"
    text = CONFIG.read_text().replace('plugin: plugins/nim', mounted)
    policy.write_text(change(text))
    return policy


def plugin_line(policy):
    return next(i for i, line in enumerate(policy.read_text().splitlines(), 1)
                if 'plugin:' in line and not line.lstrip().startswith('#'))


def load_error(policy):
    from grader import config
    from grader.errors import UserError
    with pytest.raises(UserError) as caught:
        config.load(policy)
    return caught.value


def test_a_rule_on_a_fact_no_plugin_reports_is_refused(tmp_path):
    error = load_error(course_with(tmp_path, lambda t: t.replace('fact: memoizes',
                                                                 'fact: memoised')))
    assert error.path.endswith('grading.yaml') and error.line
    assert "assignments.games.requirements[0].fact: 'memoised'" in error.message
    assert 'facts these exercises report for rules: memoizes, prunes' in error.message


def test_a_rule_needing_more_exercises_than_report_the_fact_is_refused(tmp_path):
    error = load_error(course_with(tmp_path, lambda t: t.replace(
        'fact: memoizes', 'fact: memoizes\n        at_least: 2')))
    assert 'reported for course rules by nim of nim, tictactoe, fewer than at_least (2)' \
        in error.message


def test_a_missing_plugin_folder_names_the_key(tmp_path):
    policy = course_with(tmp_path, lambda t: t.replace('plugins/nim', 'plugins/nam'))
    error = load_error(policy)
    assert error.message.startswith('exercises.nim.plugin: ') and 'not a plug-in package' \
        in error.message and error.line == plugin_line(policy)


def test_a_plugin_may_not_take_the_name_of_another(tmp_path):
    shutil.copytree(COURSE / 'plugins' / 'nim', tmp_path / 'tictactoe')
    policy = course_with(tmp_path, lambda t: t.replace(str(COURSE / 'plugins' / 'nim'),
                                                       str(tmp_path / 'tictactoe')))
    error = load_error(policy)
    assert error.message.startswith('exercises.nim.plugin: ') and 'rename its folder' \
        in error.message and error.line == plugin_line(policy)


def test_a_plugin_must_declare_the_exercise_of_its_key(tmp_path):
    policy = course_with(tmp_path, lambda t: t.replace('  nim:\n', '  nom:\n').replace(
        'exercises: [nim, tictactoe]', 'exercises: [nom, tictactoe]').replace(
        'together: [nim, tictactoe]', 'together: [nom, tictactoe]'))
    error = load_error(policy)
    assert error.message == ("exercises.nom.plugin: the package nim declares the exercise "
                             "'nim', not 'nom'") and error.line == plugin_line(policy)


def test_the_engine_scoring_and_reports_name_no_fact_of_a_plugin():
    """They iterate over what plug-ins declare: no fact of the grader's own plug-ins is named
    in them (but ``deduction``, the contract's one fact the engine acts on)."""
    from grader import exercises
    from grader.exercises import facts
    names = {fact.name for plugin in exercises.registry().values()
             for fact in facts.declared(plugin)} - {facts.DEDUCTION.name}
    assert {'prunes', 'search_order', 'node_ratio_median', 'result_convention'} <= names
    for path in [ROOT / 'grader' / 'engine.py', ROOT / 'grader' / 'scoring.py',
                 *(ROOT / 'grader' / 'report').glob('*.py')]:
        text = path.read_text(encoding='utf-8')
        named = {n for n in names if f"'{n}'" in text or f'"{n}"' in text}
        assert not named, f'{path.name} names {sorted(named)}'


def test_the_registry_is_listed_once_and_follows_each_mount():
    """A command asks for the plug-ins many times: the folder is listed and the judges are
    imported once, and a plug-in mounted later is in the registry from then on (in a
    process of its own: a mount stays for the life of the process)."""
    program = f'''
import json, pathlib
from grader import exercises
listed = []
iterdir = pathlib.Path.iterdir
pathlib.Path.iterdir = lambda self: listed.append(str(self)) or iterdir(self)
first = sorted(exercises.registry())
for _ in range(20):
    assert sorted(exercises.registry()) == first
exercises.registry()['changed'] = None
exercises.mount({str(COURSE / 'plugins' / 'nim')!r})
after = sorted(exercises.registry())
print(json.dumps({{'first': first, 'after': after, 'listed': len(listed)}}))
'''
    done = subprocess.run([sys.executable, '-c', program], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert 'nim' not in seen['first'] and 'changed' not in seen['after']
    assert sorted(seen['first'] + ['nim']) == seen['after']
    assert seen['listed'] == 1
