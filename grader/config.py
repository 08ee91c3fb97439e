"""Loading and validating ``grading.yaml``, the course policy.

The file is validated against ``schemas/grading.schema.json`` and then for
meaning (known exercises and checks, assignments naming configured
exercises).  Every error is a :class:`grader.errors.UserError` naming the
file, the line and the key path.
"""
import os
from dataclasses import dataclass, field
from pathlib import Path

from grader import exercises as plugins
from grader import scoring, yamlio
from grader.errors import UserError
from grader.exercises import facts as exercise_facts
from grader.sandbox.session import SandboxSettings

CONFIG_NAME = 'grading.yaml'


@dataclass
class CheckSettings:
    name: str
    points: float
    partial_credit: str
    visibility: str = 'visible'
    params: dict = field(default_factory=dict)
    hidden_visibility: str = 'after_published'
    """When students see the part of this check graded on hidden cases."""


@dataclass
class ExerciseSettings:
    """One exercise's settings, with paths resolved against the policy root."""

    name: str
    title: str
    files: tuple
    fixtures: tuple
    hidden_fixtures: tuple
    options: dict
    checks: dict
    factors: dict
    min_seconds: float
    own_worker: tuple = ()
    """Limit keys whose cases each get a sandboxed worker of their own."""
    main_lanes: int = 1
    """The other cases are dealt in turn to this many lanes (see :class:`grader.engine.Hangs`)."""
    hidden_last: bool = False
    """With one main lane: its hidden and drawn cases run as a main lane of their own,
    handed out after every other lane (see :class:`grader.engine.ExercisePlan`)."""
    generated: dict = field(default_factory=dict)
    """``count`` positions drawn at grading time for the official grade, and the
    options the oracle's ``generate`` reads."""
    stop_after_timeouts: int = 3
    """After this many cases in a row time out, the exercise's other cases are not run
    (0: never)."""
    plugin: str = ''
    """The folder of a plug-in mounted from the course (``plugin:``); '' for the grader's own."""

    def check_param(self, check, key, default=None):
        settings = self.checks.get(check)
        return settings.params.get(key, default) if settings else default

    def points(self, check):
        settings = self.checks.get(check)
        return settings.points if settings else 0.0

    def factor(self, key):
        """The calibration units a call of limit ``key`` may use (``default`` when unnamed)."""
        return self.factors.get(key, self.factors['default'])

    def limit(self, key, unit):
        """Seconds allowed for one call: factor(key) x calibration unit."""
        return max(self.min_seconds, self.factor(key) * unit)

    def import_limit(self, unit):
        """CPU seconds the module may spend being imported: factor ``import`` x unit.

        Without an ``import`` factor, :data:`IMPORT_FACTOR` units (with
        ``min_seconds`` as the floor, as for every limit).
        """
        return max(self.min_seconds, self.factors.get('import', IMPORT_FACTOR) * unit)

    @property
    def max_score(self):
        return sum(c.points for c in self.checks.values())


IMPORT_FACTOR = 10
"""Calibration units a module may spend at import when grading.yaml names no ``import`` factor."""


@dataclass
class Requirement:
    together: tuple
    fact: str
    at_least: int = 1
    explain: str = ''


@dataclass
class Assignment:
    name: str
    title: str
    exercises: tuple
    count: int
    max_score: float
    requirements: list
    late_penalty: dict = None


@dataclass
class Policy:
    path: Path
    root: Path
    reference: Path
    exercises: dict
    assignments: dict
    sandbox: SandboxSettings
    load_seconds: float
    require: str
    calibration_repeats: int
    course: str = ''
    """The course's name: part of the seed of the positions drawn for each submission."""
    similarity: dict = None
    """``similarity`` of grading.yaml (``known`` and ``template`` as paths), or None."""

    def assignment_for(self, exercise_names):
        """The assignment that contains all of ``exercise_names`` (first wins)."""
        for assignment in self.assignments.values():
            if set(exercise_names) <= set(assignment.exercises):
                return assignment
        return None


def find(explicit=None, start=None, graded=None):
    """Locate grading.yaml: ``--config``, $GRADER_CONFIG, upward from cwd, the checkout.

    The upward search passes over ``graded``, the folder being graded, and
    every folder inside it: a submission's own grading.yaml (which could
    expect whatever its code returns) is never taken as the policy.  See
    :func:`ignored` for saying so.
    """
    if explicit:
        return Path(explicit)
    if os.environ.get('GRADER_CONFIG'):
        return Path(os.environ['GRADER_CONFIG'])
    here = Path(start or Path.cwd()).resolve()
    skipped = Path(graded).resolve() if graded is not None else None
    for folder in (here, *here.parents):
        if skipped is not None and (folder == skipped or skipped in folder.parents):
            continue
        if (folder / CONFIG_NAME).is_file():
            return folder / CONFIG_NAME
    bundled = Path(__file__).resolve().parents[1] / CONFIG_NAME
    if bundled.is_file():
        return bundled
    raise UserError(f'no {CONFIG_NAME} found here or above; pass --config PATH')


def ignored(graded, used):
    """The grading.yaml of the folder being graded when it is not the policy ``used``, else None.

    The command line says so in one line: a student who put one there sees
    that it changes nothing.
    """
    if graded is None:
        return None
    own = Path(graded) / CONFIG_NAME
    try:
        if own.is_file() and own.resolve() != Path(used).resolve():
            return own
    except OSError:
        pass
    return None


def ignored_note(graded, used):
    """The one-line note for :func:`ignored`, or '' when there is nothing to say."""
    own = ignored(graded, used)
    if own is None:
        return ''
    return (f'{own} is ignored: the policy never comes from the folder being graded '
            f'(using {used}; --config chooses another)')


def read(path=None, graded=None):
    """The policy document at ``path`` (see :func:`find`), schema-checked: ``(path, data, where)``.

    Parsed and validated once per content of the file (see :mod:`grader.doccache`).
    """
    path = find(path, graded=graded)

    def mapping(data):
        if not isinstance(data, dict):
            raise UserError('the policy must be a mapping with version, exercises and assignments',
                            path, 1)

    data, where = yamlio.load_valid(path, 'grading.schema.json', check=mapping)
    return path, data, where


def sandbox_settings(data):
    """The :class:`SandboxSettings` of a policy document (``sandbox:``)."""
    box = data.get('sandbox', {})
    return SandboxSettings(**{k: box[k] for k in
                              ('memory_mb', 'file_mb', 'open_files', 'output_kb', 'processes',
                               'disk_mb', 'max_copy_mb')
                              if k in box})


def load(path=None, document=None, graded=None):
    """Read and validate the policy at ``path`` (see :func:`find`; ``graded`` is the folder
    being graded, if any), or a ``document`` of :func:`read`.

    Checks what the schema cannot: exercise and check names against the
    plug-ins, assignments against the exercises configured.
    """

    document = document or read(path, graded=graded)
    path, data, where = document
    root = path.resolve().parent
    check_mounted(mount_plugins(document), document)
    registry = plugins.registry()
    marks = data.get('scoring', {})
    defaults = (marks.get('partial_credit', 'proportional'),
                marks.get('hidden_visibility', 'after_published'))

    exercises = {}
    for name, raw in data['exercises'].items():
        if name not in registry:
            known = ', '.join(sorted(registry))
            raise UserError(f'exercises.{name}: unknown exercise (known: {known})',
                            path, where.line(['exercises', name]))
        exercises[name] = _exercise(name, raw, registry[name], root, defaults, (path, where))
    assignments = {name: _assignment(name, raw, exercises, registry, (path, where))
                   for name, raw in data['assignments'].items()}

    box = data.get('sandbox', {})
    return Policy(path=path, root=root, reference=root / data.get('reference', 'reference'),
                  exercises=exercises, assignments=assignments, sandbox=sandbox_settings(data),
                  load_seconds=float(box.get('load_seconds', 5.0)),
                  require=box.get('require', 'advisory'),
                  calibration_repeats=data.get('calibration', {}).get('repeats', 3),
                  course=str(data.get('course', root.name)),
                  similarity=_similarity(data.get('similarity'), root, (path, where)))


def mount_plugins(document):
    """Mount the plug-ins a policy document of :func:`read` names by folder
    (``exercises.<name>.plugin``), each as ``grader.exercises.<folder name>``
    (:func:`grader.exercises.mount`); :func:`load` does it first, the command line
    before its first child starts (the child's archive then holds their probes).
    Returns ``{exercise name: package name}``."""
    path, data, where = document
    root = path.resolve().parent
    mounted = {}
    for name, raw in data['exercises'].items():
        if 'plugin' in raw:
            try:
                mounted[name] = plugins.mount(root / raw['plugin'])
            except UserError as error:
                raise UserError(f'exercises.{name}.plugin: {error.message}', path,
                                where.line(['exercises', name, 'plugin'])) from None
    return mounted


def check_mounted(mounted, document):
    """Each plug-in mounted for an exercise declares that exercise (its name is the key)."""
    path, _, where = document
    for name, package in mounted.items():
        declared = plugins.exercise_in(package)
        if declared is None or declared.name != name:
            raise UserError(f'exercises.{name}.plugin: the package {package} declares '
                            + (f'the exercise {declared.name!r}' if declared else
                               'no EXERCISE in judge.py') + f', not {name!r}', path,
                            where.line(['exercises', name, 'plugin']))


def check_rule_fact(registry, req, keys, path, where):
    """A course rule must name a fact that enough of its exercises report for rules (the
    plug-ins' ``rule`` facts, :mod:`grader.exercises.facts`): else it could never hold."""
    rule_facts = {n: exercise_facts.rule_facts(registry[n]) for n in req['together']}
    reporting = [n for n in req['together'] if req['fact'] in rule_facts[n]]
    if len(reporting) < req.get('at_least', 1):
        known = sorted(set().union(*rule_facts.values()))
        key = f'{keys[0]}.{keys[1]}.{keys[2]}[{keys[3]}].{keys[4]}'
        raise UserError(f"{key}: {req['fact']!r} is reported for course rules by "
                        f"{' and '.join(reporting) if reporting else 'none'} of "
                        f"{', '.join(req['together'])}, fewer than at_least "
                        f"({req.get('at_least', 1)}); facts these exercises report for rules: "
                        f"{', '.join(known) or 'none'}", path, where.line(keys))


def _similarity(raw, root, origin):
    """``similarity`` of grading.yaml with its folders resolved and checked, or None."""
    if raw is None:
        return None
    out = dict(raw)
    for key in ('known', 'template'):
        if key in raw:
            folder = root / raw[key]
            if not folder.is_dir():
                raise _error(origin, f'similarity.{key}: {raw[key]} is not a folder (give the '
                             'folder, relative to grading.yaml)', 'similarity', key)
            out[key] = folder
    if 'template' not in raw and (root / 'student_template').is_dir():
        out['template'] = root / 'student_template'
    return out


def _error(origin, message, *keys):
    """The :class:`UserError` for the policy key path ``keys`` (``origin``: (path, where))."""
    path, where = origin
    return UserError(message, path, where.line(list(keys)))


def _exercise(name, raw, plugin, root, defaults, origin):
    """The :class:`ExerciseSettings` of ``exercises.<name>``."""
    limits = raw.get('time_limit', {'factors': {'default': 30}})
    settings = ExerciseSettings(
        name=name, title=raw.get('title', plugin.title),
        files=tuple(raw.get('files', plugin.files)),
        fixtures=tuple(root / f for f in raw['fixtures']),
        hidden_fixtures=tuple(root / f for f in raw.get('hidden_fixtures', ())),
        options=resolve_paths(raw.get('options', {}), root),
        checks=_checks(name, raw['checks'], plugin, defaults, origin),
        factors=dict(limits['factors']),
        min_seconds=float(limits.get('min_seconds', 0.5)),
        own_worker=tuple(limits.get('own_worker', ())),
        main_lanes=int(limits.get('main_lanes', 1)),
        hidden_last=bool(limits.get('hidden_last', False)),
        generated=dict(raw.get('generated', {})),
        stop_after_timeouts=int(limits.get('stop_after_timeouts', 3)),
        plugin=str(root / raw['plugin']) if 'plugin' in raw else '')
    for key in settings.own_worker:
        if key not in settings.factors:
            raise _error(origin, f'exercises.{name}.time_limit.own_worker: {key!r} is not a key '
                                 f'of factors (known: {", ".join(settings.factors)})',
                         'exercises', name, 'time_limit', 'own_worker')
    return settings


def _checks(name, raw_checks, plugin, defaults, origin):
    """``{check name: CheckSettings}`` of ``exercises.<name>.checks``, names checked."""
    default_partial, default_hidden = defaults
    known = {c.name for c in plugin.checks}
    checks = {}
    for check, spec in raw_checks.items():
        if check not in known:
            raise _error(origin, f'exercises.{name}.checks.{check}: unknown check '
                                 f'(known: {", ".join(sorted(known))})',
                         'exercises', name, 'checks', check)
        params = {k: v for k, v in spec.items()
                  if k not in ('points', 'partial_credit', 'visibility', 'hidden_visibility')}
        checks[check] = CheckSettings(check, float(spec['points']),
                                      spec.get('partial_credit', default_partial),
                                      spec.get('visibility', 'visible'), params,
                                      spec.get('hidden_visibility', default_hidden))
    return checks


def _assignment(name, raw, exercises, registry, origin):
    """The :class:`Assignment` of ``assignments.<name>``, checked against ``exercises``."""
    for i, exercise in enumerate(raw['exercises']):
        if exercise not in exercises:
            raise _error(origin, f'assignments.{name}.exercises: {exercise!r} is not configured '
                                 'under exercises', 'assignments', name, 'exercises', i)
    requirements = _requirements(name, raw, registry, origin)
    count = raw.get('count', len(raw['exercises']))
    if count > len(raw['exercises']):
        raise _error(origin, f'assignments.{name}.count: {count} is more than the '
                             f'{len(raw["exercises"])} exercises listed',
                     'assignments', name, 'count')
    if raw.get('late_penalty'):
        _check_deadline(name, raw['late_penalty']['deadline'], origin)
    best = sorted((exercises[e].max_score for e in raw['exercises']), reverse=True)
    return Assignment(
        name=name, title=raw.get('title', name), exercises=tuple(raw['exercises']),
        count=count, max_score=float(raw.get('max_score', sum(best[:count]))),
        requirements=requirements, late_penalty=raw.get('late_penalty'))


def _requirements(name, raw, registry, origin):
    """The :class:`Requirement` list of ``assignments.<name>.requirements``."""
    requirements = []
    for i, req in enumerate(raw.get('requirements', [])):
        for exercise in req['together']:
            if exercise not in raw['exercises']:
                raise _error(origin, f'assignments.{name}.requirements[{i}]: {exercise!r} is not '
                                     'part of this assignment',
                             'assignments', name, 'requirements', i)
        path, where = origin
        check_rule_fact(registry, req, ['assignments', name, 'requirements', i, 'fact'],
                        path, where)
        requirements.append(Requirement(tuple(req['together']), req['fact'],
                                        req.get('at_least', 1), req.get('explain', '')))
    return requirements


def _check_deadline(name, deadline, origin):
    """A late penalty's deadline must be a time :func:`grader.scoring.parse_time` reads."""
    try:
        scoring.parse_time(deadline)
    except UserError as error:
        raise _error(origin, f'assignments.{name}.late_penalty.deadline: {error.message}',
                     'assignments', name, 'late_penalty', 'deadline') from None


def resolve_paths(options, root):
    """Options ending in ``_file`` or ``_dir`` become absolute paths."""
    resolved = {}
    for key, value in options.items():
        if isinstance(value, str) and (key.endswith('_file') or key.endswith('_dir')):
            resolved[key] = str((root / value).resolve())
        else:
            resolved[key] = value
    return resolved
