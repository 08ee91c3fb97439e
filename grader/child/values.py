"""Turning whatever student code returned into plain JSON data (child side).

Nothing here calls a method the student's objects could override: values are
read through the base types' own methods, so an ``int`` subclass whose
``__eq__`` lies is reported by its true value, and an arbitrary object only
by its type name.
"""
import math

LARGEST = 10 ** 15
"""Larger integers are reported by kind only (no exercise has values anywhere near)."""


def type_name(value):
    try:
        name = type.__getattribute__(type(value), '__name__')
    except Exception:  # noqa: BLE001 - a hostile metaclass
        return 'object'
    return str.__str__(name)[:100] if isinstance(name, str) else 'object'


def plain(value):
    """``{'kind': ..., 'value': ...}`` for one returned value."""
    if value is None:
        return {'kind': 'none'}
    if isinstance(value, bool):
        return {'kind': 'bool', 'value': bool(int.__int__(value))}
    if isinstance(value, int):
        exact = type(value) is int
        number = int.__int__(value)
        if abs(number) > LARGEST:
            return {'kind': 'other', 'type': 'a very large int'}
        return {'kind': 'int' if exact else 'int-subclass', 'value': number,
                'type': type_name(value)}
    if isinstance(value, float):
        number = float.__float__(value)
        if math.isfinite(number) and number == int(number) and abs(number) <= LARGEST:
            return {'kind': 'int', 'value': int(number), 'type': 'float'}
        return {'kind': 'float', 'repr': repr(number) if math.isfinite(number) else str(number)}
    if isinstance(value, str):
        return {'kind': 'str', 'repr': repr(str.__str__(value))[:80]}
    return {'kind': 'other', 'type': type_name(value)}


def items(value, limit=16):
    """The items of a tuple or list (subclasses read by the base methods), else None."""
    for base in (tuple, list):
        if isinstance(value, base):
            n = base.__len__(value)
            return [base.__getitem__(value, i) for i in range(min(n, limit))], n
    return None, 0


def plain_sequence(value, limit=16):
    """A returned tuple/list as plain data: ``{'shape': 'sequence', ...}``."""
    seq, n = items(value, limit)
    if seq is None:
        return {'shape': 'single', 'item': plain(value)}
    return {'shape': 'sequence', 'length': n, 'items': [plain(x) for x in seq]}


def plain_str_list(value, length, allowed):
    """A list of one-character strings (a board), with '?' for anything else."""
    seq, n = items(value, length + 1)
    if seq is None or n != length:
        return None
    return [str.__str__(x) if type(x) is str and x in allowed else '?' for x in seq]
