"""The student distribution: the grader with the public course files only.

``grader dist OUT`` writes a folder that students (or their CI) install and
run ``grader check`` from: the ``grader`` package, ``pyproject.toml`` and
``setup.py`` (which builds the C search counter), ``grading.yaml``, the
plug-ins it mounts from the course's folders, the public fixture files and the
data files the policy names, and ``student_template/``.
Its ``README.md`` is the students' one (``student_template/README.grader.md``),
not the instructor's.  It never contains ``reference/`` or any hidden fixture
file; :func:`build` refuses to write one that would.
"""
import shutil
from pathlib import Path

from grader.errors import UserError

STUDENT_README = Path('student_template') / 'README.grader.md'
"""The README.md of the distribution: written for students."""
SKIP = shutil.ignore_patterns('__pycache__', '*.pyc', '*.so', '*.egg-info', '.pytest_cache')
"""Never copied: bytecode and extensions built here (an install builds its own), caches."""


def public_files(policy):
    """Paths (relative to the policy root) that the distribution needs."""
    root = policy.root
    wanted = [Path('pyproject.toml'), Path('setup.py'), Path(policy.path.name), Path('grader'),
              Path('student_template')]
    for settings in policy.exercises.values():
        if settings.plugin and Path(settings.plugin).resolve().is_relative_to(root):
            wanted.append(Path(settings.plugin).resolve().relative_to(root))
        for path in settings.fixtures:
            wanted.append(Path(path).resolve().relative_to(root))
        for key, value in settings.options.items():
            if (key.endswith('_file') or key.endswith('_dir')) and isinstance(value, str):
                path = Path(value)
                if path.is_relative_to(root):
                    wanted.append(path.relative_to(root))
    return sorted(set(wanted))


def build(policy, out):
    """Write the distribution into ``out`` (a new or empty folder): the file list."""
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        raise UserError('the output folder is not empty; give a new folder', out)
    secret = [Path(policy.reference).resolve()]
    secret += [Path(p).resolve() for s in policy.exercises.values() for p in s.hidden_fixtures]
    written = []
    for relative in public_files(policy):
        source = policy.root / relative
        if not source.exists():
            continue
        resolved = source.resolve()
        if any(resolved == s or resolved.is_relative_to(s) or s.is_relative_to(resolved)
               for s in secret):
            raise UserError(f'{relative} would put instructor-only files in the student '
                            'distribution', policy.path)
        target = out / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=SKIP, dirs_exist_ok=True)
        else:
            shutil.copy2(source, target)
        written.append(str(relative))
    out.mkdir(parents=True, exist_ok=True)
    student_readme = policy.root / STUDENT_README
    text = (student_readme.read_text(encoding='utf-8') if student_readme.is_file()
            else '# The course grader\n\nRun `grader check` in the folder of your work.\n')
    (out / 'README.md').write_text(text, encoding='utf-8')
    written.append('README.md')
    return written
