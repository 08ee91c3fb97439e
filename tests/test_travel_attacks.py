"""Route-planner attacks and their honest twins; a module the sandbox lacks, end to end.

The verdict of every attack and twin (``fails``, ``score``, ``facts``) is
asserted by tests/test_submissions.py from tests/submissions/travel/verdicts.yaml.
Here: every attack names a twin that is listed too, and the declared scores
show that the trick gains nothing; and ``grader grade`` on a submission with
an unused import of a missing module gives the score of the same code
without that line, and every report says why.
"""
import ast
import json
import subprocess
import sys
from pathlib import Path

from gradertest import read_yaml

ROOT = Path(__file__).resolve().parents[1]
TRAVEL = ROOT / 'tests' / 'submissions' / 'travel'
VERDICTS = read_yaml(TRAVEL / 'verdicts.yaml')
GRADER = [sys.executable, '-m', 'grader']


def test_every_attack_has_a_listed_twin_and_gains_nothing_over_it():
    attacks = {name: v for name, v in VERDICTS.items() if 'twin' in v}
    assert len(attacks) >= 5
    for name, verdict in attacks.items():
        twin = VERDICTS.get(verdict['twin'])
        assert twin is not None, f'{name}: twin {verdict["twin"]} is not in verdicts.yaml'
        assert 'score' in verdict and 'score' in twin, name
        assert verdict['score'] <= twin['score'], name
        assert set(twin.get('fails', [])) <= set(verdict.get('fails', [])), name


def test_searches_that_go_past_the_counters_earn_no_efficiency_but_keep_their_answers():
    for name in ('dijkstra_private_adjacency', 'astar_private_adjacency', 'dijkstra_fake_counts'):
        verdict = VERDICTS[name]
        assert verdict['fails'] == ['efficiency'], name
        assert verdict['facts']['evidence_status'] == 'not counted', name
        assert verdict['facts']['searched'], name
    assert VERDICTS['table_of_public_trips']['facts'] == {'searched': False}


def test_an_unused_missing_module_is_graded_with_a_stand_in_and_reported(tmp_path):
    folder = TRAVEL / 'unused_import_requests'
    text = (folder / 'src' / 'citymap.py').read_text(encoding='utf-8')
    assert 'from requests import put' in text
    assert not any(isinstance(node, ast.Name) and node.id == 'put'
                   for node in ast.walk(ast.parse(text)))
    reports = {'json': tmp_path / 'r.json', 'markdown': tmp_path / 'r.md',
               'junit': tmp_path / 'r.xml', 'gradescope': tmp_path / 'g.json'}
    options = [arg for kind, path in reports.items() for arg in (f'--{kind}', str(path))]
    done = subprocess.run([*GRADER, 'grade', str(folder), '--assignment', 'routeplanner',
                           '--color', 'never', *options], capture_output=True, text=True, cwd=ROOT,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    said = '`requests` is not available where your code is graded (line 10)'
    assert said in done.stdout and 'graded with a stand-in' in done.stdout
    result = json.loads(reports['json'].read_text())
    assert result['score'] == result['max_score'] == 5.0
    assert any(said in w for w in result['exercises'][0]['warnings'])
    assert said in reports['markdown'].read_text()
