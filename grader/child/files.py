"""The submission's files on their way into the sandbox: one block of bytes, read with builtins.

The parent (:func:`grader.sandbox.bundle.submission_archive`) packs the private copy's
regular files; the runner writes them into its pristine folder before the uid drop.  For
each file, in order::

    4 bytes: the length of its name (big-endian)
    the name: its path relative to the copy, as the file system's bytes, ``/`` between folders
    8 bytes: the length of its content (big-endian)
    the content

Nothing else: no folder entries (a file's folders are made for it), no modes or times (the
runner sets the modes; the project copy keeps the times the runner's files have).  Reading
needs no module: the runner's every fork copies what it holds, and ``zipfile`` (with the
``threading``, ``shutil`` and ``pathlib`` it loads) cost each sandbox's start about 8 ms
of CPU in a process of its own.
"""
import os

NAME_BYTES, SIZE_BYTES = 4, 8


class Unreadable(OSError):
    """The block is not a list of files as :func:`pack` writes it."""


def pack(entries):
    """The block of ``entries``, ``(relative name, content bytes)`` each (a ``str`` name is
    encoded as the file system encodes it)."""
    parts = []
    for name, data in entries:
        name = os.fsencode(name)
        parts += [len(name).to_bytes(NAME_BYTES, 'big'), name,
                  len(data).to_bytes(SIZE_BYTES, 'big'), data]
    return b''.join(parts)


def entries(block):
    """``(name bytes, content memoryview)`` of each file of ``block``; :class:`Unreadable`
    for a block cut short or a name that is not a plain relative path (empty, absolute,
    with an empty, ``.`` or ``..`` part, or a NUL)."""
    view, at = memoryview(block), 0
    while at < len(view):
        if at + NAME_BYTES > len(view):
            raise Unreadable('the submission archive is cut short')
        size = int.from_bytes(view[at:at + NAME_BYTES], 'big')
        name = bytes(view[at + NAME_BYTES:at + NAME_BYTES + size])
        at += NAME_BYTES + size
        parts = name.split(b'/')
        if len(name) != size or b'\0' in name or any(p in (b'', b'.', b'..') for p in parts):
            raise Unreadable(f'the submission archive names a file {name[:80]!r}')
        if at + SIZE_BYTES > len(view):
            raise Unreadable('the submission archive is cut short')
        length = int.from_bytes(view[at:at + SIZE_BYTES], 'big')
        at += SIZE_BYTES
        if at + length > len(view):
            raise Unreadable('the submission archive is cut short')
        yield name, view[at:at + length]
        at += length


def write_into(block, folder, write_all):
    """Write the files of ``block`` under ``folder`` (which exists), each created anew (never
    through a link), its folders made for it; ``write_all(fd, data)`` writes one file's
    content.  :class:`Unreadable` at the first bad entry (the files before it written: the
    sandbox's start fails)."""
    root = os.fsencode(folder)
    for name, data in entries(block):
        path = os.path.join(root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        try:
            write_all(fd, data)
        finally:
            os.close(fd)
