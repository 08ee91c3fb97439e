"""The JSON result (``--json FILE``): the documented machine contract.

The document is ``Result.to_dict()``; ``grader/schemas/result.schema.json``
describes it, and new fields are only ever added.
"""
import json

from grader.report.files import write_text


def render(result):
    return json.dumps(result.to_dict(), indent=2, sort_keys=False) + '\n'


def write(result, path):
    write_text(path, render(result))
