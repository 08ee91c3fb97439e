"""Schema checks for what the untrusted child sends (parent side).

Every reply of every call is checked against a JSON Schema before a judge
reads it: the runner's envelopes and the case processes' replies
(:mod:`grader.sandbox.protocol`) and each plug-in's observations
(``observation_schema``).  Like every schema of the project (configuration,
fixtures, results), these are written in JSON Schema 2020-12 (tuple arrays
are ``prefixItems``) and checked with ``jsonschema``'s 2020-12 validator;
the tests check every schema against the 2020-12 metaschema.

Where ``jsonschema-rs`` is installed (Python 3.10 and later), a document it
accepts is valid; one it rejects is decided by ``jsonschema``, so a document
is never refused that ``jsonschema`` accepts.  ``jsonschema-rs`` checks a
route planner's reply (thousands of array items) in microseconds where
``jsonschema`` takes milliseconds, and honest replies are valid, so the slow
path is taken only for replies that fail anyway.  The tests check that both
accept and reject the same corruptions of every plug-in's replies.
"""

DIALECT = 'https://json-schema.org/draft/2020-12/schema'


class ReplyCheck:
    """``is_valid(document)`` for one 2020-12 schema.

    The validator is built on first use, or earlier by :meth:`compile` (a
    session builds it while it waits for its child, off the start-up path).
    With ``jsonschema-rs``, ``jsonschema`` is imported and its validator
    built only when a document is rejected: importing it costs a process
    about a tenth of a second of CPU, and honest replies never need it.
    """

    def __init__(self, schema):
        self.schema = {'$schema': DIALECT, **schema}
        self._validator = None
        self._fast = None
        self._compiled = False

    def compile(self):
        """Build the first validator now (once); returns self."""
        if not self._compiled:
            try:        # optional (not built for Python 3.9): the quick first opinion
                import jsonschema_rs
                self._fast = jsonschema_rs.Draft202012Validator(self.schema)
            except ImportError:
                self._fast = None
            if self._fast is None:
                self._slow()
            self._compiled = True
        return self

    def _slow(self):
        """``jsonschema``'s validator, built on first use."""
        if self._validator is None:
            # Here, not at the top: importing jsonschema takes a good part of a second on a
            # busy machine.
            from jsonschema import Draft202012Validator
            self._validator = Draft202012Validator(self.schema)
        return self._validator

    def is_valid(self, document):
        """True when ``document`` satisfies the schema; never raises for any JSON value."""
        if not self._compiled:
            self.compile()
        if self._fast is not None:
            try:
                if self._fast.is_valid(document):
                    return True
            except Exception:  # noqa: BLE001 - a value it cannot read: jsonschema decides
                pass
        return self._slow().is_valid(document)
