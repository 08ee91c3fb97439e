"""JSON Schema pieces for what probes report (2020-12, for :mod:`grader.replycheck`).

A judge reads a reply only after it matched its exercise's observation
schema, so every field a judge reads is declared here with its type, range
and size: a reply that passes the check cannot make a judge fail.
"""

COUNT = {'type': 'integer', 'minimum': 0, 'maximum': 10 ** 12}
TEXT = {'type': 'string', 'maxLength': 20000}
NAME = {'type': 'string', 'maxLength': 200}

PLAIN_ITEM = {
    'type': 'object',
    'required': ['kind'],
    'properties': {
        'kind': {'enum': ['none', 'bool', 'int', 'int-subclass', 'float', 'str', 'other']},
        'value': {'type': ['integer', 'boolean'], 'minimum': -10 ** 15, 'maximum': 10 ** 15},
        'type': NAME,
        'repr': NAME,
    },
    'additionalProperties': False,
    'allOf': [
        {'if': {'properties': {'kind': {'enum': ['int', 'int-subclass']}}},
         'then': {'required': ['value'], 'properties': {'value': {'type': 'integer'}}}},
        {'if': {'properties': {'kind': {'const': 'bool'}}},
         'then': {'required': ['value'], 'properties': {'value': {'type': 'boolean'}}}},
    ],
}
"""One value as :func:`grader.child.values.plain` reports it."""

PLAIN_SEQUENCE = {
    'type': 'object',
    'oneOf': [
        {'properties': {'shape': {'const': 'single'}, 'item': PLAIN_ITEM},
         'required': ['shape', 'item'], 'additionalProperties': False},
        {'properties': {'shape': {'const': 'sequence'}, 'length': COUNT,
                        'items': {'type': 'array', 'items': PLAIN_ITEM, 'maxItems': 16}},
         'required': ['shape', 'length', 'items'], 'additionalProperties': False},
    ],
}
"""What a call returned, as :func:`grader.child.values.plain_sequence` reports it."""


def board(length, cells):
    """A board as a list of ``length`` one-character strings among ``cells``, or null."""
    return {'type': ['array', 'null'], 'items': {'enum': list(cells)},
            'minItems': length, 'maxItems': length}
