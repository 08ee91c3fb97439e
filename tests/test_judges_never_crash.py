"""No reply can crash a judge: property-based tests over every exercise plug-in.

For every plug-in, replies are drawn at random -- observations that satisfy
its observation schema (built from the schema itself), arbitrary JSON that
mostly does not, and failed replies of every status -- and fed to its judge
through the engine's guarded path.  Whatever comes back, the judge returns
outcomes of its own checks, each with a kind from the fixed set, and a
schema-valid observation never makes the judge itself raise.  The channel's
decoder never raises on any bytes, and no result ever holds NaN or Infinity.
"""
import json
import os
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader import config, engine, fixtures
from grader import exercises as plugins
from grader.judging import outcomes as kinds
from grader.sandbox import protocol
from grader.sandbox.session import Reply
from gradertest import ROOT

POLICY = config.load(ROOT / 'grading.yaml')
# CI draws the same examples every run (derandomized); GRADER_FUZZ_EXAMPLES=N explores N
# fresh random ones per exercise instead, to hunt for new crashes.
FUZZ = int(os.environ.get('GRADER_FUZZ_EXAMPLES', '0'))
SETTINGS = settings(max_examples=FUZZ or 40, derandomize=not FUZZ, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


def from_schema(schema):
    """A strategy for documents that satisfy ``schema`` (the keywords the plug-ins use)."""
    if 'const' in schema:
        return st.just(schema['const'])
    if 'enum' in schema:
        return st.sampled_from(schema['enum'])
    if 'oneOf' in schema:
        base = {k: v for k, v in schema.items() if k != 'oneOf'}
        return st.one_of([from_schema(_merge(base, branch)) for branch in schema['oneOf']])
    if 'allOf' in schema:
        base = {k: v for k, v in schema.items() if k != 'allOf'}
        return from_schema(base).filter(lambda doc: True)
    kind = schema.get('type')
    if isinstance(kind, list):
        return st.one_of([from_schema(dict(schema, type=k)) for k in kind])
    if kind not in TYPED and 'properties' in schema:
        kind = 'object'
    return TYPED.get(kind, lambda _: st.integers())(schema)


def _string(schema):
    if 'pattern' in schema:
        return st.from_regex(re.compile(schema['pattern']), fullmatch=True)
    return st.text(max_size=min(schema.get('maxLength', 40), 40))


def _array(schema):
    if 'prefixItems' in schema:     # a tuple: one schema per position
        return st.tuples(*[from_schema(item) for item in schema['prefixItems']]).map(list)
    items = schema.get('items', {})
    return st.lists(from_schema(items) if items else st.integers(),
                    min_size=schema.get('minItems', 0),
                    max_size=max(schema.get('minItems', 0), min(schema.get('maxItems', 5), 8)))


def _object(schema):
    properties = schema.get('properties', {})
    required = set(schema.get('required', ()))
    optional = {k: from_schema(v) for k, v in properties.items() if k not in required}
    return st.fixed_dictionaries({k: from_schema(properties.get(k, {'type': 'integer'}))
                                  for k in required}, optional=optional)


TYPED = {
    'null': lambda _: st.none(),
    'boolean': lambda _: st.booleans(),
    'integer': lambda schema: st.integers(schema.get('minimum', -10 ** 6),
                                          schema.get('maximum', 10 ** 6)),
    'number': lambda schema: st.floats(schema.get('minimum', -1e6), schema.get('maximum', 1e6),
                                       allow_nan=False, allow_infinity=False),
    'string': _string, 'array': _array, 'object': _object,
}
"""A strategy for each ``type`` of a schema."""


def _merge(base, branch):
    merged = dict(base)
    for key, value in branch.items():
        if key == 'properties':
            merged['properties'] = dict(base.get('properties', {}), **value)
        elif key == 'required':
            merged['required'] = sorted(set(base.get('required', ())) | set(value))
        else:
            merged[key] = value
    return merged


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8)
                    | st.floats(allow_nan=False, allow_infinity=False),
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=20)
FAILED = st.sampled_from(['timeout', 'crashed', 'invalid', 'error'])


def cases_of(name):
    plugin = plugins.get(name)
    cases = fixtures.load_cases(plugin, POLICY.exercises[name])[0]
    return plugin, [c for c in cases if c.expected][:4]


def observations(plugin):
    """Schema-valid observations (kept only when the compiled check agrees)."""
    validator = plugin.observation_validator
    return from_schema(plugin.observation_schema).filter(validator.is_valid)


@pytest.mark.parametrize('name', sorted(POLICY.exercises))
def test_schema_valid_replies_never_make_a_judge_raise(name):
    plugin, cases = cases_of(name)
    settings_ = POLICY.exercises[name]
    checks = set(settings_.checks) | {'_baseline'}

    @SETTINGS
    @given(data=st.data())
    def run(data):
        case = data.draw(st.sampled_from(cases))
        replies = []
        for request in plugin.requests(case, settings_):
            if data.draw(st.booleans()):
                observation = data.draw(observations(plugin))
                replies.append(Reply(status='ok', observation=observation, cpu=0.01,
                                     limit=1.0))
            else:
                replies.append(Reply(status=data.draw(FAILED), error='x', limit=1.0))
        outcomes = plugin.judge(case, replies, settings_)      # must not raise
        for outcome in engine.judged_case(plugin, case, replies, settings_):
            assert outcome.check in checks
            assert kinds.kind_of(outcome) in kinds.KINDS
        assert all(o.check in checks for o in outcomes)
    run()


@pytest.mark.parametrize('name', sorted(POLICY.exercises))
def test_arbitrary_json_is_refused_by_the_schema_or_judged(name):
    plugin, cases = cases_of(name)
    settings_ = POLICY.exercises[name]

    @SETTINGS
    @given(data=st.data(), document=JSON)
    def run(data, document):
        case = data.draw(st.sampled_from(cases))
        valid = plugin.observation_validator.is_valid(document)   # never raises
        replies = [Reply(status='ok', observation=document if isinstance(document, dict) else {},
                         limit=1.0) if valid else Reply(status='invalid', error='shape',
                                                        limit=1.0)
                   for _ in plugin.requests(case, settings_)]
        for outcome in engine.judged_case(plugin, case, replies, settings_):
            assert kinds.kind_of(outcome) in kinds.KINDS
    run()


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_the_decoder_never_raises(raw):
    value = protocol.decode(raw)
    if value is not None:
        json.dumps(value, allow_nan=False)       # finite numbers only


@pytest.mark.parametrize('text', ['[' * 100000, '{"a":' * 5000, 'NaN', '[1e999]', '-Infinity',
                                  '1' * 5000, '"\\ud800"'])
def test_the_decoder_refuses_what_could_hurt_the_parent(text):
    assert protocol.decode(text) is None or text == '"\\ud800"'


@SETTINGS
@given(st.floats(allow_nan=True, allow_infinity=True))
def test_a_result_never_holds_nan_or_infinity(seconds):
    from grader.model import ExerciseResult, Result
    exercise = ExerciseResult(name='x', title='x', score=0.0, max_score=1.0, submitted=True,
                              facts={'student_seconds': seconds, 'nested': [seconds]})
    result = Result(grader_version='0', assignment='a', score=seconds, max_score=1.0,
                    exercises=[exercise], isolation={}, fixtures_digest='', calibration={})
    json.dumps(result.to_dict(), allow_nan=False)


@SETTINGS
@given(st.one_of(st.text(max_size=5000), st.integers(), st.none(), st.just(10 ** 5000)),
       st.text(min_size=1, max_size=3000).filter(str.isidentifier))
def test_a_failure_is_described_within_the_reply_s_error_field(code, function):
    """Whatever a submission exits with or raises, from a function of any name, the sentence
    fits the case reply's error field: the report says what happened, not that the reply
    was malformed."""
    from grader.child import channel
    namespace = {}
    exec(f'def {function}(error):\n    raise error\n', namespace)  # noqa: S102 - test code
    room = protocol.CASE_SCHEMA['properties']['error']['maxLength']
    for error in (SystemExit(code), ValueError(code)):
        try:
            namespace[function](error)
        except BaseException as exc:  # noqa: B036
            kind, text = channel.describe(exc, {'<string>'})
        assert kind in protocol.FAILURE_KINDS and len(text) <= room, (kind, len(text))
