"""Removing a private copy: never recursing on its depth, never raising.

A submission shapes its private copy as it likes: a chain of thousands of
nested folders, names as long as the file system allows, folders without
permissions, many files.  :func:`remove` takes such a tree apart one folder
at a time, with calls relative to an open folder (``openat``, ``unlinkat``),
so neither the depth (a loop, not recursion; one folder open at a time) nor
the length of the path matters, and a symbolic link is removed, never
followed.  It is meant for trees no process changes any more (the children
that wrote them are gone), and checks on the way up that each folder is
still the one it came down through.

It returns what it could not remove, as :class:`Problem` items;
:func:`report` says so in one line naming the place.
"""
import os
import stat
import sys
from dataclasses import dataclass

_DIRECTORY = os.O_RDONLY | getattr(os, 'O_DIRECTORY', 0) | getattr(os, 'O_NOFOLLOW', 0) \
    | getattr(os, 'O_CLOEXEC', 0)


@dataclass
class Problem:
    """Something :func:`remove` left in place: where, and the system's reason."""

    where: str
    reason: str

    def __str__(self):
        return f'{self.where}: {self.reason}'


def _where(root, entered, name=''):
    """A readable path for ``root/entered.../name``, shortened when the tree is deep."""
    parts = list(entered) + ([name] if name else [])
    if len(parts) > 4:
        parts = parts[:2] + [f'... ({len(parts) - 3} levels) ...'] + parts[-1:]
    text = os.path.join(str(root), *parts) if parts else str(root)
    return text if len(text) <= 300 else text[:140] + ' ... ' + text[-140:]


def _reason(error):
    return error.strerror or type(error).__name__


def remove(root):
    """Remove ``root`` (a folder, a file or a link) and all it holds.

    Returns a list of :class:`Problem` (empty when everything is gone, or
    when ``root`` did not exist).  Never raises for anything the file system
    does.
    """
    try:
        return _remove(str(root))
    except (OSError, ValueError) as error:   # e.g. out of descriptors
        return [Problem(str(root), _reason(error) if isinstance(error, OSError) else str(error))]


def _remove(root):
    problems = []
    try:
        mode = os.lstat(root).st_mode
    except FileNotFoundError:
        return problems
    if not stat.S_ISDIR(mode):
        _unlink(None, root, problems, root)
        return problems
    try:
        fd = _open(root, None)
    except FileNotFoundError:
        return problems
    except OSError as error:
        return [Problem(root, _reason(error))]
    entered = []              # folder names from root down to the one ``fd`` holds
    pending = [_empty(fd, root, entered, problems)]   # subfolders still to remove, per level
    seen = [os.fstat(fd)]     # identity of each open level, to check the way back up
    try:
        while True:
            if pending[-1]:
                name = pending[-1].pop()
                try:
                    child = _open(name, fd)
                except FileNotFoundError:   # removed meanwhile (another clean-up)
                    continue
                except OSError as error:
                    problems.append(Problem(_where(root, entered, name), _reason(error)))
                    continue
                os.close(fd)
                fd = child
                entered.append(name)
                seen.append(os.fstat(fd))
                pending.append(_empty(fd, root, entered, problems))
                continue
            if not entered:
                break
            parent = os.open('..', _DIRECTORY & ~getattr(os, 'O_NOFOLLOW', 0), dir_fd=fd)
            os.close(fd)
            fd = parent
            pending.pop()
            seen.pop()
            name = entered.pop()
            here = os.fstat(fd)
            if (here.st_dev, here.st_ino) != (seen[-1].st_dev, seen[-1].st_ino):
                problems.append(Problem(_where(root, entered, name),
                                        'the folder moved while it was removed; stopped'))
                return problems
            _rmdir(name, fd, problems, _where(root, entered, name))
    finally:
        os.close(fd)
    _rmdir(root, None, problems, root)
    return problems


def _open(name, dir_fd):
    """An open folder ``name`` (never through a link); made readable if it was not."""
    try:
        return os.open(name, _DIRECTORY, dir_fd=dir_fd)
    except PermissionError:
        os.chmod(name, 0o700, dir_fd=dir_fd)    # a folder we own, set to 000 by its writer
        return os.open(name, _DIRECTORY, dir_fd=dir_fd)


def _empty(fd, root, entered, problems):
    """Unlink everything but folders in the open folder ``fd``; its subfolders' names."""
    folders = []
    try:
        with os.scandir(fd) as entries:
            for entry in entries:
                try:
                    is_folder = entry.is_dir(follow_symlinks=False)
                except OSError:
                    is_folder = False
                if is_folder:
                    folders.append(entry.name)
                else:
                    _unlink(fd, entry.name, problems, _where(root, entered, entry.name))
    except FileNotFoundError:
        pass
    except OSError as error:
        problems.append(Problem(_where(root, entered), _reason(error)))
    return folders


def _unlink(fd, name, problems, where):
    for attempt in (1, 2):
        try:
            os.unlink(name, dir_fd=fd)
            return
        except FileNotFoundError:
            return
        except PermissionError as error:
            if attempt == 2 or fd is None or not _writable(fd):
                problems.append(Problem(where, _reason(error)))
                return
        except OSError as error:
            problems.append(Problem(where, _reason(error)))
            return


def _rmdir(name, fd, problems, where):
    for attempt in (1, 2):
        try:
            os.rmdir(name, dir_fd=fd)
            return
        except FileNotFoundError:
            return
        except PermissionError as error:
            if attempt == 2 or fd is None or not _writable(fd):
                problems.append(Problem(where, _reason(error)))
                return
        except OSError as error:
            problems.append(Problem(where, _reason(error)))
            return


def _writable(fd):
    """Give the open folder ``fd`` back its owner's write permission; True if that was done."""
    try:
        os.fchmod(fd, 0o700)
        return True
    except OSError:
        return False


def report(problems, what='the private copy', stream=None):
    """Say in one line what :func:`remove` could not remove (nothing when all went)."""
    if not problems:
        return
    more = f' (and {len(problems) - 1} more)' if len(problems) > 1 else ''
    print(f'grader: note: could not remove all of {what}: {problems[0]}{more}',
          file=stream or sys.stderr)


def remove_and_report(root, what='the private copy'):
    """:func:`remove`, then :func:`report`; True when nothing is left."""
    problems = remove(root)
    report(problems, what)
    return not problems
