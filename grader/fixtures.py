"""Fixture files: loading, validation, digests, regeneration and verification.

A fixture file holds cases: inputs written by an instructor (or a seeded
generator) and ``expected`` blocks GENERATED from the reference by
``grader fixtures --regenerate``.  ``grader fixtures --verify`` recomputes
every expected block and reports any case whose file disagrees.  Grading
reads expected values from the files only; it never needs ``reference/``.
"""
import hashlib
import importlib
import json
import sys
from pathlib import Path

from grader import exercises, yamlio
from grader.errors import UserError

HEADER = ('# {exercise} fixture cases.\n'
          '# "input" blocks are written by hand or by the oracle\'s default_cases();\n'
          '# "expected" blocks are GENERATED from {oracle} by\n'
          '#   grader fixtures --regenerate\n'
          '# and checked by `grader fixtures --verify` (run in the test suite). '
          'Do not edit them by hand.\n')


def schema_name(exercise):
    """The fixture schema of ``exercise``: the plug-in's ``fixtures.schema.json`` (a path)."""
    return exercises.get(exercise).fixture_schema


def schema_for(exercise):
    return json.loads(Path(schema_name(exercise)).read_text(encoding='utf-8'))


def read(path, exercise, require_expected=True):
    """Validate one fixture file: ``(data, locator)``.

    The YAML parse and schema validation of an unchanged file come from
    the document cache (:func:`grader.yamlio.load_valid`); the checks
    below run on every read.
    """
    data, where = yamlio.load_valid(path, schema_name(exercise))
    if data.get('exercise') != exercise:
        raise UserError(f"exercise: this file is for {data.get('exercise')!r}, "
                        f'but it is listed under {exercise!r}', path, where.line(['exercise']))
    seen = set()
    for i, case in enumerate(data['cases']):
        if case['name'] in seen:
            raise UserError(f"cases[{i}].name: duplicate case name {case['name']!r}",
                            path, where.line(['cases', i, 'name']))
        seen.add(case['name'])
        if require_expected and not case.get('expected'):
            raise UserError(f"cases[{i}] ({case['name']}): no expected answers; run "
                            '`grader fixtures --regenerate`', path, where.line(['cases', i]))
    return data, where


def load_cases(plugin, settings):
    """All cases of an exercise: public files, then hidden files that exist.

    Returns ``(cases, files_used, hidden_used)``.
    """
    cases, used, hidden_used = [], {}, False
    for path in settings.fixtures:
        data, _ = read(path, plugin.name)
        used[path] = data
        cases += [plugin.case_from_fixture(c, path, hidden=False) for c in data['cases']]
    for path in settings.hidden_fixtures:
        if Path(path).is_file():
            data, _ = read(path, plugin.name)
            used[path] = data
            hidden_used = True
            cases += [plugin.case_from_fixture(c, path, hidden=True) for c in data['cases']]
    return cases, used, hidden_used


def digest(files):
    """``sha256:...`` over the parsed content of fixture files.

    ``files`` maps each path to its parsed data (as :func:`load_cases`
    returns it), or is a list of paths to read.  Comments and layout do not
    change the digest; any change of a case does.
    """
    if not isinstance(files, dict):
        files = {p: yamlio.load(p)[0] for p in files}
    h = hashlib.sha256()
    for path in sorted(files, key=str):
        h.update(Path(path).name.encode())
        h.update(json.dumps(files[path], sort_keys=True, separators=(',', ':')).encode())
    return 'sha256:' + h.hexdigest()


def oracle(policy, exercise):
    """Import ``reference/oracles/<exercise>.py`` from the policy's reference folder."""
    folder = Path(policy.reference)
    if not (folder / 'oracles' / f'{exercise}.py').is_file():
        oracle = folder / 'oracles' / f'{exercise}.py'
        raise UserError(f'no oracle for {exercise}: expected {oracle}',
                        policy.path)
    parent = str(folder.resolve().parent)
    if parent not in sys.path:
        sys.path.insert(0, parent)
    return importlib.import_module(f'{folder.name}.oracles.{exercise}')


def leading_comments(path):
    """The comment lines a fixture file starts with ('' when none or no file)."""
    try:
        lines = Path(path).read_text(encoding='utf-8').splitlines(keepends=True)
    except (OSError, UnicodeDecodeError):
        return ''
    kept = []
    for line in lines:
        if not line.startswith('#'):
            break
        kept.append(line)
    return ''.join(kept)


def dump(path, exercise, oracle_name, cases):
    """Write ``cases`` to ``path``, keeping the file's own leading comments if it has any."""
    import yaml  # yaml is slow to import and only writing fixtures needs it here
    text = leading_comments(path) or HEADER.format(exercise=exercise, oracle=oracle_name)
    text += yaml.safe_dump({'exercise': exercise, 'cases': cases}, sort_keys=False,
                           width=1000, allow_unicode=True, default_flow_style=None)
    tmp = Path(str(path) + '.tmp')
    tmp.write_text(text, encoding='utf-8')
    tmp.replace(path)


def regenerate(policy, exercise, paths=None, create=False):
    """Recompute the expected blocks of ``exercise``'s fixture files.

    With ``create`` a missing file is made from the oracle's ``default_cases``.
    Returns ``{path: number of cases}``.
    """
    settings = policy.exercises[exercise]
    module = oracle(policy, exercise)
    options = settings.options
    written = {}
    for path in paths or [*settings.fixtures, *[p for p in settings.hidden_fixtures
                                               if Path(p).is_file()]]:
        path = Path(path)
        if path.is_file():
            data, _ = read(path, exercise, require_expected=False)
            cases = data['cases']
        elif create:
            cases = module.default_cases(options)
        else:
            raise UserError('fixture file not found (use --create to make it from the oracle)',
                            path)
        out = []
        for case in cases:
            case = {k: v for k, v in case.items() if k != 'expected'}
            case['expected'] = module.expect(case['input'], options)
            out.append(case)
        path.parent.mkdir(parents=True, exist_ok=True)
        dump(path, exercise, f'{Path(policy.reference).name}/oracles/{exercise}.py', out)
        read(path, exercise)
        written[path] = len(out)
    return written


def verify(policy, exercise):
    """Cases whose stored expected block differs from the oracle's: a list of lines."""
    settings = policy.exercises[exercise]
    module = oracle(policy, exercise)
    problems = []
    for path in [*settings.fixtures, *[p for p in settings.hidden_fixtures if Path(p).is_file()]]:
        data, where = read(path, exercise)
        for i, case in enumerate(data['cases']):
            fresh = module.expect(case['input'], settings.options)
            if fresh != case['expected']:
                keys = sorted(k for k in set(fresh) | set(case['expected'])
                              if fresh.get(k) != case['expected'].get(k))
                problems.append(f"{path}:{where.line(['cases', i])}: case {case['name']}: "
                                f"expected {', '.join(keys)} differ from the reference")
    return problems
