"""pytest plug-in: every check of a submission becomes a pytest item.

Registered through the ``pytest11`` entry point, so installing the grader is
enough::

    pytest --grader-submission PATH        # grade the folder PATH
    pytest                                 # inside a submission folder
    pytest -k moves --junitxml=report.xml  # selection and pytest's own reports

Items are ``<exercise file>::<check>`` (``tictactoe.py::values``), so ``-k``,
``--junitxml``, IDE test runners and pytest-timeout work as with any test.
An item passes iff its check passed; a check worth no points (information,
such as ``pruning``) that did not pass is reported as xfailed (in JUnit
XML a skip, never a failure), and one with no cases here (switched off in
grading.yaml) as skipped.  Points are recorded as the item's
``points``/``max_points`` properties (they appear in ``--junitxml``) and
summed up in the terminal summary with the course policy's explanation.
Every assignment whose files the folder holds is graded, as by ``grader
check``; ``--grader-assignment`` picks one.

Nothing of the submission runs or is read as configuration in the pytest
process:

- the items are made from the policy, not by collecting the submission
  folder: pytest never imports a file of it, and never enters it when it
  collects other arguments;
- no ``conftest.py`` is loaded (as ``--noconftest``), and the folder leaves
  ``sys.path`` (``python -m pytest`` puts the working folder there);
- the policy is never the folder's own ``grading.yaml``;
- the first item that runs grades the selected exercises once, through
  :func:`grader.engine.grade_many` and its sandboxed children, and every
  item reads that cached result (the grading time falls on the first item:
  mind a per-test timeout).

pytest itself reads ``pytest.ini``, ``pyproject.toml`` and the like (and the
plug-ins they name) from the folder it runs in, or from the folders given as
arguments, before any plug-in loads: an instructor or CI grades with
``pytest --grader-submission PATH`` from another folder, without PATH as an
argument (or with ``grader grade``), and the plug-in refuses to grade when
pytest has read the submission's own configuration from elsewhere.  Inside a
student's own folder it is the student's own pytest.

Activation: ``--grader-submission``, the ini option ``grader_submission``, or
automatically when pytest runs in a folder without tests of its own that
holds an exercise file the policy knows.  Otherwise the plug-in does
nothing, but for a folder holding a file a built-in exercise looks for
(``tictactoe.py`` ...) when no course grading.yaml is found: rather than
"collected 0 items", a usage error says how to point at the course's
(``GRADER_CONFIG`` or ``--grader-config``).  A path given that does not exist,
or a file that is no exercise file, is refused in the words of
:mod:`grader.submission`; an exercise file stands for its folder.
Importing this module is cheap: the grader is imported only when the plug-in
is active.  ``-p no:grader`` turns it off entirely.
"""
import os
import sys
from pathlib import Path

import pytest

from grader.errors import UserError

_FOLDER = pytest.StashKey()
_GIVEN = pytest.StashKey()


def pytest_addoption(parser):
    group = parser.getgroup('grader', 'grading a submission with the grader')
    group.addoption('--grader-submission', metavar='PATH',
                    help='grade the submission folder PATH: one item per check')
    group.addoption('--grader-assignment', metavar='NAME',
                    help='the assignment (default: every one whose files are found)')
    group.addoption('--grader-config', metavar='FILE',
                    help='grading.yaml to use (default: $GRADER_CONFIG, or found upward, '
                         'never in the submission folder)')
    group.addoption('--grader-hidden', action='store_true',
                    help='also grade hidden checks whose fixture files are present '
                         '(as `grader grade`; default: public checks, as `grader check`)')
    group.addoption('--grader-full', action='store_true',
                    help="a full self-check, as `grader check --full`: the long calls of "
                         "information-only checks (the eight puzzle's hard and unsolvable "
                         "starts) run too, each stopped at the self-check's limit")
    parser.addini('grader_submission', 'submission folder to grade (relative to the ini file)')


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    """Decide, before any conftest.py is loaded, whether a submission is graded; if so,
    load none (the submission's would run here) and keep its folder off ``sys.path``."""
    folder = _submission_folder(early_config)
    if folder is not None:
        early_config.known_args_namespace.noconftest = True
        early_config.stash[_FOLDER] = folder
        early_config.stash[_GIVEN] = _option(early_config, 'grader_submission') or folder
        _leave_sys_path(folder)


def pytest_configure(config):
    folder = config.stash.get(_FOLDER, None)
    if folder is None:
        return
    _leave_sys_path(folder)       # pytest's own `pythonpath` entries included
    inipath = getattr(config, 'inipath', None)
    if inipath and _inside(Path(inipath).resolve(), folder) and \
            not _inside(Path(config.invocation_params.dir).resolve(), folder):
        raise pytest.UsageError(
            f"grader: pytest read {inipath}, the submission's own configuration, before any "
            'plug-in: run pytest from another folder with --grader-submission, without the '
            'submission folder as an argument (or use grader grade)')
    grading = Grading(config, folder)
    if not grading.located:
        raise pytest.UsageError(f'grader: no exercise file found in {folder} '
                                f'(looked for {grading.expected_files})')
    config.pluginmanager.register(grading, 'grader-grading')
    source = getattr(config, 'args_source', None)
    if source is not None and source == config.ArgsSource.ARGS:
        config.args = [a for a in config.args if not _inside(Path(a).resolve(), folder)]
    else:
        config.args = []                     # nothing else to collect: grade only


def pytest_ignore_collect(collection_path, config):
    """Never collect (import) anything in the submission folder."""
    folder = config.stash.get(_FOLDER, None)
    if folder is not None and _inside(Path(collection_path).resolve(), folder):
        return True
    return None


def _inside(path, folder):
    return path == folder or folder in path.parents


def _leave_sys_path(folder):
    """Take ``folder`` (and the working folder's '' when it is that folder) off ``sys.path``."""
    def same(entry):
        try:
            return Path(entry or os.getcwd()).resolve() == folder
        except OSError:
            return False
    sys.path[:] = [entry for entry in sys.path if not same(entry)]


def _option(config, name):
    """A command-line option, also before the command line is parsed in full."""
    namespace = getattr(config, 'known_args_namespace', None)
    if namespace is not None and hasattr(namespace, name):
        return getattr(namespace, name)
    return config.getoption(name)


def _submission_folder(config):
    """The folder to grade, or None when the plug-in was not asked for."""
    option = _option(config, 'grader_submission')
    if option:
        given = Path(option)
    elif config.getini('grader_submission'):
        base = config.inipath.parent if config.inipath else config.rootpath
        given = base / config.getini('grader_submission')
    else:
        here = Path(config.invocation_params.dir).resolve()
        if not _looks_like_submission(here):
            return None
        kept = list(sys.path)
        _leave_sys_path(here)     # the policy is read without the folder's own modules
        if _knows_files(config, here):
            return here
        sys.path[:] = kept
        _no_course(config, here)
        return None
    # on demand: the grader is imported only when the plug-in is asked for
    from grader import submission
    try:
        return submission.folder_of(given).resolve()   # a file: checked by name later
    except UserError as error:
        raise pytest.UsageError(f'grader: {error}') from None


def _no_course(config, folder):
    """A folder holding an exercise file, with no grading.yaml to grade it by: a usage
    error saying how to point at the course's (rather than "collected 0 items")."""
    from grader import config as policies  # only when no course was found
    from grader import exercises as plugins  # only when no course was found
    try:
        policies.find(_option(config, 'grader_config'), start=folder, graded=folder)
        return
    except UserError:
        pass
    files = sorted({name for plugin in plugins.registry().values() for name in plugin.files
                    if (folder / name).is_file() or (folder / 'src' / name).is_file()})
    if files:
        raise pytest.UsageError(
            f'grader: this folder holds {", ".join(files)}, but no course grading.yaml was '
            'found to grade it by: point at the one of your course\'s grader with '
            'GRADER_CONFIG=path/to/grader/grading.yaml (or --grader-config FILE)')


def _looks_like_submission(folder):
    """Python files and no tests of its own: cheap, without loading the grader."""
    if (folder / 'tests').is_dir() or (folder / 'conftest.py').exists():
        return False
    for place in (folder, folder / 'src'):
        if not place.is_dir():
            continue
        names = [p.name for p in place.glob('*.py')]
        if any(n.startswith('test_') or n.endswith('_test.py') for n in names):
            return False
        if names:
            return True
    return False


def _knows_files(config, folder):
    """Whether a grading policy can be found and knows a file in ``folder``."""
    try:
        return bool(Grading(config, folder).located)
    except (UserError, pytest.UsageError):
        return False


class Grading:
    """The plug-in's state for one pytest session: policy, files, one result per assignment."""

    def __init__(self, config, folder):
        # pytest loads this plug-in in every run: the grader only to grade
        from grader import config as policies

        # pytest loads this plug-in in every run: the grader only to grade
        from grader import engine

        # pytest loads this plug-in in every run: the grader only to grade
        from grader import exercises as plugins

        self.config, self.folder = config, folder
        self.include_hidden = _option(config, 'grader_hidden')
        if self.include_hidden:     # an official grade: never without its counter
            from grader import instruments
            try:
                instruments.require_counter()
            except instruments.MissingInstrument as error:
                pytest.exit(f'grader: error: {error}', returncode=2)
        try:
            self.policy = policies.load(_option(config, 'grader_config'), graded=folder)
            # on demand: the grader is imported only when the plug-in is active
            from grader import submission
            submission.folder(config.stash.get(_GIVEN, folder), self.policy)   # a file: by name
            self.assignments = engine.pick_assignments(
                self.policy, folder, _option(config, 'grader_assignment') or engine.ALL)
            submission.readable(folder)     # one line now, not one failure per item
        except UserError as error:
            raise pytest.UsageError(f'grader: {error}') from None
        self.ignored = policies.ignored_note(folder, self.policy.path)
        names = list(dict.fromkeys(n for a in self.assignments for n in a.exercises))
        self.located = {}
        for name in names:
            relpath = plugins.get(name).locate(folder, self.policy.exercises[name])
            if relpath:
                self.located[name] = relpath
        self.expected_files = ', '.join(f for n in names for f in self.policy.exercises[n].files)
        self.selected = None
        self._results = None
        self._error = None

    # -- collection ------------------------------------------------------
    @pytest.hookimpl(tryfirst=True)      # before -k and -m deselect
    def pytest_collection_modifyitems(self, session, config, items):
        for name, relpath in self.located.items():
            path = self.folder / relpath
            nodeid = os.path.relpath(path, config.rootpath).replace(os.sep, '/')
            exercise = ExerciseFile.from_parent(session, path=path, nodeid=nodeid, exercise=name)
            items.extend(exercise.collect())

    # -- grading ---------------------------------------------------------
    def result(self, session):
        """The graded results of the selected exercises (graded on first use)."""
        if self._results is None and self._error is None:
            # pytest loads this plug-in in every run: the grader only to grade
            from grader import calibrate, engine
            self.selected = [n for n in self.located
                             if any(isinstance(i, CheckItem) and i.exercise == n
                                    for i in session.items)]
            try:
                # measured in a process of its own while the first child starts
                calibrate.start(self.policy.calibration_repeats)
                run = engine.Run(self.policy, include_hidden=self.include_hidden,
                                 jobs=os.cpu_count() or 1,   # as `grader check` does
                                 full=_option(self.config, 'grader_full'))
                self._results = engine.grade_many(
                    self.policy, self.folder, [a.name for a in self.assignments], run=run,
                    only=self.selected or None)
            except UserError as error:
                self._error = f'grader: {error}'
            except BaseException as error:  # a timeout or interrupt: do not grade again
                self._error = f'grading did not finish ({type(error).__name__})'
                raise
            finally:
                calibrate.discard()
        if self._error:
            raise GradingError(self._error)
        return self._results

    def exercise(self, session, name):
        for result in self.result(session):
            for exercise in result.exercises:
                if exercise.name == name:
                    return exercise
        raise GradingError(f'grader: {name} was not graded')

    # -- reporting -------------------------------------------------------
    def pytest_report_header(self, config):
        graded = ', '.join(f'{rel} ({name})' for name, rel in self.located.items())
        kind = 'hidden checks included' if self.include_hidden else 'public checks'
        names = ', '.join(a.name for a in self.assignments)
        lines = [f'grader: assignment {names}; {graded}; {kind}']
        if self.ignored:
            lines.append(f'grader: {self.ignored}')
        return lines

    def pytest_terminal_summary(self, terminalreporter, exitstatus, config):
        if self._results is None:
            return
        # pytest loads this plug-in in every run: the reports only to report
        from grader.report import terminal
        for result in self._results:
            terminalreporter.section(f'grader: {result.assignment}')
            graded = [e.name for e in result.exercises if e.name in self.located]
            if self.selected and set(self.selected) != set(self.located):
                terminalreporter.write_line(f'only {", ".join(self.selected)} graded '
                                            '(selection); the total covers these alone')
            elif not graded:
                continue
            text = terminal.render(result, colour=terminalreporter.hasmarkup,
                                   show_failures=False)
            for line in text.splitlines()[1:]:
                terminalreporter.write_line(line)


class GradingError(Exception):
    """The submission could not be graded (a configuration or fixture problem)."""


class CheckFailed(Exception):
    """A check lost points; carries the text shown for the failed item."""


class ExerciseFile(pytest.File):
    """The student's exercise file: one item per configured check (never imported)."""

    def __init__(self, *, exercise, **kwargs):
        super().__init__(**kwargs)
        self.exercise = exercise

    def collect(self):
        grading = self.config.pluginmanager.get_plugin('grader-grading')
        for check in grading.policy.exercises[self.exercise].checks:
            yield CheckItem.from_parent(self, name=check, exercise=self.exercise, check=check)


class CheckItem(pytest.Item):
    """One check of one exercise; passes iff the check passed."""

    def __init__(self, *, exercise, check, **kwargs):
        super().__init__(**kwargs)
        self.exercise, self.check = exercise, check
        self.extra_keyword_matches.add(exercise)

    def runtest(self):
        grading = self.config.pluginmanager.get_plugin('grader-grading')
        exercise = grading.exercise(self.session, self.exercise)
        check = next((c for c in exercise.checks if c.name == self.check), None)
        if check is None:   # an information check without cases this run
            from grader.engine import NOT_RUN_QUICK
            if self.check in exercise.facts.get(NOT_RUN_QUICK, ()):
                pytest.skip(f'{self.check}: information only, not run in a quick self-check '
                            '(--grader-full runs it)')
            pytest.skip(f'{self.check}: not run (no cases; an information check switched off '
                        'in grading.yaml)')
        self.user_properties += [('points', check.score), ('max_points', check.max_score)]
        if check.passed:
            return
        if check.cases_total == 0 and not exercise.error:
            pytest.skip(check.message)
        text = _failure_text(exercise, check)
        if check.max_score == 0:
            pytest.xfail(f'information only (no points): {check.message}')
        raise CheckFailed(text)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, (CheckFailed, GradingError)):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, None, f'{self.exercise}: {self.check}'


MAX_DRAWN = 3
"""Failed cases drawn in full per item; the others are listed in one line each."""


def _failure_text(exercise, check):
    # pytest loads this plug-in in every run: the reports only to report
    from grader.report import shown_failures

    # pytest loads this plug-in in every run: the reports only to report
    from grader.scoring import fmt
    lines = [f'{check.name}: {check.message}',
             f'{fmt(check.score)} of {fmt(check.max_score)} points']
    if exercise.error:
        lines.append(exercise.error)
    drawn = 0
    for failure, feedback in shown_failures(check):
        label = ' (hidden case)' if failure.get('hidden') else ''
        lines += ['', f"{failure['case']}{label}: {failure['message']}"]
        if feedback and drawn < MAX_DRAWN:
            drawn += 1
            lines.append(feedback)
    return '\n'.join(lines)
