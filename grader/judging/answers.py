"""Reading what a call returned, as :mod:`grader.child.values` reports it.

A returned value comes as plain data (:data:`grader.judging.shapes.PLAIN_ITEM`,
:data:`~grader.judging.shapes.PLAIN_SEQUENCE`): its kind, and its value for
numbers, its ``repr`` for floats and strings, or its type name.  These
functions put it in words and read the pair ``(value, move)`` a game search
returns; the sentences that name the exercise's own API are the judge's.
"""
import math
from dataclasses import dataclass

PAIR_PROBLEMS = ('none', 'number', 'other', 'length', 'value')
"""What can be wrong with a pair, in the order :func:`read_pair` tests it:
None came back, a bare number, another single thing, a sequence not of two
items, a first item that is not a whole number."""


def item_text(item):
    """One returned value, short: ``None``, ``3``, ``'x'``, ``list``."""
    if item['kind'] == 'none':
        return 'None'
    if 'value' in item:
        return str(item['value'])
    return item.get('repr') or item.get('type') or item['kind']


def type_text(item):
    """One returned value, by its number or else only its type: ``None``, ``3``, ``str``."""
    if item['kind'] == 'none':
        return 'None'
    if 'value' in item:
        return str(item['value'])
    return item.get('type') or item['kind']


def describe_item(item):
    """One returned value in a sentence: ``None``, ``3``, ``1.5``, ``a list``."""
    kind = item.get('kind')
    if kind in ('none', 'int', 'bool', 'float', 'str'):
        return item_text(item)
    return f"a {item.get('type', kind)}"


def returned_text(result, text_of=item_text):
    """A returned result (single or sequence), short: ``(3, 4)``, ``None``, ``(1, 2, ...)``.

    ``text_of`` puts one value in words (:func:`item_text`, or :func:`type_text`
    to show no text the submission chose).
    """
    if result.get('shape') != 'sequence':
        return text_of(result['item'])
    text = ', '.join(text_of(item) for item in result['items'])
    return f'({text})' if result['length'] <= len(result['items']) else f'({text}, ...)'


def plain_number(item):
    """The number a returned value is (a float), or None for anything else."""
    if item.get('kind') in ('int', 'int-subclass'):
        return float(item['value'])
    if item.get('kind') == 'float':
        value = float(item['repr'])
        return value if math.isfinite(value) else None
    return None


def truth(item):
    """The truth value a comparison returned (True/False, or a plain int), else None."""
    if item.get('kind') == 'bool':
        return item['value']
    if item.get('kind') == 'int' and item.get('type') == 'int':
        return bool(item['value'])
    return None


@dataclass
class Pair:
    """The pair ``(value, move)`` read from a result, and what is wrong with it.

    ``problem`` is one of :data:`PAIR_PROBLEMS` or None; ``detail`` is what
    a sentence about it names (the number, the type, the length).  ``value``
    is set for a bare number too (a check on the value alone may use it);
    ``move`` is None when the second item is not a whole number.
    """

    value: object = None
    move: object = None
    problem: str = None
    detail: object = None

    def sentence(self, words):
        """The problem in the exercise's ``words`` (``{problem: format}``, ``{detail}`` filled)."""
        return words[self.problem].format(detail=self.detail) if self.problem else None


def read_pair(result):
    """The :class:`Pair` a search returned in ``result`` (a plain sequence)."""
    if result['shape'] == 'single':
        item = result['item']
        if item['kind'] == 'none':
            return Pair(problem='none')
        if item['kind'] == 'int':
            return Pair(value=item['value'], problem='number', detail=item['value'])
        return Pair(problem='other', detail=item.get('type', item['kind']))
    items = result['items']
    if result['length'] != 2 or len(items) != 2:
        return Pair(problem='length', detail=result['length'])
    first, second = items
    if first['kind'] != 'int':
        return Pair(problem='value', detail=first.get('type', first['kind']))
    return Pair(first['value'], second['value'] if second['kind'] == 'int' else None)
