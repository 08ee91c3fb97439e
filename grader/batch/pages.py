"""The HTML pages of a class: ``index.html``, a page per student, a view per similar pair.

Every page is static and self-contained (inline CSS, no request to any
server), so the output folder reads offline, from a zip too.  The pages are
rendered by Jinja2 with autoescaping: a student's name, file or output is
always text, never markup.  The one script (sorting the grade table) is the
grader's own, and each page's Content-Security-Policy allows that script
alone (by its hash): a script that found its way into a page would not run.
"""
import base64
import hashlib
from functools import lru_cache

SORT_SCRIPT = """
document.querySelectorAll('table.sortable th').forEach(function (th, column) {
  th.addEventListener('click', function () {
    var table = th.closest('table'), body = table.tBodies[0];
    var up = th.getAttribute('aria-sort') !== 'ascending';
    table.querySelectorAll('th').forEach(function (h) { h.removeAttribute('aria-sort'); });
    th.setAttribute('aria-sort', up ? 'ascending' : 'descending');
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = a.cells[column].dataset.sort || a.cells[column].textContent;
      var y = b.cells[column].dataset.sort || b.cells[column].textContent;
      var nx = parseFloat(x), ny = parseFloat(y);
      var order = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
      return up ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  });
});
"""

STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 72em; color: #222;
       padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .5em 0; font-size: .92em; }
th, td { border: 1px solid #ccc; padding: .25em .5em; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
table.sortable th { cursor: pointer; }
table.sortable th[aria-sort=ascending]::after { content: " \\25B2"; }
table.sortable th[aria-sort=descending]::after { content: " \\25BC"; }
td.num { text-align: right; }
tr.problem { background: #fde2e2; } tr.late { background: #fff4d6; }
.tag { font-size: .8em; padding: 0 .3em; border-radius: .3em; background: #c44e52; color: #fff; }
.tag.late { background: #b8860b; }
.flag { color: #c44e52; font-weight: bold; }
pre { background: #f7f7f7; border: 1px solid #ddd; padding: .5em; overflow-x: auto; }
.side pre { font-size: .8em; }
summary { color: #555; cursor: pointer; }
mark { background: #ffe066; }
.side { display: flex; gap: 1em; } .side > div { flex: 1; min-width: 0; }
.note { color: #555; }
"""


def _csp(scripts=()):
    hashes = ' '.join("'sha256-%s'" % base64.b64encode(hashlib.sha256(s.encode()).digest())
                      .decode() for s in scripts)
    return ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
            f"script-src {hashes or chr(39) + 'none' + chr(39)}")


LAYOUT = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{ csp }}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ title }}</title><style>{{ style|safe }}</style></head>
<body>
{% block body %}{% endblock %}
{% if script %}<script>{{ script|safe }}</script>{% endif %}
</body></html>
"""

INDEX = """{% extends "layout" %}{% block body %}
<h1>{{ title }}</h1>
<p>{{ summary }}</p>
{% if scores %}<p>{{ scores }}</p>{% endif %}

<h2 id="grades">Grades</h2>
<p class="note">Click a column's heading to sort by it. Rows marked
<span class="tag">problem</span> have no grade or a penalty that could not be applied;
rows marked <span class="tag late">late</span> were handed in late.</p>
<table class="sortable" id="grade-table"><thead><tr>
{% for column in grade_columns %}<th>{{ column }}</th>{% endfor %}
</tr></thead><tbody>
{% for row in grade_rows %}<tr class="{{ row.css }}">
<td><a href="students/{{ row.key }}.html">{{ row.key }}</a></td>
<td>{{ row.name }}</td>
<td>{{ row.status }}{% for tag in row.tags %}
<span class="tag {{ tag }}">{{ tag }}</span>{% endfor %}</td>
{% for cell in row.numbers -%}
<td class="num" data-sort="{{ cell.sort }}">{{ cell.text }}</td>{% endfor %}
<td>{{ row.late }}</td><td>{{ row.reason }}</td>
</tr>{% endfor %}
</tbody></table>

<h2 id="checks">Checks</h2>
{% if checks %}<table class="sortable" id="check-table"><thead><tr><th>Exercise</th><th>Check</th>
<th>Points</th><th>Passed</th><th>Of</th><th>Rate</th><th>Most common failure</th></tr></thead>
<tbody>{% for c in checks %}<tr>
<td>{{ c.exercise }}</td><td>{{ c.check }}</td><td class="num">{{ c.points }}</td>
<td class="num">{{ c.passed }}</td><td class="num">{{ c.total }}</td>
<td class="num" data-sort="{{ c.rate }}">{{ c.percent }}{% if c.flagged %}
<span class="flag">flagged</span>{% endif %}</td>
<td>{% if c.message %}{{ c.message }}
<span class="note">({{ c.message_count }})</span>{% endif %}</td>
</tr>{% endfor %}</tbody></table>
<p class="note">Flagged: passed by less than half of the class. A broken fixture is more
likely than a failing class: check these first.</p>
{% else %}<p>No graded submission yet.</p>{% endif %}

<h2 id="scores">Scores</h2>
{% if histogram %}{{ histogram }}{% else %}<p>No graded submission yet.</p>{% endif %}

<h2 id="similarity">Similar code</h2>
{% if similarity is none %}<p class="note">Not compared: add <code>similarity:</code> to
grading.yaml to compare the hand-ins with each other and with known solutions.</p>
{% elif not pairs %}<p>No pair of hand-ins, and no hand-in and known solution, is alike
enough to look at.</p>
{% else %}<p class="note">Pairs alike enough to look at (share of each file's code found in
the other). Similar code is a reason to look, not a verdict; no score was changed.</p>
<table class="sortable" id="similarity-table"><thead><tr><th>Exercise</th><th>Hand-in</th>
<th>Alike</th><th>Share of the first</th><th>Share of the second</th><th>Tokens</th>
<th>Side by side</th></tr></thead><tbody>
{% for p in pairs %}<tr><td>{{ p.exercise }}</td>
<td><a href="students/{{ p.a }}.html">{{ p.a }}</a></td>
<td>{% if p.known %}{{ p.b }}{% else %}<a href="students/{{ p.b }}.html">{{ p.b }}</a>
{%- endif %}</td>
<td class="num">{{ p.share_a }}</td><td class="num">{{ p.share_b }}</td>
<td class="num">{{ p.tokens }}</td><td><a href="{{ p.view }}">view</a></td></tr>{% endfor %}
</tbody></table>{% endif %}
{% endblock %}"""

STUDENT = """{% extends "layout" %}{% block body %}
<p><a href="../index.html">Class</a></p>
<h1>{{ title }}</h1>
{% if sentence %}<p>{{ sentence }}</p>{% else %}
<h2>{{ result.assignment }}: {{ fmt(result.score) }} / {{ fmt(result.max_score) }}</h2>
{% if result.hidden_checks_pending %}<p><strong>{{ public_note }}</strong></p>{% endif %}
<table id="checks"><thead><tr><th>Exercise</th><th>Check</th><th>Cases</th><th>Points</th>
<th>Result</th></tr></thead><tbody>
{% for row in check_rows %}<tr>{% for cell in row.cells %}
<td{% if row.bold %} style="font-weight:bold"{% endif %}>{{ cell }}</td>{% endfor %}</tr>
{%- endfor %}
</tbody></table>
<p><strong>Score: {{ fmt(result.score) }} / {{ fmt(result.max_score) }}</strong></p>
<ul>{% for line in result.explanation %}<li>{{ line }}</li>{% endfor %}</ul>
{% if measured %}<p><strong>Measured</strong></p>
<ul>{% for name, text in measured %}<li>{{ name }}: {{ text }}</li>{% endfor %}</ul>{% endif %}
{% if problems %}<ul>{% for name, text in problems %}<li><strong>{{ name }}</strong>: {{ text }}
</li>{% endfor %}</ul>{% endif %}
{% if failures %}<h2>Failed cases</h2>
{% for f in failures %}<p><strong>{{ f.label }}</strong>
{%- if f.message %}: {{ f.message }}{% endif %}</p>
{% if f.feedback %}<pre>{{ f.feedback }}</pre>{% endif %}
{% for note in f.notes %}<p>{{ note }}</p>{% endfor %}{% endfor %}{% endif %}
{% endif %}
{% if files %}<h2>Files handed in</h2>{% for name, text in files %}
<p><code>{{ name }}</code></p><pre>{{ text }}</pre>{% endfor %}{% endif %}
{% endblock %}"""

PAIR = """{% extends "layout" %}{% block body %}
<p><a href="{{ up }}index.html#similarity">Class</a></p>
<h1>{{ title }}</h1>
<p>{{ share }}. Highlighted: code found in both, after names, comments, blank lines,
statements that do nothing (unused variables, prints, pass) and the order of functions,
of independent statements and of operands are set aside; a region runs on across such
statements.  The handout's template, and code most of the class holds, are left out.</p>
<div class="side">{% for side in sides %}<div><h2>{{ side.name }}
<span class="note">({{ side.share }} matched)</span></h2>
<pre>{% for kind, text in side.parts -%}
{% if kind == 'hit' %}<mark>{{ text }}</mark>{% elif kind == 'fold' -%}
<details><summary>{{ text.count('\n') }} lines without a match</summary>{{ text }}</details>
{%- else %}{{ text }}{% endif %}
{%- endfor %}</pre>
</div>{% endfor %}</div>
{% endblock %}"""


@lru_cache(maxsize=1)
def environment():
    """The Jinja2 environment of the pages, autoescaping everything."""
    import jinja2  # the batch extra: only when pages are written
    return jinja2.Environment(
        loader=jinja2.DictLoader({'layout': LAYOUT, 'index': INDEX, 'student': STUDENT,
                                  'pair': PAIR}),
        autoescape=True, undefined=jinja2.StrictUndefined, keep_trailing_newline=True)


def render(name, title, script='', **context):
    """The page ``name`` filled with ``context`` (every value escaped)."""
    return environment().get_template(name).render(
        title=title, style=STYLE, script=script, csp=_csp([script] if script else []),
        **context)


FOLD_LINES = 12
"""A stretch of code without a match longer than this many lines is folded (its first and
last :data:`CONTEXT_LINES` shown), so that the matches are seen first."""
CONTEXT_LINES = 3


def marked(text, spans):
    """``[(kind, text)]`` of ``text`` with the character ``spans`` highlighted: kind
    ``hit`` (matched), ``plain``, or ``fold`` (a long stretch without a match, shown
    folded)."""
    parts, at = [], 0
    for start, end in sorted(spans):
        start = max(start, at)
        if start > at:
            parts += _plain(text[at:start])
        if end > start:
            parts.append(('hit', text[start:end]))
        at = max(at, end)
    if at < len(text):
        parts += _plain(text[at:])
    return parts


def _plain(text):
    lines = text.splitlines(keepends=True)
    if len(lines) <= FOLD_LINES:
        return [('plain', text)]
    head, middle, tail = (lines[:CONTEXT_LINES], lines[CONTEXT_LINES:-CONTEXT_LINES],
                          lines[-CONTEXT_LINES:])
    return [('plain', ''.join(head)), ('fold', ''.join(middle)), ('plain', ''.join(tail))]


def pair_view(pair, depth=2):
    """The side-by-side page of a :class:`grader.batch.copies.Pair` (``depth``: folders
    between it and ``index.html``)."""
    m = pair.match
    sides = [{'name': pair.a.name, 'share': f'{m.share_a:.0%}',
              'parts': marked(pair.a.text, m.spans_a)},
             {'name': pair.b.name, 'share': f'{m.share_b:.0%}',
              'parts': marked(pair.b.text, m.spans_b)}]
    return render('pair', f'{pair.exercise}: {pair.a.name} and {pair.b.name}', sides=sides,
                  up='../' * depth,
                  share=f'{m.tokens} tokens matched: {m.share_a:.0%} of {pair.a.name}, '
                        f'{m.share_b:.0%} of {pair.b.name}')
