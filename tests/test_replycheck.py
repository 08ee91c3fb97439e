"""The reply checks validate JSON Schema 2020-12, and the plug-ins' schemas are 2020-12.

Every plug-in's observation schema (and the protocol's envelopes) must be a
valid 2020-12 schema written with no keyword of an older draft (which a
2020-12 validator silently ignores), and ``grader.replycheck`` must accept a
valid example built from each schema and reject corruptions of it, exactly
as ``jsonschema.Draft202012Validator`` does.
"""
import copy
import sys

import jsonschema
import pytest

from grader import exercises
from grader.replycheck import ReplyCheck
from grader.sandbox import protocol

ODD_VALUES = [True, False, 0, -1, 1.5, float('inf'), 'x', '', None, [], {}, [None, 1], {'kind': 1}]
PLUGINS = sorted(exercises.registry().items())
SCHEMAS = [(name, plugin.observation_schema) for name, plugin in PLUGINS] + [
    ('envelope', protocol.ENVELOPE_SCHEMA), ('case', protocol.CASE_SCHEMA)]


PATTERN_EXAMPLES = {'^[.xo?]{7}$': '.......'}
"""A string matching each pattern used in the schemas (add one for a new pattern)."""


def examples(schema):
    """Documents shaped by ``schema``: one per ``oneOf`` branch, every property present."""
    if 'oneOf' in schema:
        base = {k: v for k, v in schema.items() if k != 'oneOf'}
        found = []
        for branch in schema['oneOf']:
            merged = {**base, **branch,
                      'properties': {**base.get('properties', {}), **branch.get('properties', {})},
                      'required': [*base.get('required', ()), *branch.get('required', ())]}
            found += examples(merged)
        return found
    return [example(schema)]


def example(schema):
    """One document shaped by ``schema`` (no ``oneOf`` at this level)."""
    if 'const' in schema:
        return schema['const']
    if 'enum' in schema:
        return schema['enum'][0]
    if 'oneOf' in schema:
        return examples(schema)[0]
    kind = schema.get('type', 'object')
    if isinstance(kind, list):
        kind = kind[0]
    if kind == 'object':
        props = schema.get('properties', {})
        document = {name: example(sub) for name, sub in props.items()}
        for name in schema.get('required', ()):
            document.setdefault(name, 'x')
        extra = schema.get('additionalProperties')
        if isinstance(extra, dict):
            document['extra'] = example(extra)
        return document
    if kind == 'array':
        if 'prefixItems' in schema:
            return [example(sub) for sub in schema['prefixItems']]
        items = schema.get('items', {})
        return [example(items) for _ in range(max(1, schema.get('minItems', 1)))]
    if kind == 'string' and 'pattern' in schema:
        return PATTERN_EXAMPLES[schema['pattern']]
    return {'integer': 3, 'number': 2.5, 'string': 's', 'boolean': True, 'null': None}[kind]


def corruptions(document):
    """``document`` with one leaf (or one container) replaced, in every way."""
    def paths(node, prefix=()):
        yield prefix
        if isinstance(node, dict):
            for key, value in node.items():
                yield from paths(value, prefix + (key,))
        elif isinstance(node, list):
            for index, value in enumerate(node):
                yield from paths(value, prefix + (index,))
    for path in list(paths(document)):
        for odd in ODD_VALUES:
            changed = copy.deepcopy(document)
            if not path:
                yield odd
                continue
            node = changed
            for step in path[:-1]:
                node = node[step]
            node[path[-1]] = odd
            yield changed
        if path:
            shorter = copy.deepcopy(document)
            node = shorter
            for step in path[:-1]:
                node = node[step]
            del node[path[-1]]
            yield shorter


@pytest.mark.parametrize('name,schema', SCHEMAS, ids=[n for n, _ in SCHEMAS])
def test_reply_schemas_are_2020_12_and_the_checks_follow_them(name, schema):
    jsonschema.Draft202012Validator.check_schema(schema)
    reference = jsonschema.Draft202012Validator(schema)
    check = ReplyCheck(schema)
    disagreements, rejected = [], 0
    for valid in examples(schema):
        assert reference.is_valid(valid), (name, valid)
        assert check.is_valid(valid)
        for document in corruptions(valid):
            expected = reference.is_valid(document)
            rejected += not expected
            if check.is_valid(document) != expected:
                disagreements.append(document)
    assert not disagreements, disagreements[:3]
    assert rejected > 0    # the corruptions do exercise the schema


@pytest.mark.skipif(sys.version_info < (3, 10), reason='jsonschema-rs is not built for 3.9')
@pytest.mark.parametrize('name,schema', SCHEMAS, ids=[n for n, _ in SCHEMAS])
def test_the_compiled_checks_accept_only_what_jsonschema_accepts(name, schema):
    """What jsonschema-rs (the quick first opinion) accepts is final: it must accept no
    corruption that jsonschema refuses, and every valid example."""
    import jsonschema_rs
    full = {'$schema': 'https://json-schema.org/draft/2020-12/schema', **schema}
    fast = jsonschema_rs.Draft202012Validator(full)
    reference = jsonschema.Draft202012Validator(full)
    wrongly_accepted, agreed = [], 0
    for valid in examples(schema):
        assert fast.is_valid(valid), (name, valid)
        for document in corruptions(valid):
            try:
                accepted = fast.is_valid(document)
            except Exception:  # noqa: BLE001 - jsonschema decides what it cannot read
                continue
            if accepted and not reference.is_valid(document):
                wrongly_accepted.append(document)
            agreed += accepted == reference.is_valid(document)
    assert not wrongly_accepted, wrongly_accepted[:3]
    assert agreed > 0


def test_tuple_arrays_are_checked_position_by_position():
    """``prefixItems`` is a 2020-12 keyword: an older draft's validator would let this through."""
    check = ReplyCheck({'type': 'array', 'prefixItems': [{'type': 'string'}, {'type': 'number'}],
                        'minItems': 2, 'maxItems': 2})
    assert check.is_valid(['A', 3])
    assert not check.is_valid([3, 'A'])
    assert not check.is_valid(['A', 3, 4])


def test_booleans_are_not_numbers():
    check = ReplyCheck({'type': 'object', 'properties': {'n': {'type': 'integer'}}})
    assert check.is_valid({'n': 3})
    assert not check.is_valid({'n': True})
    assert not check.is_valid({'n': 3.5})


OLDER_KEYWORDS = {'definitions', 'dependencies', 'additionalItems'}
"""Draft 7 keywords that a 2020-12 validator ignores (``items`` as a list it refuses)."""


def keywords(schema):
    if isinstance(schema, dict):
        for key, value in schema.items():
            yield key
            yield from keywords(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from keywords(value)


@pytest.mark.parametrize('name,schema', SCHEMAS, ids=[n for n, _ in SCHEMAS])
def test_reply_schemas_use_no_keyword_of_an_older_draft(name, schema):
    assert not OLDER_KEYWORDS & set(keywords(schema))
