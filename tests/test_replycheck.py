"""The compiled reply checks agree with jsonschema's draft 7 validator.

Every plug-in's observation schema (and the protocol envelope) must be a
valid draft 7 schema, and ``grader.replycheck`` must accept and reject
exactly what ``jsonschema.Draft7Validator`` does, on a valid example built
from each schema and on every single-leaf corruption of it.
"""
import copy

import jsonschema
import pytest

from grader import exercises
from grader.replycheck import ReplyCheck

ODD_VALUES = [True, False, 0, -1, 1.5, float('inf'), 'x', '', None, [], {}, [None, 1], {'kind': 1}]
PLUGINS = sorted(exercises.registry().items())


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
        items = schema.get('items', {})
        if isinstance(items, list):
            return [example(sub) for sub in items]
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


@pytest.mark.parametrize('name,plugin', PLUGINS, ids=[n for n, _ in PLUGINS])
def test_observation_schema_is_draft7_and_checks_agree(name, plugin):
    schema = plugin.observation_schema
    jsonschema.Draft7Validator.check_schema(schema)
    reference = jsonschema.Draft7Validator(schema)
    fast = ReplyCheck(schema)
    disagreements, rejected = [], 0
    for valid in examples(schema):
        assert reference.is_valid(valid), (name, valid)
        assert fast.is_valid(valid)
        for document in corruptions(valid):
            expected = reference.is_valid(document)
            rejected += not expected
            if fast.is_valid(document) != expected:
                disagreements.append(document)
    assert not disagreements, disagreements[:3]
    assert rejected > 0    # the corruptions do exercise the schema


def test_booleans_are_not_numbers():
    check = ReplyCheck({'type': 'object', 'properties': {'n': {'type': 'integer'}}})
    assert check.is_valid({'n': 3})
    assert not check.is_valid({'n': True})
    assert not check.is_valid({'n': 3.5})


NEWER_KEYWORDS = {'prefixItems', '$defs', 'dependentRequired', 'dependentSchemas',
                  'unevaluatedItems', 'unevaluatedProperties', '$dynamicRef', 'minContains'}


def keywords(schema):
    if isinstance(schema, dict):
        for key, value in schema.items():
            yield key
            yield from keywords(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from keywords(value)


@pytest.mark.parametrize('name,plugin', PLUGINS, ids=[n for n, _ in PLUGINS])
def test_observation_schema_uses_no_keyword_newer_than_draft7(name, plugin):
    """Draft 7 validators silently ignore 2020-12 keywords, which would let bad replies through."""
    assert not NEWER_KEYWORDS & set(keywords(plugin.observation_schema))
