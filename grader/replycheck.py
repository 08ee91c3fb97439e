"""Schema checks for what the untrusted child sends (parent side).

Every reply of every call is checked against a JSON Schema before a judge
reads it: the runner's envelopes and the case processes' replies
(:mod:`grader.sandbox.protocol`) and each plug-in's observations
(``observation_schema``).  Like every schema of the project (configuration,
fixtures, results), these are written in JSON Schema 2020-12 (tuple arrays
are ``prefixItems``) and checked with ``jsonschema``'s 2020-12 validator;
the tests check every schema against the 2020-12 metaschema.
"""

DIALECT = 'https://json-schema.org/draft/2020-12/schema'


class ReplyCheck:
    """``is_valid(document)`` for one 2020-12 schema.

    The validator is built on first use, or earlier by :meth:`compile` (a
    session builds it while it waits for its child, off the start-up path).
    """

    def __init__(self, schema):
        self.schema = {'$schema': DIALECT, **schema}
        self._validator = None

    def compile(self):
        """Build the validator now (once); returns self."""
        if self._validator is None:
            # Here, not at the top: importing jsonschema takes a good part of a second on a
            # busy machine, and the first check is made while the first child loads.
            from jsonschema import Draft202012Validator
            self._validator = Draft202012Validator(self.schema)
        return self

    def is_valid(self, document):
        """True when ``document`` satisfies the schema; never raises for any JSON value."""
        return (self._validator or self.compile()._validator).is_valid(document)
