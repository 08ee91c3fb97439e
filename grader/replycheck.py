"""Compiled schema checks for what the untrusted child sends (parent side).

Every reply of every call is checked against a JSON Schema before a judge
reads it, so this sits on the hot path: a route-planner grading checks
thousands of route and expansion entries.  ``fastjsonschema`` turns a schema
into Python code once, which checks a reply many times faster than the
general ``jsonschema`` validator.  The schemas here are written in draft 7
(``fastjsonschema`` knows drafts 4, 6 and 7; tuple arrays are ``items: [...]``,
not 2020-12's ``prefixItems``); ``jsonschema``'s draft 7 metaschema checks
them in the tests.  Configuration and fixtures, whose errors must name a key
path and line, are still validated with ``jsonschema``.
"""
import fastjsonschema

DRAFT = 'http://json-schema.org/draft-07/schema#'


class ReplyCheck:
    """``is_valid(document)`` for one compiled draft 7 schema.

    The schema is compiled on first use, or earlier by :meth:`compile` (a
    session compiles while it waits for its child, off the start-up path).
    """

    def __init__(self, schema):
        self.schema = {'$schema': DRAFT, **schema}
        self._check = None

    def compile(self):
        """Compile the schema now (once); returns self."""
        if self._check is None:
            self._check = fastjsonschema.compile(self.schema)
        return self

    def is_valid(self, document):
        """True when ``document`` satisfies the schema; never raises for any JSON value."""
        check = self._check or self.compile()._check
        try:
            check(document)
        except fastjsonschema.JsonSchemaException:
            return False
        return True
