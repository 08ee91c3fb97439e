"""The route planner plug-in's own pieces: data layout, load hint, reading answers, feedback."""
import shutil
from pathlib import Path

import pytest
import yaml

from grader import exercises
from grader.exercises import base
from grader.exercises.travel import judge
from grader.sandbox.session import Reply, Session

ROOT = Path(__file__).resolve().parents[1]
SUBMISSIONS = ROOT / 'tests' / 'submissions'


@pytest.fixture(scope='module')
def plugin():
    return exercises.get('travel')


@pytest.fixture
def settings(policy):
    return policy.exercises['travel']


def test_prepare_lays_out_the_network_where_the_handout_looks(plugin, settings, tmp_path):
    copy = tmp_path / 'copy'
    (copy / 'src').mkdir(parents=True)
    (copy / 'network.json').write_text('[]')           # a student's own, edited copy: replaced
    (copy / 'lines.json').mkdir()                      # even a folder in the way
    plugin.prepare(settings)(copy)
    for name, source in [('network.json', 'stops_file'), ('lines.json', 'routes_file'),
                         ('large/network.json', 'large_stops_file'),
                         ('large/lines.json', 'large_routes_file')]:
        assert (copy / name).read_bytes() == open(settings.options[source], 'rb').read(), name
    assert plugin.child_options(settings)['data']['small'] == ['network.json', 'lines.json']


def test_exit_at_import_gets_a_hint_naming_the_provided_files(plugin, settings, run, tmp_path):
    folder = tmp_path / 'submission'
    shutil.copytree(SUBMISSIONS / 'travel' / 'exit_at_import_wrong_names', folder)
    relpath = plugin.locate(folder, settings)
    assert relpath == 'src/citymap.py'
    with Session(folder, relpath, plugin.probe, options=plugin.child_options(settings),
                 isolation=run.isolation, prepare=plugin.prepare(settings)) as session:
        loaded = session.start()
    assert loaded.ok and any('sys.exit()' in w for w in loaded.observation['warnings'])
    hint, = plugin.load_warnings(loaded, settings)
    assert 'network.json and lines.json' in hint and 'graph.json' in hint and 'not found' in hint


def test_a_clean_import_gets_no_hint(plugin, settings):
    loaded = Reply(status='ok', observation={'warnings': [], 'probe': {'printed': ''}})
    assert plugin.load_warnings(loaded, settings) == []


def route_case(hidden=False):
    case = next(c for c in yaml.safe_load((ROOT / 'fixtures/travel.yaml').read_text())['cases']
                if c['name'] == 'one-way-street')
    return base.Case(name=case['name'], input=case['input'], expected=case['expected'],
                     source=case['source'], tags=tuple(case['tags']), hidden=hidden)


def reply_with_chain(chain, end='none'):
    return Reply(status='ok', wall=0.01, limit=1.0, observation={
        'network_error': None, 'error': None, 'goal_set': True, 'returned': {'kind': 'state'},
        'chain': chain, 'chain_end': end})


def test_route_feedback_draws_returned_and_expected_but_not_for_hidden_cases(plugin, settings):
    case = route_case()
    late = [[case.input['goal'], 19], [case.input['start'], case.input['departure']]]
    arrival, route, timeouts = plugin.judge(case, [reply_with_chain(late)], settings)
    assert not arrival.passed and 'expected 8m' in arrival.message
    assert 'returned (start first):' in arrival.feedback
    assert 'expected: arrival at 8m' in arrival.feedback
    assert not route.passed and 'no tram runs directly' in route.message
    assert not timeouts.passed
    hidden = plugin.judge(route_case(hidden=True), [reply_with_chain(late)], settings)[0]
    assert not hidden.passed and '8m' not in hidden.message and 'expected' not in hidden.feedback


def test_the_search_seconds_are_the_cpu_the_parent_measured(plugin, settings):
    """The route planner's time facts come from the case's CPU time read outside its process;
    a clock of the case process is no part of the reply (its schema refuses one)."""
    case = route_case()
    forwards = [[code, time] for code, time in reversed(case.expected['hops'])]
    outcomes = []
    for cpu in (0.25, 0.5, 0.75):
        reply = reply_with_chain(forwards)
        reply.cpu = cpu
        outcomes += plugin.judge(case, [reply], settings)
    facts = plugin.facts(outcomes, settings)
    assert facts['search_seconds_median'] == 0.5 and facts['search_seconds_max'] == 0.75
    claimed = dict(reply_with_chain(forwards).observation, search_seconds=0.001)
    assert not plugin.observation_validator.is_valid(claimed)


def test_a_forward_linked_list_is_read_at_its_goal_end(plugin, settings):
    case = route_case()
    forwards = [[code, time] for code, time in case.expected['hops']]
    arrival, route, _ = plugin.judge(case, [reply_with_chain(forwards)], settings)
    assert arrival.passed
    assert not route.passed and 'linked forwards' in route.message


def test_a_cycle_in_the_returned_list_fails_the_route(plugin, settings):
    case = route_case()
    backwards = [[code, time] for code, time in reversed(case.expected['hops'])]
    arrival, route, _ = plugin.judge(case, [reply_with_chain(backwards, end='cycle')], settings)
    assert arrival.passed and not route.passed and 'cycle' in route.message


def test_expansion_order_names_the_search(settings):
    network = judge.network_of(settings)
    codes = sorted(network.stops)
    trip = {'start': codes[0], 'goal': codes[-1]}
    levels = judge.hop_levels(network, trip['start'])
    by_hops = sorted(levels, key=lambda c: (levels[c], c))[:30]
    # breadth-first: stops by number of stops from the start, times all over the place
    order = [[code, (7 * k) % 23] for k, code in enumerate(by_hops)]
    assert judge.expansion_order(network, trip, order) == {'hops'}
    # time order only: times that never decrease, on stops ever nearer the goal
    # (so time + heuristic falls within each minute)
    far_first = sorted(codes, key=lambda c: -network.heuristic(c, trip['goal']))[:30]
    order = [[code, k // 10] for k, code in enumerate(far_first)]
    assert 'time' in judge.expansion_order(network, trip, order)
    assert 'f' not in judge.expansion_order(network, trip, order)
    assert judge.describe_order([{'f', 'time'}, {'f'}]) == 'A*'
    assert judge.describe_order([{'time'}, {'time', 'hops'}]) == 'time only (Dijkstra)'
    assert judge.describe_order([{'f'}, {'hops'}]) == 'unclear'


def _with_stops_file(settings, which, path):
    import dataclasses
    prefix = 'large_' if which == 'large' else ''
    return dataclasses.replace(settings, options={**settings.options,
                                                  prefix + 'stops_file': str(path)})


@pytest.mark.parametrize('cache', ['on', 'off'])
def test_the_stop_count_of_a_plan_is_the_citys_and_reads_no_city_once_kept(
        settings, tmp_path, monkeypatch, cache):
    """The expansion limits need a city's number of stops only: kept in the document cache
    by the stops file's digest, a plan reads no city (the judge reads it for the trips), and
    another file gets its own count; with the cache off, the city is read."""
    import functools
    import json

    from grader.exercises.travel import network as tram
    monkeypatch.setenv('GRADER_CACHE_DIR', str(tmp_path / 'cache') if cache == 'on' else '')
    monkeypatch.setattr(judge, '_counted', {})
    expected = {which: len(judge.network_of(settings, which).stops)
                for which in ('small', 'large')}
    assert {which: judge.stop_count(settings, which) for which in expected} == expected
    fewer = tmp_path / 'fewer.json'
    fewer.write_text(json.dumps(tram.load_json(settings.options['stops_file'])[:-3]))
    assert judge.stop_count(_with_stops_file(settings, 'small', fewer), 'small') == \
        expected['small'] - 3
    # as another process would: nothing read yet, the same cache folder
    read, from_files = [], tram.Network.from_files.__func__
    monkeypatch.setattr(tram.Network, 'from_files', classmethod(
        lambda cls, *files: read.append(files) or from_files(cls, *files)))
    monkeypatch.setattr(tram, '_read', functools.lru_cache(maxsize=8)(
        lambda stops, routes: tram.Network.from_files(stops, routes)))
    monkeypatch.setattr(judge, '_counted', {})
    assert judge.stop_count(settings, 'large') == expected['large']
    assert len(read) == (0 if cache == 'on' else 1), read
