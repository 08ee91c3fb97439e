"""How much of two Python files is the same code, whatever the names and the order.

A file is read into *units*: each function (a method is a unit of its own)
and the module's remaining code.  Each unit becomes a stream of tokens in
which what a copier can change without changing the program is gone:

- comments, docstrings (and every other string statement), blank lines and
  the layout of a line are dropped;
- every name the file binds (functions, classes, parameters, variables,
  attributes it assigns, import aliases) becomes its order of first use in
  the unit (``#1``, ``#2``...): renaming changes nothing, while the way the
  names flow through the code (which one is read where) is kept; names the
  file does not bind (``len``, ``range``, ``math.inf``) stay as written;
- string literals become one token; numbers, keywords and operators stay;
- a block opens and closes as a token (``{``/``}``) and a statement ends
  with ``;``: the code's structure is part of the stream.

Fingerprints are hashed k-grams of a unit's tokens, chosen by winnowing
(copydetect's :func:`copydetect.utils.winnow`, the MOSS algorithm), never
spanning two units, so the same functions in another order have the same
fingerprints.  The hashes are stable (BLAKE2b, not Python's salted
``hash``), so fingerprints compare across processes and runs.  Fingerprints
found in the handout's template (every k-gram of it, not only the winnowed
ones) are boilerplate and left out.

:func:`compare` gives the share of each file's fingerprinted tokens that the
other one also holds, and the matched character spans of each for the
side-by-side view.  Two short independent solutions share idioms, not
long runs of identical structure: a pair counts as a copy only when enough
tokens match (:attr:`Settings.min_tokens`) as well as a large share.
"""
import ast
import builtins
import hashlib
import io
import json
import keyword
import tokenize
from dataclasses import asdict, dataclass, field

VERSION = 1
"""The normalisation and fingerprinting algorithm; cached results of another are recomputed."""

_DROPPED = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER,
            getattr(tokenize, 'TYPE_COMMENT', -1)}
_STRUCTURE = {tokenize.INDENT: '{', tokenize.DEDENT: '}', tokenize.NEWLINE: ';'}
_FSTRING_START = getattr(tokenize, 'FSTRING_START', -1)
_FSTRING_END = getattr(tokenize, 'FSTRING_END', -1)
_BUILTINS = frozenset(dir(builtins))


@dataclass(frozen=True)
class Settings:
    """How files are fingerprinted and when a pair counts as a copy."""

    threshold: float = 0.6
    """A pair is flagged when either file has at least this share of its code matched..."""
    min_tokens: int = 100
    """... and at least this many of its tokens are matched (short code is alike by nature)."""
    k: int = 12
    """Tokens per fingerprinted k-gram."""
    window: int = 4
    """Winnowing window: one fingerprint is kept per window of this many k-grams at least."""

    def digest(self, *extra):
        """What cached results computed with these settings (and ``extra``) are valid for."""
        text = json.dumps([VERSION, asdict(self), *extra], sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    def flagged(self, share_a, share_b, tokens):
        return max(share_a, share_b) >= self.threshold and tokens >= self.min_tokens


@dataclass
class Prints:
    """A file's fingerprints: ``{hash: [token index where the k-gram starts]}``, the
    number of tokens the fingerprints cover, and the character span of each token (None
    when not known: :meth:`spanned` adds them)."""

    hashes: dict
    spans: list
    coverage: int
    k: int

    @property
    def keys(self):
        return self.hashes.keys()

    def to_json(self):
        """The prints as stored (the spans as one flat list of numbers)."""
        flat = [n for span in self.spans for n in span] if self.spans is not None else None
        return json.dumps([self.k, self.coverage, sorted(self.hashes.items()), flat])

    @classmethod
    def from_json(cls, text):
        k, coverage, hashes, flat = json.loads(text)
        spans = None if flat is None else list(zip(flat[::2], flat[1::2]))
        return cls(hashes={h: where for h, where in hashes}, spans=spans, coverage=coverage,
                   k=k)

    def spanned(self, text):
        """These prints with the character span of every token of ``text`` (their file)."""
        if self.spans is None:
            self.spans = [span for _, _, span in _grouped(normalise(text))]
        return self


@dataclass
class Match:
    """How much of two files matched: shares of each file's fingerprinted tokens, the
    matched tokens (the smaller of the two counts) and the matched character spans."""

    share_a: float
    share_b: float
    tokens: int
    spans_a: list = field(default_factory=list)
    spans_b: list = field(default_factory=list)


# -- reading code into units of normalised tokens -------------------------------------
def _read_tree(tree):
    """``(bound names, string statements)`` of a module, in one walk: every name it binds
    (definitions, parameters, stored names and attributes, import aliases, globals), and
    the start positions ``(line, column)`` of its string statements (docstrings)."""
    names, strings = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if not isinstance(node.ctx, ast.Load):
                names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split('.')[0])
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
              and isinstance(node.value.value, str)):
            strings.add((node.lineno, node.col_offset))
    return names, strings


def _unit_lines(tree):
    """``[(first line, last line)]`` of each function and method (with its decorators)."""
    units = []
    for node in tree.body:
        members = node.body if isinstance(node, ast.ClassDef) else [node]
        for member in members:
            if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([member.lineno] + [d.lineno for d in member.decorator_list])
                units.append((first, member.end_lineno))
    return units


def _unit_lines_read(tokens):
    """``[(first line, last line)]`` of each top-level function of code that does not
    parse: from a ``def`` at the start of a line to the next statement that starts a line."""
    starts = [t.start[0] for t in tokens if t.start[1] == 0 and t.type not in _DROPPED
              and t.type not in _STRUCTURE]
    defs = {t.start[0] for t in tokens if t.start[1] == 0 and t.string in ('def', 'async')}
    ends = starts[1:] + [tokens[-1].start[0] + 1 if tokens else 1]
    return [(first, end - 1) for first, end in zip(starts, ends) if first in defs]


def _raw_tokens(text):
    """Python's tokens of ``text``; on code it cannot read to the end, those read so far."""
    out = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            out.append(token)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return out


def _line_starts(text):
    starts, at = [0], 0
    for line in text.splitlines(keepends=True):
        at += len(line)
        starts.append(at)
    return starts


def _renamable(name, before, bound):
    """Whether a copier could rename this name: any name but keywords, builtins (unless the
    file binds them) and attributes the file does not assign (``board.count``)."""
    if keyword.iskeyword(name):
        return False
    if before and before[-1][1] == '.':
        return name in bound
    return name not in _BUILTINS or name in bound


def normalise(text):
    """``[(unit number, token, (start, end))]`` of ``text``: the normalised tokens with
    their character spans, each in the unit (0: module code, else a function) it is in."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        tree = None
    bound, strings = _read_tree(tree) if tree else (set(), set())
    raw = _raw_tokens(text)
    units = _unit_lines(tree) if tree else _unit_lines_read(raw)
    starts = _line_starts(text)
    unit_of = [0] * (len(starts) + 2)
    for number, (first, last) in enumerate(units, 1):
        unit_of[first:last + 1] = [number] * (last + 1 - first)
    def offset(row, col):
        return starts[row - 1] + col if row - 1 < len(starts) else len(text)

    out, seen = [], {}
    for token, word, end in _significant(raw, strings):
        row, _ = token.start
        unit = unit_of[row] if row < len(unit_of) else 0
        if word is None and token.type == tokenize.NAME and _renamable(token.string, out, bound):
            names = seen.setdefault(unit, {})
            word = '#%d' % names.setdefault(token.string, len(names) + 1)
        begin = offset(*token.start)
        out.append((unit, word or token.string, (begin, max(begin + 1, offset(*end)))))
    return out


def _significant(raw, strings):
    """``(token, word, end)`` of the tokens that count: comments, blank lines and the
    string statements starting at ``strings`` (docstrings) dropped, each string (an
    f-string whole, as Python before 3.12 reads it) the word ``S``, block structure
    ``{`` ``}`` ``;``; else the word None."""
    depth, in_string, fstring = 0, False, None
    for token in raw:
        kind = token.type
        if depth:                       # inside an f-string (Python 3.12+): one token
            depth += (kind == _FSTRING_START) - (kind == _FSTRING_END)
            if not depth:
                yield fstring, 'S', token.end
            continue
        if kind in _DROPPED or (kind == tokenize.ERRORTOKEN and not token.string.strip()):
            continue
        if kind == tokenize.STRING and (token.start in strings or in_string):
            in_string = True            # a string statement (docstring), dropped whole
            continue
        if in_string and kind == tokenize.NEWLINE:
            in_string = False
            continue
        in_string = False
        if kind == _FSTRING_START:
            depth, fstring = 1, token
        elif kind == tokenize.STRING:
            yield token, 'S', token.end
        else:
            yield token, _STRUCTURE.get(kind), token.end


# -- fingerprints -------------------------------------------------------------------
def _kgram_hashes(words, k):
    return [int.from_bytes(hashlib.blake2b('\x1f'.join(words[i:i + k]).encode(),
                                           digest_size=8).digest(), 'little', signed=True)
            for i in range(len(words) - k + 1)]


def _by_unit(tokens):
    """``[(unit's words, their indexes)]``; ``tokens`` hold each unit's tokens together
    (see :func:`_grouped`)."""
    units = {}
    for index, (unit, word, _) in enumerate(tokens):
        units.setdefault(unit, ([], []))
        units[unit][0].append(word)
        units[unit][1].append(index)
    return units.values()


def _grouped(tokens):
    """The tokens unit by unit (module code first), each unit's in their order."""
    return sorted(tokens, key=lambda token: token[0])


def every_kgram(text, settings):
    """Every k-gram hash of ``text`` (for boilerplate: nothing of it is fingerprinted)."""
    return {h for words, _ in _by_unit(normalise(text)) for h in _kgram_hashes(words, settings.k)}


def fingerprint(text, settings, boilerplate=frozenset()):
    """The :class:`Prints` of ``text``, leaving out the hashes in ``boilerplate``."""
    import numpy  # with copydetect, in the batch extra
    from copydetect.utils import winnow  # the batch extra: MOSS-style winnowing

    tokens = _grouped(normalise(text))
    hashes, covered = {}, set()
    for words, indexes in _by_unit(tokens):
        grams = _kgram_hashes(words, settings.k)
        if not grams:
            continue
        chosen, where = winnow(numpy.array(grams, dtype=numpy.int64), settings.window,
                               remove_duplicates=False)
        for value, at in zip(chosen.tolist(), where.tolist()):
            if value in boilerplate:
                continue
            hashes.setdefault(value, []).append(indexes[at])
            covered.update(indexes[at:at + settings.k])
    return Prints(hashes=hashes, spans=[span for _, _, span in tokens], coverage=len(covered),
                  k=settings.k)


# -- comparing two files ------------------------------------------------------------------
def shared(a, b):
    """How many fingerprints two files share: the cheap first look at a pair."""
    small, large = (a, b) if len(a.hashes) <= len(b.hashes) else (b, a)
    return sum(1 for h in small.hashes if h in large.hashes)


def _covered(prints, common):
    tokens = set()
    for h in common:
        for start in prints.hashes[h]:
            tokens.update(range(start, start + prints.k))
    return tokens


def _char_spans(prints, tokens):
    """Matched tokens as merged ``[start, end]`` character spans of the file."""
    spans = []
    for index in sorted(tokens):
        start, end = prints.spans[index]
        if spans and tokens and index - 1 in tokens:
            spans[-1][1] = end
        else:
            spans.append([start, end])
    return spans


def compare(a, b):
    """The :class:`Match` of two files' :class:`Prints`."""
    common = a.keys & b.keys
    covered_a, covered_b = _covered(a, common), _covered(b, common)
    return Match(share_a=round(len(covered_a) / a.coverage, 4) if a.coverage else 0.0,
                 share_b=round(len(covered_b) / b.coverage, 4) if b.coverage else 0.0,
                 tokens=min(len(covered_a), len(covered_b)),
                 spans_a=_char_spans(a, covered_a), spans_b=_char_spans(b, covered_b))


def similar(text_a, text_b, settings=Settings(), template=''):
    """The :class:`Match` of two texts (the handout's ``template`` left out)."""
    boilerplate = every_kgram(template, settings) if template else frozenset()
    return compare(fingerprint(text_a, settings, boilerplate),
                   fingerprint(text_b, settings, boilerplate))
