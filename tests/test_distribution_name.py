"""The grader's distribution has a name of its own: `grader` on the package index is an
unrelated project, with a `grader` command of its own.  The import package and the
command stay `grader`; no document, script or message tells anyone to install `grader`.
"""
import os
import re
import sys
from pathlib import Path

from gradertest import ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:                                   # Python 3.9-3.10: the same file, read as text
    tomllib = None

NAME = 'search-grader'
TEXT = {'.md', '.py', '.yml', '.yaml', '.toml', '.sh', '.txt', '.cfg', '.ini', '.json'}
SKIPPED = {'.git', '.venv', '.matrix', 'build', '__pycache__', 'node_modules',
           '.pytest_cache'}
INSTALL = re.compile(r'\b(?:pip3?|uv pip|pipx) install\b([^\n#]*)')
SELF = re.compile(r'^grader(\[[^\]]*\])?(?:[<>=!~;@ ].*)?$')
EXTRA = re.compile(r'(?<![\w./$}-])grader\[')


def texts():
    """``(relative path, text)`` of every text file of the project (never .venv, .git, the
    matrix's environments, build output ...)."""
    for folder, dirs, names in os.walk(ROOT):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED and not d.endswith('.egg-info')
                         and not (Path(folder, d) / 'pyvenv.cfg').exists())
        for name in sorted(names):
            path = Path(folder, name)
            if (path.suffix in TEXT or name in ('Makefile', 'Dockerfile', 'run_autograder')) \
                    and name != 'test_distribution_name.py':
                yield path.relative_to(ROOT), path.read_text(encoding='utf-8', errors='replace')


def test_the_distribution_is_named_search_grader_and_the_command_grader():
    text = (ROOT / 'pyproject.toml').read_text()
    if tomllib is not None:
        project = tomllib.loads(text)['project']
        assert project['name'] == NAME
        assert project['scripts'] == {'grader': 'grader.cli:main'}
        assert project['optional-dependencies']['all'] == [
            f'{NAME}[sandbox,batch,test,select,wheels]']
    else:
        assert f'name = "{NAME}"' in text and f'all = ["{NAME}[' in text


def test_nothing_tells_anyone_to_install_the_other_grader():
    found = []
    for relative, text in texts():
        for number, line in enumerate(text.splitlines(), 1):
            for command in INSTALL.finditer(line):
                for word in command.group(1).split():
                    if SELF.match(word.strip('\'"`')):
                        found.append(f'{relative}:{number}: {line.strip()}')
            if EXTRA.search(line):
                found.append(f'{relative}:{number}: {line.strip()}')
    assert not found, '\n'.join(found)


def test_the_check_would_catch_it():
    for line in ("pip install 'grader[batch]'", 'python -m pip install grader',
                 'pip install "grader[sandbox]"', 'extra: grader[batch]'):
        caught = any(SELF.match(w.strip('\'"`')) for m in INSTALL.finditer(line)
                     for w in m.group(1).split()) or EXTRA.search(line)
        assert caught, line
    for line in ("pip install './grader[batch]'", 'pip install "$SOURCE[sandbox]"',
                 f"pip install '{NAME}[batch]'", "pip install '.[batch]'"):
        caught = any(SELF.match(w.strip('\'"`')) for m in INSTALL.finditer(line)
                     for w in m.group(1).split()) or EXTRA.search(line)
        assert not caught, line
