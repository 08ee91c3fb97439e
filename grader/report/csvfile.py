"""Every CSV file the grader writes: cells that never run as spreadsheet formulas.

A name, a reason or a file name comes from a student or a platform; opened
in a spreadsheet, a cell starting with ``=``, ``+``, ``-``, ``@``, a tab or
a carriage return may run as a formula (CSV injection).  :func:`neutral`
puts an apostrophe before such a cell (spreadsheets show the text as it
is) and before a cell that already starts with one, so that :func:`restore`
gives every cell back exactly.  A lone ``-`` (Moodle's "no date") stays as
it is: it is no formula, and Moodle reads it back.

:func:`write` is the one way the grader writes a CSV file: every cell goes
through :func:`neutral`, and the file is replaced whole (a reader never
sees half of it).
"""
import csv
import io

from grader.report.files import write_text

FORMULA_START = ('=', '+', '-', '@', '\t', '\r')
"""What a spreadsheet may read as the start of a formula."""
ESCAPE = "'"


def neutral(value):
    """``value`` as CSV cell text that no spreadsheet runs as a formula."""
    text = '' if value is None else str(value)
    if text == '-':
        return text
    if text.startswith(FORMULA_START) or text.startswith(ESCAPE):
        return ESCAPE + text
    return text


def restore(text):
    """The cell :func:`neutral` was given (the inverse, for reading our own files back)."""
    return text[1:] if text.startswith(ESCAPE) else text


def render(header, rows):
    """CSV text of ``header`` and ``rows`` (sequences of cells), every cell neutralised."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator='\n')
    writer.writerow([neutral(c) for c in header])
    for row in rows:
        writer.writerow([neutral(c) for c in row])
    return out.getvalue()


def write(path, header, rows):
    """Write a CSV file atomically (see :func:`render`)."""
    write_text(path, render(header, rows))


def read(path):
    """``(header, rows as dicts)`` of a CSV file the grader wrote, cells restored."""
    with open(path, newline='', encoding='utf-8') as stream:
        reader = csv.reader(stream)
        header = [restore(c) for c in next(reader, [])]
        return header, [dict(zip(header, (restore(c) for c in row))) for row in reader]
