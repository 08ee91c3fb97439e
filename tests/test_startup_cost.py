"""The fixed cost of a run stays small, and cutting it changed no outcome.

- the document cache (grader/doccache.py): a hit gives the same data and
  locator as a fresh load; a changed file, a corrupt entry, an unwritable or
  switched-off folder are handled; invalid documents give the same one-line
  errors and are never stored;
- the layer probes report what they reported one after another;
- ``grader check`` imports nothing it does not use;
- teardown finds a child's processes without psutil.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest

from grader import cli, config, doccache, fixtures, yamlio
from grader.errors import UserError
from grader.sandbox import cgroups, layers, protocol, reaper
from gradertest import ROOT

TICTACTOE = ROOT / 'fixtures' / 'tictactoe.yaml'


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty cache folder of this test's own."""
    folder = tmp_path / 'cache'
    monkeypatch.setenv('GRADER_CACHE_DIR', str(folder))
    return folder


def entries(folder):
    return sorted(folder.glob('*.json')) if folder.is_dir() else []


def fixture_copy(tmp_path, text=None):
    path = tmp_path / 'tictactoe.yaml'
    path.write_text(TICTACTOE.read_text() if text is None else text)
    return path


def error_of(load, *args):
    with pytest.raises(UserError) as info:
        load(*args)
    return str(info.value)


# -- the document cache --------------------------------------------------------

def test_a_hit_gives_the_same_data_and_lines_without_parsing(cache, tmp_path, monkeypatch):
    path = fixture_copy(tmp_path)
    fresh, fresh_where = fixtures.read(path, 'tictactoe')
    assert len(entries(cache)) == 1

    def no_parsing(*args):
        raise AssertionError('a hit must not parse or validate')
    monkeypatch.setattr(yamlio, '_parse', no_parsing)
    monkeypatch.setattr(yamlio, 'validate', no_parsing)
    cached, where = fixtures.read(path, 'tictactoe')
    assert cached == fresh and json.dumps(cached) == json.dumps(fresh)
    assert cached is not fresh
    for keys in (['cases', 3, 'name'], ['cases', 0, 'input', 'board'], ['exercise'], ['nothing']):
        assert where.line(keys) == fresh_where.line(keys)


def test_the_policy_is_cached_and_loads_the_same(cache):
    first = config.load(ROOT / 'grading.yaml')
    assert len(entries(cache)) == 1
    second = config.load(ROOT / 'grading.yaml')
    assert second == first


def test_a_changed_file_is_loaded_afresh(cache, tmp_path):
    path = fixture_copy(tmp_path)
    before, _ = fixtures.read(path, 'tictactoe')
    path.write_text(path.read_text().replace('value: -1', 'value: 1', 1))
    after, _ = fixtures.read(path, 'tictactoe')
    assert after != before
    assert len(entries(cache)) == 2
    assert fixtures.read(path, 'tictactoe')[0] == after


@pytest.mark.parametrize('garbage', [b'', b'{"key": "x"', b'\xff\xfe', b'[1, 2]',
                                     b'{"key": "not this one", "data": {}}'])
def test_a_corrupt_entry_is_ignored_and_rewritten(cache, tmp_path, garbage):
    path = fixture_copy(tmp_path)
    fresh, _ = fixtures.read(path, 'tictactoe')
    [entry] = entries(cache)
    entry.write_bytes(garbage)
    assert fixtures.read(path, 'tictactoe')[0] == fresh
    assert json.loads(entry.read_text())['data'] == fresh


def test_an_unwritable_folder_turns_the_cache_off(tmp_path, monkeypatch):
    blocker = tmp_path / 'a-file'
    blocker.write_text('not a folder')
    monkeypatch.setenv('GRADER_CACHE_DIR', str(blocker / 'cache'))
    path = fixture_copy(tmp_path)
    first, _ = fixtures.read(path, 'tictactoe')
    assert fixtures.read(path, 'tictactoe')[0] == first
    assert blocker.read_text() == 'not a folder'


@pytest.mark.skipif(os.geteuid() == 0, reason='root writes into read-only folders')
def test_a_read_only_folder_turns_the_cache_off(tmp_path, monkeypatch):
    folder = tmp_path / 'cache'
    folder.mkdir(mode=0o500)
    monkeypatch.setenv('GRADER_CACHE_DIR', str(folder))
    path = fixture_copy(tmp_path)
    assert fixtures.read(path, 'tictactoe')[0] == fixtures.read(path, 'tictactoe')[0]
    assert entries(folder) == []


def test_an_empty_cache_variable_turns_the_cache_off(tmp_path, monkeypatch):
    monkeypatch.setenv('GRADER_CACHE_DIR', '')
    monkeypatch.chdir(tmp_path)
    assert doccache.folder() == ''
    assert not doccache.put('0' * 64, {'a': 1})
    assert doccache.get('0' * 64) is doccache.MISSING
    fixtures.read(fixture_copy(tmp_path), 'tictactoe')
    assert sorted(p.name for p in tmp_path.iterdir()) == ['tictactoe.yaml']


def test_where_the_cache_lives(monkeypatch):
    monkeypatch.delenv('GRADER_CACHE_DIR', raising=False)
    monkeypatch.setenv('XDG_CACHE_HOME', '/somewhere/cache')
    assert doccache.folder() == '/somewhere/cache/grader'
    monkeypatch.setenv('XDG_CACHE_HOME', 'relative/is/ignored')
    monkeypatch.setenv('HOME', '/home/someone')
    assert doccache.folder() == '/home/someone/.cache/grader'
    monkeypatch.delenv('XDG_CACHE_HOME')
    assert doccache.folder() == '/home/someone/.cache/grader'
    monkeypatch.setenv('GRADER_CACHE_DIR', '/explicit')
    assert doccache.folder() == '/explicit'


def test_the_test_session_never_uses_the_real_cache():
    real = os.path.join(os.path.expanduser('~'), '.cache', 'grader')
    assert 'GRADER_CACHE_DIR' in os.environ
    assert os.path.abspath(os.environ['GRADER_CACHE_DIR'] or '/dev/null') != os.path.abspath(real)


def test_data_json_would_change_is_not_stored(cache):
    assert not doccache.put('a' * 64, {1: 'int key'})
    assert not doccache.put('b' * 64, {'when': __import__('datetime').date(2024, 1, 1)})
    assert not doccache.put('c' * 64, {'x': float('nan')})
    assert not doccache.put('d' * 64, {'x': (1, 2)})
    assert doccache.put('e' * 64, {'x': [1, 2.0, True, None, 'é']})
    assert doccache.get('e' * 64) == {'x': [1, 2.0, True, None, 'é']}
    assert [p.name for p in entries(cache)] == ['e' * 64 + '.json']
    assert [p.name for p in cache.iterdir()] == ['e' * 64 + '.json']  # no temporary left


POLICY_ERRORS = [
    'version: 1\nexercises: [\n  - a\n',          # not YAML
    '- just\n- a list\n',                          # not a mapping
    '',                                            # empty
]


@pytest.mark.parametrize('text', POLICY_ERRORS)
def test_invalid_policies_give_the_same_error_and_are_not_stored(tmp_path, monkeypatch, text):
    path = tmp_path / 'grading.yaml'
    path.write_text(text)
    monkeypatch.setenv('GRADER_CACHE_DIR', '')
    uncached = error_of(config.load, path)
    monkeypatch.setenv('GRADER_CACHE_DIR', str(tmp_path / 'cache'))
    assert error_of(config.load, path) == uncached
    assert error_of(config.load, path) == uncached
    assert entries(tmp_path / 'cache') == []


def test_a_schema_error_in_the_policy_is_the_same_and_not_stored(tmp_path, monkeypatch):
    text = (ROOT / 'grading.yaml').read_text().replace('scoring:\n', 'scoring:\n  bonus: 3\n')
    test_invalid_policies_give_the_same_error_and_are_not_stored(tmp_path, monkeypatch, text)


FIXTURE_EDITS = [
    ('player: X', 'player: Z'),                    # schema error, with a line
    ('cases:', 'cases: [\n'),                      # not YAML
    ('exercise: tictactoe', 'exercise: connect4'),  # valid, but for another exercise
]


@pytest.mark.parametrize('old, new', FIXTURE_EDITS)
def test_invalid_fixtures_give_the_same_error(tmp_path, monkeypatch, old, new):
    text = TICTACTOE.read_text()
    assert old in text
    path = fixture_copy(tmp_path, text.replace(old, new, 1))
    monkeypatch.setenv('GRADER_CACHE_DIR', '')
    uncached = error_of(fixtures.read, path, 'tictactoe')
    monkeypatch.setenv('GRADER_CACHE_DIR', str(tmp_path / 'cache'))
    assert error_of(fixtures.read, path, 'tictactoe') == uncached
    assert error_of(fixtures.read, path, 'tictactoe') == uncached


def test_schema_invalid_fixtures_are_not_stored(cache, tmp_path):
    path = fixture_copy(tmp_path, TICTACTOE.read_text().replace('player: X', 'player: Z', 1))
    error_of(fixtures.read, path, 'tictactoe')
    assert entries(cache) == []


def test_verify_and_digest_are_the_same_from_the_cache(cache, policy):
    fresh = fixtures.load_cases(fixtures_plugin(), policy.exercises['tictactoe'])
    cached = fixtures.load_cases(fixtures_plugin(), policy.exercises['tictactoe'])
    assert fixtures.digest(cached[1]) == fixtures.digest(fresh[1]) == \
        fixtures.digest(list(fresh[1]))
    assert fixtures.verify(policy, 'tictactoe') == []


def fixtures_plugin():
    from grader import exercises
    return exercises.get('tictactoe')


def test_a_hit_imports_neither_yaml_nor_jsonschema(cache):
    code = ('import sys; from grader import fixtures; '
            f'fixtures.read({str(TICTACTOE)!r}, "tictactoe"); '
            'print(sorted({"yaml", "jsonschema"} & set(sys.modules)))')
    env = dict(os.environ, GRADER_CACHE_DIR=str(cache))
    first = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True,
                           check=False)
    second = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True,
                            check=False)
    assert first.stdout.strip() == "['jsonschema', 'yaml']", first.stderr
    assert second.stdout.strip() == '[]', second.stderr


# -- layer detection -------------------------------------------------------------

@pytest.fixture
def fresh_probes(monkeypatch):
    """Probe again in this test, and again afterwards."""
    cached = (layers._probe_seccomp, layers._probe_cgroups)
    monkeypatch.setattr(layers._BwrapProbe, 'known', None)
    monkeypatch.setattr(layers, '_started', [])
    for probe in cached:
        probe.cache_clear()
    yield
    for probe in cached:
        probe.cache_clear()


@pytest.mark.skipif(not sys.platform.startswith('linux'), reason='Linux probes')
def test_detect_reports_the_same_with_or_without_an_early_start(fresh_probes, monkeypatch):
    plain = layers.detect()
    layers._BwrapProbe.known = None
    layers._probe_seccomp.cache_clear()
    layers._probe_cgroups.cache_clear()
    trials, popen = [], layers.subprocess.Popen

    def recording(argv, *args, **kwargs):
        trials.append(popen(argv, *args, **kwargs))
        return trials[-1]
    monkeypatch.setattr(layers.subprocess, 'Popen', recording)
    layers.start()
    assert len(trials) == (1 if shutil.which('bwrap') else 0)   # the trial runs from now
    early = layers.detect()
    assert len(trials) <= 1                         # detect took it up: no second trial
    assert all(trial.returncode is not None for trial in trials)   # ended and reaped
    assert (early.level, early.layers, early.missing, early.bwrap) == \
        (plain.level, plain.layers, plain.missing, plain.bwrap)
    assert layers.detect().layers == plain.layers  # answers kept for the process


@pytest.mark.skipif(not sys.platform.startswith('linux'), reason='Linux probes')
def test_a_failing_probe_is_reported_in_probe_order(fresh_probes, monkeypatch):
    def broken():
        raise RuntimeError('no luck')
    monkeypatch.setattr(layers, '_probe_seccomp', broken)
    isolation = layers.detect()
    assert isolation.missing[-1] == 'layer detection failed: RuntimeError: no luck'
    assert 'seccomp' not in isolation.layers and 'cgroup' not in isolation.layers
    assert isolation.level != 'strong'


@pytest.mark.skipif(not sys.platform.startswith('linux'), reason='Linux probes')
def test_missing_bubblewrap_is_named(fresh_probes, monkeypatch):
    monkeypatch.setattr(layers.shutil, 'which', lambda *a, **k: None)
    isolation = layers.detect()
    assert 'namespaces: bubblewrap (bwrap) is not installed; scripts/system-deps.sh installs it' \
        in isolation.missing
    assert isolation.bwrap == ''


@pytest.mark.skipif(not sys.platform.startswith('linux'), reason='Linux probes')
def test_a_failing_bubblewrap_gives_its_last_error_line(fresh_probes, monkeypatch, tmp_path):
    fake = tmp_path / 'bwrap'
    fake.write_text('#!/bin/sh\necho "first line" >&2\necho "bwrap: No permissions" >&2\nexit 1\n')
    fake.chmod(0o755)
    monkeypatch.setattr(layers.shutil, 'which', lambda *a, **k: str(fake))
    assert layers._probe_bwrap() == (
        '', f'{fake} cannot create namespaces here (bwrap: No permissions)')


def test_the_cgroup_v2_probe_makes_one_group(tmp_path, monkeypatch):
    made, real_mkdir, real_rmdir = [], os.mkdir, os.rmdir

    def mkdir(path, *args):  # a folder that looks like a new cgroup v2 group
        made.append(path)
        real_mkdir(path, *args)
        for name in ('cgroup.procs', 'cgroup.kill'):
            Path(path, name).write_text('')

    def rmdir(path):
        for name in os.listdir(path):
            os.unlink(os.path.join(path, name))
        real_rmdir(path)
    monkeypatch.setattr(cgroups.os, 'mkdir', mkdir)
    monkeypatch.setattr(cgroups.os, 'rmdir', rmdir)
    assert cgroups._probe(str(tmp_path), ('cgroup.procs', cgroups.V2_NEEDS)) == \
        {'cgroup.procs', 'cgroup.kill'}
    assert len(made) == 1 and not os.path.exists(made[0])
    assert cgroups._probe(str(tmp_path / 'absent')) is None


# -- what ``grader check`` imports -------------------------------------------------------

@pytest.mark.parametrize('argv', [['check', '--bogus'], ['--config', 'x', 'grade'],
                                  ['check', '--json'], ['dist', '--bogus']])
def test_the_light_parser_says_what_the_full_one_says(argv, capsys):
    outputs = []
    for light in (True, False):
        with pytest.raises(SystemExit) as info:
            cli.parser(light).parse_args(argv)
        outputs.append((info.value.code, capsys.readouterr()))
    assert outputs[0] == outputs[1]
    assert cli.parser(True).format_usage() == cli.parser().format_usage()


def test_commands_are_found_behind_top_level_options():
    named = cli._named_command
    assert named(['check', '.']) == 'check'
    assert named(['--config', 'check', 'batch', 'x']) == 'batch'
    assert named(['--conf', 'grade', 'dist', 'out']) == 'dist'
    assert named(['--config=grade', 'regrade']) == 'regrade'
    assert named(['--help']) == '' and named([]) == ''


def test_the_batch_commands_are_the_ones_batch_cli_adds():
    from grader.batch import cli as batch_cli
    assert tuple(batch_cli.COMMANDS) == cli.BATCH_COMMANDS
    assert set(cli.COMMANDS) == set(cli.CORE_COMMANDS)
    assert all(cli.command(name) for name in (*cli.CORE_COMMANDS, *cli.BATCH_COMMANDS))


def test_a_mistaken_light_guess_still_parses_batch(monkeypatch):
    seen = []
    monkeypatch.setattr(cli, '_named_command', lambda argv: 'check')
    from grader.batch import cli as batch_cli
    monkeypatch.setitem(batch_cli.COMMANDS, 'regrade', lambda args: seen.append(args) or 0)
    assert cli.main(['regrade', 'somewhere']) == 0
    assert seen and seen[0].command == 'regrade'


def test_check_and_grade_import_only_what_they_use(tmp_path, cache):
    """Nor ``jsonschema`` where ``jsonschema-rs`` accepts every reply (replycheck), nor
    ``yaml`` where the documents are cached: not even to draw the positions of a grade."""
    folder = tmp_path / 'submission'
    folder.mkdir()
    # searches that answer in about 0.5 s a grade each, with replies of every kind a search
    # gives (full marks in tic-tac-toe, wrong answers in connect four)
    for exercise, variant in (('tictactoe', 'alphabeta_helpers.py'),
                              ('connect4', 'bug_no_unmake.py')):
        (folder / f'{exercise}.py').write_text(
            (ROOT / 'tests' / 'submissions' / exercise / variant).read_text())
    unused = ('yaml', 'ctypes', 'psutil')
    try:
        import jsonschema_rs  # noqa: F401 - whether replies are checked without jsonschema
        unused += ('jsonschema',)
    except ImportError:
        pass

    def imported(command):
        code = ('import sys; from grader import cli; '
                f'status = cli.main(["--config", {str(ROOT / "grading.yaml")!r}, {command!r}, '
                f'"-q", {str(folder)!r}]); '
                f'print(status, sorted(m for m in sys.modules if m.split(".")[0] in {unused!r} '
                'or m.startswith("grader.batch") '
                'or m in ("grader.report.junit", "grader.report.gradescope", '
                '"grader.report.markdown", "grader.report.jsonout")))')
        env = dict(os.environ, GRADER_CACHE_DIR=str(cache))
        done = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True,
                              text=True, cwd=tmp_path, timeout=300, check=False)
        status, modules = done.stdout.strip().split(' ', 1)
        assert status in ('0', '1'), done.stderr
        return modules
    imported('grade')     # fills the cache
    assert imported('check') == '[]'
    assert imported('grade') == '[]'


# -- the reply envelope and teardown -----------------------------------------------------

ENVELOPES = [
    {'token': 't', 'id': 1, 'status': 'ok'}, {'token': 't', 'id': 1.0, 'status': 'ok'},
    {'token': 't', 'id': True, 'status': 'ok'}, {'token': 't', 'id': 1, 'status': 'maybe'},
    {'token': 't', 'id': 1, 'status': 'ok', 'extra': 1}, {'token': 't', 'status': 'ok'},
    {'token': 't', 'id': 1, 'status': 'error', 'error': 'x' * 2001},
    {'token': 't', 'id': 1, 'status': 'ok', 'elapsed': -1}, {'token': 1, 'id': 1, 'status': 'ok'},
    {'token': 't', 'id': 1, 'status': 'ok', 'observation': []},
    {'token': 't', 'id': 1, 'status': 'ok', 'output_bytes': 2.5}, [], None, 'ok', 3,
]


@pytest.mark.parametrize('envelope', ENVELOPES)
def test_the_envelope_check_agrees_with_jsonschema(envelope):
    from grader.sandbox import session
    expected = jsonschema.Draft202012Validator(protocol.ENVELOPE_SCHEMA).is_valid(envelope)
    assert session._envelope().is_valid(envelope) == expected


@pytest.mark.skipif(not os.path.exists(f'/proc/self/task/{os.getpid()}/children'),
                    reason='no /proc children lists here')
@pytest.mark.parametrize('finder', ['proc', 'psutil'])
def test_kill_children_kills_and_waits_for_direct_children(finder):
    parent = subprocess.Popen(['/bin/sh', '-c', 'sleep 60 & sleep 60 & wait'])
    try:
        deadline = time.monotonic() + 10
        while len(reaper._proc_children(parent.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        children = reaper._proc_children(parent.pid)
        assert len(children) == 2
        if finder == 'proc':
            reaper.kill_children(parent.pid, wait=5.0)
        else:
            reaper._kill_children_psutil(parent.pid, 5.0)
        assert not any(reaper._exists(pid) for pid in children)
        assert parent.wait(timeout=10) == 0  # sh saw both children end
    finally:
        if parent.poll() is None:
            parent.send_signal(signal.SIGKILL)
            parent.wait()


def test_kill_children_of_a_process_that_is_gone():
    done = subprocess.Popen(['true'])
    done.wait()
    assert reaper._proc_children(done.pid) in ([], None)
    reaper.kill_children(done.pid)  # nothing to do, and no error


def test_wait_for_exit_sees_the_exit_at_once_and_keeps_the_timeout():
    from grader.sandbox.session import wait_for_exit
    quick = subprocess.Popen([sys.executable, '-c',
                              'import time; time.sleep(0.2); raise SystemExit(3)'])
    assert wait_for_exit(quick, 30.0) == 3
    assert wait_for_exit(quick, 1.0) == 3  # already reaped
    slow = subprocess.Popen(['sleep', '60'])
    try:
        started = time.monotonic()
        with pytest.raises(subprocess.TimeoutExpired):
            wait_for_exit(slow, 0.3)
        assert 0.25 < time.monotonic() - started < 5
    finally:
        slow.kill()
        assert wait_for_exit(slow, 10.0) == -signal.SIGKILL
