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
from dataclasses import replace
from pathlib import Path

from grader.batch import archives, gitrepos, identity
from grader.batch.archives import Refused
from grader.batch.entry import Entry
from grader.errors import UserError


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
                archives.list_zip(archive)
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
            links = []
            try:
                entry.files = archives.normalise(entry.files, limits, links=links)
            except Refused as error:
                entry.files, entry.problem = None, str(error)
            else:
                if not entry.files:
                    entry.files = None
                    entry.problem = str(_only_links(links)) if links else NO_FILES
    return entries


# -- groups: one per top-level name ------------------------------------------
NO_FILES = 'the submission holds no files'


def _entry(name, origin, load):
    """An entry from a top-level name and a loader of its file map."""
    who = identity.from_name(name, origin)
    try:
        files = load()
    except Refused as error:
        return Entry(who, problem=str(error), empty=isinstance(error, _OnlyLinks))
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
        if name in archives.JUNK:
            continue
        if path.is_symlink():
            entries.append(Entry(identity.from_name(name, origin), empty=True, problem=(
                f'{archives.ONLY_LINKS}: {name} is a symbolic link, and links are never '
                'followed')))
        elif path.is_dir():
            entries.append(_entry(name, origin,
                                  lambda p=path: _student_files(archives.read_folder, p, limits)))
        elif name.lower().endswith('.zip'):
            entries.append(_entry(name, origin,
                                  lambda p=path: _student_files(archives.read_zip, p, limits)))
        elif identity.moodle(name) and identity.moodle(name)[2]:
            entries.append(_entry(name, origin, lambda p=path: {'': _read_file(p, limits)}))
        else:
            entries.append(_stray(name, origin))
    return entries


class _OnlyLinks(Refused):
    """A hand-in of nothing but symbolic links."""


def _only_links(links):
    return _OnlyLinks(f'{archives.ONLY_LINKS}: it holds nothing but symbolic links '
                   f'({", ".join(sorted(links)[:3])}{" ..." if len(links) > 3 else ""}), '
                   'and links are never followed')


def _student_files(read, source, limits):
    """A student's folder or zip read by ``read`` (:func:`archives.read_folder` or
    :func:`archives.read_zip`): its file map, or :class:`Refused` when it holds only links."""
    links = []
    files = read(source, limits, links)
    if not files and links:
        raise _only_links(links)
    return files


def _read_file(path, limits):
    if path.stat().st_size > limits.max_bytes:
        raise Refused(f'larger than {limits.megabytes:g} MB; refused')
    return path.read_bytes()


def _archive(source, limits):
    """Entries of a class archive (a zip of folders, of zips, or of Moodle files).

    Every top-level name in the archive (after a wrapping folder) is a
    submission and gets an entry: one whose entries are all links, or that
    has an entry pointing outside the archive, gets one with the reason.  An
    entry outside the archive that belongs to no submission is listed on its
    own.  Nothing of one submission affects another.
    """
    outer = archives.Limits(max_bytes=limits.max_bytes * 1000, max_files=limits.max_files * 100)
    try:
        archive = archives.open_zip(source)
    except Refused as error:
        raise UserError(f'{error}; download the class archive again', source) from None
    with archive:
        listing = archives.list_zip(archive)
        members = listing.members
        if len(members) > outer.max_files:
            raise UserError(f'more than {outer.max_files} files in the class archive; refused',
                            source)
        strip = _wrapper([name for name, _ in members] + listing.links)
        tops = _Tops.of(listing, strip)
        entries = [_top_entry(archive, tops, top, is_folder,
                              f'{source.name}:{strip}{top}' + ('/' if is_folder else ''), limits)
                   for top, is_folder in sorted(tops.tops)]
        for written, reason in tops.loose:
            entries.append(Entry(identity.from_name(written, f'{source.name}:{written}'),
                                 problem=reason))
        return entries


class _Tops:
    """A class archive's listing grouped by submission: its top-level names (after the
    wrapping folder ``strip``), with each one's files, links and refusal."""

    def __init__(self):
        self.groups, self.links, self.refused, self.tops, self.loose = {}, {}, {}, set(), []

    @classmethod
    def of(cls, listing, strip):
        grouped = cls()
        for name, info in listing.members:
            where = _place(name, strip)
            if where:
                grouped.tops.add(where)
                grouped.groups.setdefault(where, []).append((name[len(strip):], info))
        for name in listing.links:
            where = _place(name, strip)
            if where:
                grouped.tops.add(where)
                grouped.links.setdefault(where[0], []).append(name[len(strip):])
        for name in listing.folders:
            where = _place(name + '/', strip)
            if where:
                grouped.tops.add((where[0], True))
        for written, reason in listing.refused:
            where = _place(archives.inside_part(written) + '/', strip)
            if where:
                grouped.tops.add((where[0], True))
                grouped.refused.setdefault(where[0], reason)
            else:
                grouped.loose.append((written, reason))
        return grouped


def _top_entry(archive, tops, top, is_folder, origin, limits):
    """The :class:`Entry` of one top-level name of a class archive."""
    group = tops.groups.get((top, is_folder))
    if top in tops.refused:
        return Entry(identity.from_name(top, origin), problem=tops.refused[top])
    if not group and top in tops.links:
        return Entry(identity.from_name(top, origin), empty=True,
                     problem=str(_only_links(tops.links[top])))
    if not group:
        return Entry(identity.from_name(top, origin), empty=True, problem=NO_FILES)
    if is_folder or top.lower().endswith('.zip') or (
            identity.moodle(top) and identity.moodle(top)[2]):
        return _entry(top, origin, _loader(archive, group, top, is_folder, limits))
    return _stray(top, origin)


def _place(name, strip):
    """``(top, is_folder)`` of a clean entry name inside the wrapping folder ``strip``;
    None outside it, for the wrapping folder itself and for clutter."""
    if not name.startswith(strip):
        return None
    top, _, rest = name[len(strip):].partition('/')
    if not top or top in archives.JUNK:
        return None
    return top, bool(rest)


def _loader(archive, group, top, is_folder, limits):
    """A function reading one top-level group of a class archive."""
    def load():
        if is_folder:
            return archives.read_members(archive, group, limits, strip=top + '/')
        data = archives.read_members(archive, group, limits)[group[0][0]]
        if top.lower().endswith('.zip'):
            return _student_files(archives.read_zip, data, limits)
        return {'': data}      # a Moodle file without a folder
    return load


def _wrapper(names):
    """The single folder wrapping a whole class archive ('' if none)."""
    strip = ''
    while True:
        inner = [n[len(strip):] for n in names]
        tops = {n.split('/', 1)[0] for n in inner}
        if len(tops) != 1 or any('/' not in n for n in inner):
            return strip
        top = tops.pop()
        inside = {n[len(top) + 1:].split('/', 1)[0] for n in inner}
        loose = [n for n in inner if n.count('/') == 1 and not n.lower().endswith('.zip')]
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
            if entry.empty and not first.problem:
                pass                                # nothing there: the other part is graded
            elif first.empty and not entry.problem:
                first.files, first.problem, first.empty = entry.files, '', False
            elif entry.problem or first.problem:
                # A refused part refuses the submission; an empty one says less.
                if not first.problem or (first.empty and not entry.empty):
                    first.problem, first.empty = entry.problem, entry.empty
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
