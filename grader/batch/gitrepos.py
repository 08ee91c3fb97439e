"""Submissions from git repositories (GitHub Classroom, or any list of clones).

The source is a text file with one repository per line: a URL or a path to
a local repository (bare or not; relative paths are read from the list's
folder), optionally followed by the student id and the student's name::

    # tictactoe, spring term
    https://github.com/course-org/tictactoe-alice
    https://github.com/course-org/tictactoe-bob   012345  Bob Builder
    ../clones/carol.git

Each repository is cloned (committed content only, symbolic links checked
out as plain files) into the output folder's ``repos/``; the time of the
last commit is the submission time.  Without a student id the repository
name is used, with GitHub Classroom's common ``<assignment>-`` prefix
removed.  A failed clone is an entry with the reason, never dropped.
"""
import os
import shlex
import shutil
import subprocess
from pathlib import Path

from grader.batch import archives, identity
from grader.batch.archives import Refused
from grader.batch.entry import Entry
from grader.errors import UserError

CLONE_SECONDS = 300


def parse_list(path):
    """``[(location, student id or '', name or '', line number)]`` from a repository list."""
    try:
        text = Path(path).read_text(encoding='utf-8')
    except (OSError, UnicodeDecodeError) as error:
        raise UserError(f'cannot read the repository list: {error}', path) from None
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        try:
            words = shlex.split(line)
        except ValueError as error:
            raise UserError(f'{error}', path, number) from None
        location = words[0]
        if '://' not in location and not location.startswith('git@'):
            local = (Path(path).parent / location).resolve()
            if not local.exists():
                raise UserError(f'{location}: no such repository (neither a URL nor a path)',
                                path, number)
            location = str(local)
        rows.append((location, words[1] if len(words) > 1 else '',
                     ' '.join(words[2:]), number))
    return rows


def repo_name(location):
    name = location.rstrip('/').rsplit('/', 1)[-1].rsplit(':', 1)[-1]
    return name[:-4] if name.endswith('.git') else name


def _git(*args, cwd=None, timeout=CLONE_SECONDS):
    env = dict(os.environ, GIT_TERMINAL_PROMPT='0', GIT_ASKPASS='true', LC_ALL='C')
    return subprocess.run(['git', *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def clone(location, target, refresh=True):
    """Clone ``location`` into ``target`` (reused when it is there and not ``refresh``)."""
    target = Path(target)
    if target.is_dir() and not refresh and _git('rev-parse', 'HEAD', cwd=target).returncode == 0:
        return target
    shutil.rmtree(target, ignore_errors=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    depth = ['--depth', '1'] if '://' in location or location.startswith('git@') else []
    try:
        done = _git('clone', '--quiet', '--no-hardlinks', *depth, '-c', 'core.symlinks=false',
                    '--', location, str(target))
    except subprocess.TimeoutExpired:
        raise Refused(f'git clone did not finish within {CLONE_SECONDS} s') from None
    except FileNotFoundError:
        raise UserError('git is not installed (needed for a list of repositories)') from None
    if done.returncode != 0:
        lines = [ln for ln in done.stderr.strip().splitlines() if ln.strip()]
        raise Refused('git clone failed: ' + (lines[-1] if lines else f'status {done.returncode}'))
    if _git('rev-parse', 'HEAD', cwd=target).returncode != 0:
        raise Refused('the repository has no commits')
    return target


def last_commit(target):
    """``(commit id, ISO committer time)`` of HEAD."""
    done = _git('log', '-1', '--format=%H %cI', cwd=target)
    commit, _, when = done.stdout.strip().partition(' ')
    return commit, when


def scan(path, limits, clones, refresh=True):
    """Entries for every repository of the list at ``path``, cloned under ``clones``."""
    rows = parse_list(path)
    users = identity.classroom_users([repo_name(loc) for loc, *_ in rows])
    entries = []
    for (location, student, name, _), user in zip(rows, users):
        student = student or user
        who = identity.Identity(key=identity.safe_key(student), student_id=student, name=name,
                                origin=location)
        try:
            target = clone(location, Path(clones) / who.key, refresh)
            commit, when = last_commit(target)
            who.submitted_at = identity.iso_time(when)
            who.origin = f'{location}@{commit[:12]}'
            entries.append(Entry(who, files=archives.read_folder(target, limits)))
        except Refused as error:
            entries.append(Entry(who, problem=str(error)))
    return entries
