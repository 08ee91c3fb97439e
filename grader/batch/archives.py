"""Reading submissions into memory safely, and packing them for shipping.

A submission travels through the batch as a *file map*: ``{relative posix
path: bytes}``.  It is read from a folder or a zip archive under
:class:`Limits`, never trusting the archive:

- an entry with an absolute path or a ``..`` component refuses the archive
  (it would write outside the folder it is unpacked into); in a class
  archive (:func:`list_zip`), only the submission it belongs to;
- symbolic links are skipped, in folders and in archives, never followed; a
  submission that holds nothing else is refused (:data:`ONLY_LINKS`);
- a submission with more files or more bytes than the limits is refused
  (against zip bombs); sizes are counted on the bytes actually inflated, not
  on what the archive's headers claim;
- unreadable, encrypted or truncated archives are refused with a sentence
  saying so.

Clutter that is never part of a solution (``__MACOSX``, ``.git``,
``__pycache__``, ``.DS_Store``...) is left out, so that the content hash of
an unchanged resubmission stays the same.  :func:`pack` writes a file map as
a deterministic zip (sorted names, fixed dates): the bytes stored in the
gradebook and shipped to a worker, where :func:`unpack` writes them out.
"""
import hashlib
import io
import os
import re
import stat
import unicodedata
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from grader import submission

JUNK = frozenset({'__MACOSX', '.DS_Store', 'Thumbs.db', 'desktop.ini', '.git', '.hg', '.svn',
                  '__pycache__', '.venv', 'venv', 'node_modules', '.idea', '.vscode',
                  '.ipynb_checkpoints', '.pytest_cache', '.mypy_cache'})
"""File and folder names left out of every submission."""

_FIXED_DATE = (1980, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class Limits:
    """The most one submission may hold once unpacked."""

    max_bytes: int = 50 * 1024 * 1024
    max_files: int = 2000
    max_depth: int = 2
    """Archives inside archives unpacked: the class archive, then one level of
    student zips; a zip found deeper stays a file."""

    @property
    def megabytes(self):
        return self.max_bytes / (1024 * 1024)


class Refused(Exception):
    """A submission that cannot be read; ``str()`` is the reason, for the instructor."""


ONLY_LINKS = 'only links, skipped'
"""The reason given for a submission that is, or holds nothing but, symbolic links."""
OUTSIDE = 'entry outside the archive, refused'
"""The reason given for a submission with an entry that would land outside the archive."""


def is_junk(path):
    return any(part in JUNK for part in PurePosixPath(path).parts)


def safe_name(name):
    """``name`` as a clean relative posix path, or :class:`Refused`."""
    text = name.replace('\\', '/')
    if text.startswith('/') or re.match(r'^[A-Za-z]:', text):
        raise Refused(f'the archive entry {name!r} is an absolute path: {OUTSIDE}')
    parts = [p for p in text.split('/') if p not in ('', '.')]
    if '..' in parts:
        raise Refused(f'the archive entry {name!r} points outside the archive: {OUTSIDE}')
    return '/'.join(parts)


def inside_part(name):
    """The clean folders of an entry's name before it leaves the archive (``a/b`` for
    ``a/b/../../x``); '' for an absolute path, or one that leaves at once."""
    text = name.replace('\\', '/')
    if text.startswith('/') or re.match(r'^[A-Za-z]:', text):
        return ''
    parts = [p for p in text.split('/') if p not in ('', '.')]
    return '/'.join(parts[:parts.index('..')] if '..' in parts else parts)


def is_symlink(info):
    return stat.S_ISLNK(info.external_attr >> 16)


class _Budget:
    """Counts files and bytes against the limits of one submission."""

    def __init__(self, limits):
        self.limits = limits
        self.files = 0
        self.bytes = 0

    def add_file(self):
        self.files += 1
        if self.files > self.limits.max_files:
            raise Refused(f'more than {self.limits.max_files} files; refused (zip bomb?)')

    @property
    def room(self):
        return self.limits.max_bytes - self.bytes

    def add_bytes(self, count):
        self.bytes += count
        if self.bytes > self.limits.max_bytes:
            raise Refused(f'larger than {self.limits.megabytes:g} MB unpacked; refused (zip bomb?)')


def open_zip(source):
    """A :class:`zipfile.ZipFile` on a path or bytes, or :class:`Refused`."""
    try:
        return zipfile.ZipFile(io.BytesIO(source) if isinstance(source, bytes) else source)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as error:
        raise Refused(f'not a readable zip archive ({error})') from None


UTF8_FLAG = 0x800
"""General-purpose bit 11: the entry's name is UTF-8 (else the legacy code page, cp437)."""


def member_name(info):
    """The name of a zip entry as its writer meant it.

    Names flagged UTF-8 are UTF-8; others are in the legacy code page, cp437,
    which is how :mod:`zipfile` reads them.  Many tools write UTF-8 names
    without setting the flag (accented names then read as ``Ã…sa``): an
    unflagged name whose bytes are valid UTF-8 is read as UTF-8, since cp437
    text with accents almost never is.  Names are NFC-normalised (macOS
    writes decomposed accents).
    """
    name = info.orig_filename
    if not info.flag_bits & UTF8_FLAG:
        raw = name.encode('cp437')
        try:
            name = raw.decode('utf-8')
        except UnicodeDecodeError:
            pass
    return unicodedata.normalize('NFC', name)


@dataclass
class Listing:
    """Every entry of a zip archive, sorted by what a reader does with it."""

    members: list
    """``[(clean name, info)]``: the regular files, clutter left out."""
    links: list
    """Clean names of the symbolic links (skipped, never followed)."""
    folders: list
    """Clean names of the folder entries."""
    refused: list
    """``[(name as written, reason)]``: entries that would land outside the archive."""


def list_zip(archive):
    """The :class:`Listing` of an open zip archive; never raises for an entry."""
    listing = Listing([], [], [], [])
    for info in archive.infolist():
        written = member_name(info)
        try:
            name = safe_name(written)
        except Refused as error:
            listing.refused.append((written, str(error)))
            continue
        if not name or is_junk(name):
            continue
        if is_symlink(info):
            listing.links.append(name)
        elif info.is_dir():
            listing.folders.append(name)
        else:
            listing.members.append((name, info))
    return listing


def read_members(archive, members, limits, budget=None, strip=''):
    """The file map of ``members`` (from :func:`list_zip`), ``strip`` removed from names."""
    budget = budget or _Budget(limits)
    files = {}
    for name, info in members:
        if strip:
            name = name[len(strip):]
        if name in files:
            continue
        budget.add_file()
        if info.file_size > budget.room:
            budget.add_bytes(info.file_size)
        try:
            with archive.open(info) as stream:
                data = stream.read(budget.room + 1)
        except RuntimeError as error:          # encrypted
            raise Refused(f'{member_name(info)}: {error}') from None
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError) as error:
            raise Refused(f'{member_name(info)}: damaged archive entry ({error})') from None
        budget.add_bytes(len(data))
        files[name] = data
    return files


def read_zip(source, limits, links=None):
    """The file map of a whole zip archive (path or bytes).

    The names of the links skipped are added to the list ``links`` when one
    is given.
    """
    with open_zip(source) as archive:
        listing = list_zip(archive)
        if listing.refused:
            raise Refused(listing.refused[0][1])
        if links is not None:
            links += listing.links
        return read_members(archive, listing.members, limits)


def read_folder(folder, limits, links=None):
    """The file map of a folder on disk; symbolic links are skipped, never followed.

    The relative names of the links skipped are added to the list ``links``
    when one is given.
    """
    folder = Path(folder)
    budget = _Budget(limits)
    files = {}
    for root, dirs, names in os.walk(folder, followlinks=False):
        if links is not None:
            links += [Path(root, d).relative_to(folder).as_posix() for d in dirs
                      if d not in JUNK and os.path.islink(os.path.join(root, d))]
        dirs[:] = sorted(d for d in dirs
                         if d not in JUNK and not os.path.islink(os.path.join(root, d)))
        for name in sorted(names):
            path = os.path.join(root, name)
            if name not in JUNK and os.path.islink(path) and links is not None:
                links.append(Path(path).relative_to(folder).as_posix())
            if name in JUNK or os.path.islink(path) or not os.path.isfile(path):
                continue
            budget.add_file()
            relative = Path(path).relative_to(folder).as_posix()
            try:
                budget.add_bytes(os.path.getsize(path))
                files[relative] = Path(path).read_bytes()
            except OSError as error:   # the sentence every route gives (grader.submission)
                raise Refused(submission.unreadable(relative, error)) from None
    return files


def normalise(files, limits, depth=1, links=None):
    """Unpack the zips a student uploaded and drop wrapper folders.

    A zip inside the submission is unpacked where it lies (its own files win
    over nothing: a loose file of the same name is kept) while the nesting
    depth allows.  Then, while everything sits in one folder other than
    ``src`` (``project/tictactoe.py``), that folder is removed from the
    names, so that exercise files are found at the top or under ``src/``.
    The links skipped in the zips are added to the list ``links`` (when given).
    """
    out = {}
    budget = _Budget(limits)
    for name in sorted(files):
        data = files[name]
        if name.lower().endswith('.zip') and depth < limits.max_depth:
            folder = str(PurePosixPath(name).parent)
            prefix = '' if folder == '.' else folder + '/'
            skipped = []
            try:
                inner = read_zip(data, limits, skipped)
            except Refused as error:
                raise Refused(f'{name}: {error}') from None
            if links is not None:
                links += [f'{name}:{link}' for link in skipped]
            for inner_name, inner_data in normalise(inner, limits, depth + 1, links).items():
                target = prefix + inner_name
                if target not in files and target not in out:
                    budget.add_file()
                    budget.add_bytes(len(inner_data))
                    out[target] = inner_data
            continue
        budget.add_file()
        budget.add_bytes(len(data))
        out[name] = data
    return unwrap(out)


def unwrap(files):
    """Remove single wrapper folders (never ``src``) from the names."""
    while files:
        tops = {name.split('/', 1)[0] for name in files}
        if len(tops) != 1 or any('/' not in name for name in files):
            break
        top = tops.pop()
        if top == 'src':
            break
        files = {name[len(top) + 1:]: data for name, data in files.items()}
    return files


def content_hash(files):
    """``sha256:...`` over the names and bytes of a file map (order-free)."""
    digest = hashlib.sha256()
    for name in sorted(files):
        data = files[name]
        digest.update(f'{name}\0{len(data)}\0'.encode())
        digest.update(data)
    return 'sha256:' + digest.hexdigest()


def pack(files):
    """A deterministic zip of a file map: same files, same bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, 'w', zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=_FIXED_DATE)
            info.external_attr = (stat.S_IFREG | 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, files[name])
    return buffer.getvalue()


def unpack(blob, folder, limits=Limits()):
    """Write the files of a packed submission under ``folder`` (checked again)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in read_zip(blob, limits).items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return folder
