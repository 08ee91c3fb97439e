"""Where a class's submissions come from: folders, platform archives, git.

:func:`scan` turns a SOURCE into :class:`Entry` objects, one per student,
each holding the student's identity and either the submission's files or
the reason they could not be read.  Nothing is dropped silently: a stray
file, an unreadable archive or a failed clone becomes an entry with a
``problem``.

Layouts (also in docs/batch.md):

- a folder of submission folders (or of zips), one per student;
- a zip of folders or of zips, as learning platforms export them; Moodle's
  "Download all submissions" with or without a folder per student
  (``Full Name_12345_assignsubmission_file_/...`` or
  ``Full Name_12345_assignsubmission_file_tictactoe.py``);
- a text file listing git repositories (URLs or local paths), one per line,
  optionally followed by the student id and name.
"""
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path

from grader.batch import archives, gitrepos, identity
from grader.batch.archives import Refused
from grader.errors import UserError


@dataclass
class Entry:
    identity: identity.Identity
    files: dict = None
    problem: str = ''


def kind_of(source):
    """``folder``, ``zip`` or ``git`` for a SOURCE path.

    A file named ``.zip``, or starting as a zip does, is a zip even when it
    is damaged (it is then refused as one, never read as a list of
    repositories); a list of repositories must be text.
    """
    source = Path(source)
    if source.is_dir():
        return 'folder'
    if not source.is_file():
        raise UserError('no such folder or file (pass a folder of submissions, a zip, or a '
                        'text file listing git repositories)', source)
    try:
        with open(source, 'rb') as stream:
            head = stream.read(4096)
    except OSError as error:
        raise UserError(f'cannot read it: {error.strerror}', source) from None
    if (source.suffix.lower() == '.zip' or head.startswith(b'PK')
            or zipfile.is_zipfile(source)):
        return 'zip'
    if b'\0' in head:
        raise UserError('neither a zip archive nor a text file listing git repositories',
                        source)
    return 'git'


def check(source, kind=None):
    """Refuse a SOURCE that cannot be read at all, before anything is written.

    Returns its kind.  A damaged class archive, an unreadable folder or list
    is a :class:`UserError` naming it.
    """
    kind = kind or kind_of(source)
    source = Path(source)
    if kind == 'zip':
        try:
            with archives.open_zip(source) as archive:
                archives.zip_members(archive)
        except Refused as error:
            raise UserError(f'{error}; download the class archive again', source) from None
    elif kind == 'folder':
        try:
            next(iter(source.iterdir()), None)
        except OSError as error:
            raise UserError(f'cannot read the folder: {error.strerror}', source) from None
    elif kind == 'git':
        gitrepos.parse_list(source)
    else:
        raise UserError(f'unknown source kind {kind!r}')
    return kind


def scan(source, limits, *, kind=None, clones=None, refresh=True, worksheet=None,
         students=None):
    """The class's :class:`Entry` list, identities completed and keys unique."""
    kind = check(source, kind)
    if kind == 'folder':
        entries = _folder(Path(source), limits)
    elif kind == 'zip':
        entries = _archive(Path(source), limits)
    elif kind == 'git':
        entries = gitrepos.scan(Path(source), limits, clones, refresh)
    else:
        raise UserError(f'unknown source kind {kind!r}')
    entries = _merge(entries)
    if not entries:
        raise UserError('no submissions found here: an empty class (pass the folder or zip '
                        'that holds one folder, zip or file per student)', source)
    for entry in entries:
        entry.identity = identity.enrich(entry.identity, worksheet, students)
        if entry.files is not None and not entry.problem:
            try:
                entry.files = archives.normalise(entry.files, limits)
            except Refused as error:
                entry.files, entry.problem = None, str(error)
            else:
                if not entry.files:
                    entry.files, entry.problem = None, 'the submission holds no files'
    return entries


# -- groups: one per top-level name ------------------------------------------
def _entry(name, origin, load):
    """An entry from a top-level name and a loader of its file map."""
    who = identity.from_name(name, origin)
    try:
        files = load()
    except Refused as error:
        return Entry(who, problem=str(error))
    parsed = identity.moodle(name)
    if parsed and parsed[2] and not name.endswith('/'):
        # A Moodle download without folders: the file name follows the marker.
        if len(files) == 1 and '' in files:
            files = {parsed[2]: files['']}
    return Entry(who, files=files)


def _stray(name, origin):
    return Entry(identity.from_name(name, origin),
                 problem=f'{name} is neither a submission folder, a zip, nor a Moodle '
                         'submission file; not graded')


def _folder(source, limits):
    entries = []
    for path in sorted(source.iterdir()):
        name = path.name
        origin = str(path)
        if name in archives.JUNK or path.is_symlink():
            continue
        if path.is_dir():
            entries.append(_entry(name, origin, lambda p=path: archives.read_folder(p, limits)))
        elif name.lower().endswith('.zip'):
            entries.append(_entry(name, origin, lambda p=path: archives.read_zip(p, limits)))
        elif identity.moodle(name) and identity.moodle(name)[2]:
            entries.append(_entry(name, origin, lambda p=path: {'': _read_file(p, limits)}))
        else:
            entries.append(_stray(name, origin))
    return entries


def _read_file(path, limits):
    if path.stat().st_size > limits.max_bytes:
        raise Refused(f'larger than {limits.megabytes:g} MB; refused')
    return path.read_bytes()


def _archive(source, limits):
    """Entries of a class archive (a zip of folders, of zips, or of Moodle files)."""
    outer = archives.Limits(max_bytes=limits.max_bytes * 1000, max_files=limits.max_files * 100)
    try:
        archive = archives.open_zip(source)
    except Refused as error:
        raise UserError(f'{error}; download the class archive again', source) from None
    with archive:
        try:
            members = archives.zip_members(archive)
        except Refused as error:
            raise UserError(str(error), source) from None
        if len(members) > outer.max_files:
            raise UserError(f'more than {outer.max_files} files in the class archive; refused',
                            source)
        strip = _wrapper(members)
        groups = {}
        for name, info in members:
            name = name[len(strip):]
            top, _, rest = name.partition('/')
            groups.setdefault((top, bool(rest)), []).append((name, info))
        entries = []
        for (top, is_folder), group in sorted(groups.items()):
            origin = f'{source.name}:{strip}{top}' + ('/' if is_folder else '')
            if is_folder or top.lower().endswith('.zip') or (
                    identity.moodle(top) and identity.moodle(top)[2]):
                entries.append(_entry(top, origin, _loader(archive, group, top, is_folder,
                                                           limits)))
            else:
                entries.append(_stray(top, origin))
        return entries


def _loader(archive, group, top, is_folder, limits):
    """A function reading one top-level group of a class archive."""
    def load():
        if is_folder:
            return archives.read_members(archive, group, limits, strip=top + '/')
        data = archives.read_members(archive, group, limits)[group[0][0]]
        if top.lower().endswith('.zip'):
            return archives.read_zip(data, limits)
        return {'': data}      # a Moodle file without a folder
    return load


def _wrapper(members):
    """The single folder wrapping a whole class archive ('' if none)."""
    strip = ''
    while True:
        names = [n[len(strip):] for n, _ in members]
        tops = {n.split('/', 1)[0] for n in names}
        if len(tops) != 1 or any('/' not in n for n in names):
            return strip
        top = tops.pop()
        inside = {n[len(top) + 1:].split('/', 1)[0] for n in names}
        loose = [n for n in names if n.count('/') == 1 and not n.lower().endswith('.zip')]
        if loose or top == 'src' or not inside:
            return strip
        strip += top + '/'


def look_alike(identities):
    """Groups of keys whose names reduce to the same text (``alice_smith``,
    ``!alice_smith``): each is filed under a key of its own, and the
    instructor is told, so that nobody is mistaken for another."""
    groups = {}
    for who in identities:
        if not who.participant:
            groups.setdefault(identity.base_key(who.key).lower(), set()).add(who.key)
    return [sorted(keys) for _, keys in sorted(groups.items()) if len(keys) > 1]


def _merge(entries):
    """One entry per key: a Moodle participant's folders are merged; other clashes
    are problems (the first entry is kept and graded)."""
    merged, order = {}, []
    for entry in entries:
        key = entry.identity.key
        if key not in merged:
            merged[key] = entry
            order.append(key)
            continue
        first = merged[key]
        if entry.identity.participant and entry.identity.participant == first.identity.participant:
            if entry.problem or first.problem:
                first.problem = first.problem or entry.problem
                first.files = None
            else:
                for name, data in entry.files.items():
                    first.files.setdefault(name, data)
            first.identity = replace(first.identity,
                                     origin=f'{first.identity.origin} + {entry.identity.origin}')
            continue
        suffix = 2
        while f'{key}-{suffix}' in merged:
            suffix += 1
        clash = replace(entry.identity, key=f'{key}-{suffix}')
        merged[clash.key] = Entry(clash, problem=f'a second submission for {key} '
                                  f'({entry.identity.origin}); only {first.identity.origin} '
                                  'is graded')
        order.append(clash.key)
    return [merged[k] for k in order]
