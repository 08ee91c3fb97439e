"""A cache of validated documents, addressed by their content.

Every run reads ``grading.yaml`` and the fixture files, parses their YAML and
validates them against their JSON Schemas, although they rarely change.
:func:`grader.yamlio.load_valid` keeps the outcome here: the key is a
SHA-256 over everything the outcome depends on (the document's bytes, the
schema's bytes, the grader's version and the loader's kind), the value is
the parsed document as JSON.  A hit costs a hash and one small file read,
with no YAML or JSON Schema work at all.

- Folder: ``$GRADER_CACHE_DIR``, else ``$XDG_CACHE_HOME/grader``, else
  ``~/.cache/grader``.  ``GRADER_CACHE_DIR=`` (empty) turns the cache off.
- Only documents that parsed and passed their schema are stored, and only
  when JSON gives back exactly the same data (no dates, no non-string keys).
- Entries are written to a temporary file in the same folder and renamed,
  so a reader never sees half an entry.
- The cache can never make loading fail or change its outcome: an
  unwritable folder, an unreadable or corrupt entry are a miss, and a miss
  stores a fresh entry.  Entries of files that have since changed are never
  read again; the folder may be deleted at any time.
"""
import hashlib
import json
import os
import tempfile

from grader.cachefolder import folder  # noqa: F401 -- the cache's folder, for its callers

MISSING = object()
"""What :func:`get` returns when ``key`` has no usable entry."""


def key(*parts):
    """A hex SHA-256 over ``parts`` (bytes), each length-prefixed so none runs into the next."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, 'big'))
        digest.update(part)
    return digest.hexdigest()


def _entry(where, key):
    return os.path.join(where, f'{key}.json')


def get(key):
    """The data stored under ``key``, or :data:`MISSING`."""
    where = folder()
    if not where:
        return MISSING
    try:
        with open(_entry(where, key), 'rb') as f:
            entry = json.loads(f.read())
    except (OSError, ValueError):  # absent, unreadable, not JSON (UnicodeDecodeError too)
        return MISSING
    if not isinstance(entry, dict) or entry.get('key') != key or 'data' not in entry:
        return MISSING
    return entry['data']


def put(key, data):
    """Store ``data`` under ``key``: True when stored; never raises for cache trouble."""
    where = folder()
    if not where:
        return False
    try:
        text = json.dumps({'key': key, 'data': data}, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):  # dates, sets, infinities, cycles
        return False
    if not _same(data, json.loads(text)['data']):
        return False
    try:
        os.makedirs(where, mode=0o700, exist_ok=True)
        # marked as this process's: a run killed while writing leaves it to the next
        # run's sweep (grader.sandbox.leftovers); only a write imports the marks
        from grader.sandbox import leftovers
        fd, temporary = tempfile.mkstemp(dir=where, prefix=f'{leftovers.prefix()}{key[:16]}-',
                                         suffix='.tmp')
        try:
            with os.fdopen(fd, 'w', encoding='utf-8') as f:
                f.write(text)
            os.replace(temporary, _entry(where, key))
        except BaseException:
            try:
                os.unlink(temporary)
            except OSError:
                pass
            raise
    except OSError:
        return False
    return True


def _same(a, b):
    """Whether ``a`` and ``b`` are equal with the same types throughout (bool is not int)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_same, a, b))
    return a == b
