"""pytest plug-in: every check of a submission becomes a pytest item.

Registered through the ``pytest11`` entry point, so installing the grader is
enough::

    pytest --grader-submission PATH        # grade the folder PATH
    pytest                                 # inside a submission folder
    pytest -k moves --junitxml=report.xml  # selection and pytest's own reports

Items are ``<exercise file>::<check>`` (``tictactoe.py::values``), so ``-k``,
``--junitxml``, IDE test runners and pytest-timeout work as with any test.
An item passes iff its check passed; a check worth no points (information,
such as ``pruning``) that did not pass is reported as xfailed instead of
failed.  Points are recorded as the item's ``points``/``max_points``
properties (they appear in ``--junitxml``) and summed up in the terminal
summary with the course policy's explanation.

Student code never runs in the pytest process: the first item that runs
grades the selected exercises once, through :func:`grader.engine.grade`
and its sandboxed child, and every item reads that cached result.  The
grading time therefore falls on the first item (mind a per-test timeout).

Activation: ``--grader-submission``, the ini option ``grader_submission``, or
automatically when pytest runs in a folder without tests of its own that
holds an exercise file the policy knows.  Otherwise the plug-in does
nothing.  Importing this module is cheap: the grader is imported only when
the plug-in is active.  ``-p no:grader`` turns it off entirely.
"""
import os
from pathlib import Path

import pytest


def pytest_addoption(parser):
    group = parser.getgroup('grader', 'grading a submission with the grader')
    group.addoption('--grader-submission', metavar='PATH',
                    help='grade the submission folder PATH: one item per check')
    group.addoption('--grader-assignment', metavar='NAME',
                    help='the assignment (default: picked from the files found)')
    group.addoption('--grader-config', metavar='FILE',
                    help='grading.yaml to use (default: $GRADER_CONFIG, or found upward)')
    group.addoption('--grader-hidden', action='store_true',
                    help='also grade hidden checks whose fixture files are present '
                         '(as `grader grade`; default: public checks, as `grader check`)')
    parser.addini('grader_submission', 'submission folder to grade (relative to the ini file)')


def pytest_configure(config):
    folder = _submission_folder(config)
    if folder is None:
        return
    grading = Grading(config, folder)
    if not grading.located:
        raise pytest.UsageError(f'grader: no exercise file found in {folder} '
                                f'(looked for {grading.expected_files})')
    config.pluginmanager.register(grading, 'grader-grading')
    source = getattr(config, 'args_source', None)
    if source is not None and source != config.ArgsSource.ARGS:
        config.args = [str(folder)]          # collect the submission, not testpaths


def _submission_folder(config):
    """The folder to grade, or None when the plug-in was not asked for."""
    option = config.getoption('grader_submission')
    if option:
        folder = Path(option).resolve()
    elif config.getini('grader_submission'):
        base = config.inipath.parent if config.inipath else config.rootpath
        folder = (base / config.getini('grader_submission')).resolve()
    else:
        here = Path(config.invocation_params.dir)
        if not _looks_like_submission(here) or not _knows_files(config, here):
            return None
        return here.resolve()
    if not folder.is_dir():
        raise pytest.UsageError(f'grader: {folder} is not a folder (pass the submission folder)')
    return folder


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
    from grader.errors import UserError
    try:
        return bool(Grading(config, folder).located)
    except (UserError, pytest.UsageError):
        return False


class Grading:
    """The plug-in's state for one pytest session: policy, files, one result."""

    def __init__(self, config, folder):
        from grader import config as policies
        from grader import engine
        from grader import exercises as plugins
        from grader.errors import UserError

        self.config, self.folder = config, folder
        self.include_hidden = config.getoption('grader_hidden')
        try:
            self.policy = policies.load(config.getoption('grader_config'))
            self.assignment = engine.pick_assignment(self.policy, folder,
                                                     config.getoption('grader_assignment'))
        except UserError as error:
            raise pytest.UsageError(f'grader: {error}') from None
        self.located = {}
        for name in self.assignment.exercises:
            relpath = plugins.get(name).locate(folder, self.policy.exercises[name])
            if relpath:
                self.located[name] = relpath
        self.by_path = {(folder / rel).resolve(): name for name, rel in self.located.items()}
        self.expected_files = ', '.join(f for n in self.assignment.exercises
                                        for f in self.policy.exercises[n].files)
        self.selected = None
        self._result = None
        self._error = None

    # -- collection ------------------------------------------------------
    def pytest_collect_file(self, file_path, parent):
        name = self.by_path.get(Path(file_path).resolve())
        if name is not None:
            return ExerciseFile.from_parent(parent, path=Path(file_path), exercise=name)
        return None

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session, config, items):
        self.selected = [n for n in self.assignment.exercises
                         if any(isinstance(i, CheckItem) and i.exercise == n for i in items)]

    # -- grading ---------------------------------------------------------
    def result(self):
        """The graded result of the selected exercises (graded on first use)."""
        if self._result is None and self._error is None:
            from grader import calibrate, engine
            from grader.errors import UserError
            try:
                # measured in a process of its own while the first child starts
                calibrate.start(self.policy.calibration_repeats)
                run = engine.Run(self.policy, include_hidden=self.include_hidden,
                                 jobs=os.cpu_count() or 1)   # as `grader check` does
                result = engine.grade(self.policy, self.folder, assignment=self.assignment.name,
                                      run=run, only=self.selected or None)
                self._result = result
            except UserError as error:
                self._error = f'grader: {error}'
            except BaseException as error:  # a timeout or interrupt: do not grade again
                self._error = f'grading did not finish ({type(error).__name__})'
                raise
        if self._error:
            raise GradingError(self._error)
        return self._result

    # -- reporting -------------------------------------------------------
    def pytest_report_header(self, config):
        graded = ', '.join(f'{rel} ({name})' for name, rel in self.located.items())
        kind = 'hidden checks included' if self.include_hidden else 'public checks'
        return [f'grader: assignment {self.assignment.name}; {graded}; {kind}']

    def pytest_terminal_summary(self, terminalreporter, exitstatus, config):
        if self._result is None:
            return
        from grader.report import terminal
        result = self._result
        terminalreporter.section(f'grader: {result.assignment}')
        if self.selected and set(self.selected) != set(self.located):
            terminalreporter.write_line(f'only {", ".join(self.selected)} graded (selection); '
                                        'the total covers these alone')
        text = terminal.render(result, colour=terminalreporter.hasmarkup,
                               show_failures=False)
        for line in text.splitlines()[1:]:
            terminalreporter.write_line(line)


class GradingError(Exception):
    """The submission could not be graded (a configuration or fixture problem)."""


class CheckFailed(Exception):
    """A check lost points; carries the text shown for the failed item."""


class ExerciseFile(pytest.File):
    """The student's exercise file: one item per configured check."""

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
        result = grading.result()
        exercise = result.exercise(self.exercise)
        check = next(c for c in exercise.checks if c.name == self.check)
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
    from grader.report import shown_failures
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
