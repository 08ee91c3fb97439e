"""Writing report files: atomically, so a reader never sees half a file."""
import os
from pathlib import Path


def write_text(path, text):
    """Replace ``path`` with ``text`` in one step (parent folders are made)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f'.{path.name}.{os.getpid()}.tmp')
    tmp.write_text(text, encoding='utf-8')
    tmp.replace(path)


def append_text(path, text):
    """Append ``text`` to ``path`` (the GitHub job summary is appended to)."""
    with open(path, 'a', encoding='utf-8') as stream:
        stream.write(text)
