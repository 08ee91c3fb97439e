"""JUnit XML (``--junit FILE``): one testcase per check, for CI systems and IDEs.

The layout is the common one read by Jenkins, GitLab, GitHub test reporters
and IDEs: ``<testsuites>`` holding one ``<testsuite>`` per exercise, each
with one ``<testcase classname="ASSIGNMENT.EXERCISE" name="CHECK">``.

- a check that lost cases is a ``<failure>`` (message: the check's summary;
  text: how many hidden cases passed, then the failed public cases, drawn as
  in the terminal);
- a check that could not run because the module failed to load is an
  ``<error>``;
- an exercise not submitted, or a check without cases, is ``<skipped>``.

Every ``time`` is the imports' and the public cases' (a hidden case's time is
in none).  Points are ``<property>`` elements of each suite: ``score``, ``max_score``,
``counted``, and ``points.CHECK`` / ``max_points.CHECK`` per check (the
JUnit schema CI servers validate against has no testcase properties).
"""
import xml.etree.ElementTree as ET

from grader.report import hidden_line, shown_failures
from grader.report.files import write_text
from grader.scoring import fmt


def render(result):
    """The XML document as text."""
    root = ET.Element('testsuites', name=f'grader {result.assignment}')
    totals = dict(tests=0, failures=0, errors=0)
    for exercise in result.exercises:
        suite = _suite(result, exercise)
        root.append(suite)
        for key in totals:
            totals[key] += int(suite.get(key))
    for key, value in totals.items():
        root.set(key, str(value))
    root.set('time', f'{result.duration_seconds:.3f}')
    ET.indent(root)
    return ET.tostring(root, encoding='unicode', xml_declaration=True) + '\n'


def _suite(result, exercise):
    suite = ET.Element('testsuite', name=exercise.name)
    props = ET.SubElement(suite, 'properties')
    for name, value in (('score', f'{exercise.score:g}'), ('max_score', f'{exercise.max_score:g}'),
                        ('counted', str(exercise.counted).lower()),
                        ('submitted', str(exercise.submitted).lower()),
                        ('file', exercise.file)):
        ET.SubElement(props, 'property', name=name, value=value)
    for check in exercise.checks:
        ET.SubElement(props, 'property', name=f'points.{check.name}', value=f'{check.score:g}')
        ET.SubElement(props, 'property', name=f'max_points.{check.name}',
                      value=f'{check.max_score:g}')
    counts = dict(tests=0, failures=0, errors=0, skipped=0)
    for check in exercise.checks:
        case = ET.SubElement(suite, 'testcase', classname=f'{result.assignment}.{exercise.name}',
                             name=check.name)
        counts['tests'] += 1
        if not exercise.submitted:
            ET.SubElement(case, 'skipped', message=f'not submitted ({exercise.error})')
            counts['skipped'] += 1
        elif check.cases_total == 0 and not exercise.error:
            ET.SubElement(case, 'skipped', message=check.message)
            counts['skipped'] += 1
        elif not check.passed:
            kind = 'error' if exercise.error else 'failure'
            element = ET.SubElement(case, kind, message=check.message,
                                    type='ModuleNotGraded' if exercise.error else 'CheckFailed')
            element.text = _details(exercise, check)
            counts['errors' if exercise.error else 'failures'] += 1
    for key, value in counts.items():
        suite.set(key, str(value))
    suite.set('time', f"{exercise.facts.get('wall_seconds', 0.0):.3f}")
    return suite


def _details(exercise, check):
    lines = [f'{check.cases_passed}/{check.cases_total} cases passed; '
             f'{fmt(check.score)} of {fmt(check.max_score)} points']
    if exercise.error:
        lines.append(exercise.error)
    if hidden_line(check):
        lines += ['', hidden_line(check)]
    for failure, feedback in shown_failures(check):
        lines.append('')
        lines.append(f"{failure['case']}: {failure['message']}")
        if feedback:
            lines.append(feedback)
    return '\n'.join(lines) + '\n'


def write(result, path):
    write_text(path, render(result))
