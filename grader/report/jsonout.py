"""The JSON result (``--json FILE``): the documented machine contract."""
import json
import os
from pathlib import Path


def render(result):
    return json.dumps(result.to_dict(), indent=2, sort_keys=False) + '\n'


def write(result, path):
    """Write atomically: a reader never sees a half-written file."""
    path = Path(path)
    tmp = path.with_name(f'.{path.name}.{os.getpid()}.tmp')
    tmp.write_text(render(result), encoding='utf-8')
    tmp.replace(path)
