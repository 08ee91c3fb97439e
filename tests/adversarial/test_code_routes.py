"""No memory primitive reaches a case process: only the compiler makes its code objects.

A code object whose ``LOAD_CONST`` indexes past its constants (``EXTENDED_ARG`` carries
the index) reads a pointer from wherever that slot lands: with a fake ``bytearray`` laid
out inside a ``bytes`` object, the whole address space is read and written from pure
Python, the counter's tallies with it.  Each route to such a code object is tried in a
sealed case process -- its constructor, ``code.replace``, pickle's reduce to the
constructor, ``marshal.loads``, a ``.pyc`` written at run time to a folder put on
``sys.path`` (sourceless, and in ``__pycache__`` beside a source), a ``.pyc`` inside a zip on
``sys.path``, and each of them at import -- and each must be refused with the counter's
``PermissionError``.  The crafted code is never run: were it made, the test fails on that.

Honest code keeps working: the standard library's own byte-code still loads (a module no
runner imported), ``compile``/``exec`` of source text, namedtuples and dataclasses, and a
hand-in that ships its own ``__pycache__`` beside a helper module (compiled from source).
"""
import ast
import textwrap

import pytest

from grader import instruments
from grader.child import tally
from grader.sandbox import layers
from grader.sandbox.session import Session

ISOLATION = layers.detect()

ROUTES = '''
import dis, importlib, marshal, os, pickle, sys, types, zipfile

REFUSED = 'not available while grading'


def crafted_bytes():
    """LOAD_CONST 0x7fff (far past the constants), then RETURN_VALUE."""
    op = dis.opmap
    return bytes([op['EXTENDED_ARG'], 0x7f, op['LOAD_CONST'], 0xff,
                  op.get('RETURN_VALUE', op.get('RETURN_CONST', 83)), 0])


def base():
    return (lambda: None).__code__


def constructor_args(code, raw):
    """CodeType's arguments for this Python: ``code`` with ``raw`` as its byte-code."""
    head = [code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount,
            code.co_nlocals, code.co_stacksize, code.co_flags, raw, (), code.co_names,
            code.co_varnames, code.co_filename, code.co_name]
    if sys.version_info >= (3, 11):
        return head + [code.co_qualname, code.co_firstlineno, code.co_linetable,
                       code.co_exceptiontable, (), ()]
    table = code.co_linetable if sys.version_info >= (3, 10) else code.co_lnotab
    return head + [code.co_firstlineno, table, (), ()]



def by_replace():
    return base().replace(co_code=crafted_bytes(), co_consts=())


def by_constructor():
    return types.CodeType(*constructor_args(base(), crafted_bytes()))


def by_pickle():
    """A pickle whose REDUCE calls ``types.CodeType`` (found by name, as any pickle may)."""
    args = pickle.dumps(tuple(constructor_args(base(), crafted_bytes())), protocol=0)
    return pickle.loads(b'ctypes\\nCodeType\\n' + args[:-1] + b'R.')


def by_marshal():
    return marshal.loads(marshal.dumps(compile('1', 'x', 'eval')))


def pyc_image(source):
    """A .pyc of ``source`` with an unchecked hash (no source date to compare)."""
    import importlib.util
    code = compile(source, 'made.py', 'exec')
    return (importlib.util.MAGIC_NUMBER + (1).to_bytes(4, 'little') + bytes(8)
            + marshal.dumps(code))


def fresh_folder(name):
    folder = os.path.join('/tmp', name)
    os.makedirs(folder, exist_ok=True)
    return folder


def by_sourceless_pyc():
    folder = fresh_folder('sourceless')
    with open(os.path.join(folder, 'made_sourceless.pyc'), 'wb') as f:
        f.write(pyc_image('X = 1'))
    sys.path.insert(0, folder)
    return importlib.import_module('made_sourceless')


def by_pycache():
    folder = fresh_folder('cached')
    with open(os.path.join(folder, 'made_cached.py'), 'w') as f:
        f.write('X = 1\\n')
    os.makedirs(os.path.join(folder, '__pycache__'), exist_ok=True)
    tag = sys.implementation.cache_tag
    with open(os.path.join(folder, '__pycache__', f'made_cached.{tag}.pyc'), 'wb') as f:
        f.write(pyc_image('X = 2'))
    sys.path.insert(0, folder)
    return importlib.import_module('made_cached')


def by_zip():
    path = os.path.join(fresh_folder('zipped'), 'made.zip')
    with zipfile.ZipFile(path, 'w') as archive:
        archive.writestr('made_zipped.pyc', pyc_image('X = 3'))
    sys.path.insert(0, path)
    return importlib.import_module('made_zipped')


ROUTES = {'replace': by_replace, 'constructor': by_constructor, 'pickle': by_pickle,
          'marshal': by_marshal, 'sourceless pyc': by_sourceless_pyc,
          'pycache pyc': by_pycache, 'zipped pyc': by_zip}


def attempt(route):
    try:
        ROUTES[route]()
    except BaseException as error:
        chain = [error, error.__cause__, error.__context__]
        if any(e is not None and REFUSED in str(e) for e in chain):
            return 'refused'
        return f'{type(error).__name__}: {str(error)[:60]}'
    return 'made'


AT_IMPORT = {route: attempt(route) for route in ('replace', 'constructor', 'marshal',
                                                  'sourceless pyc')}


def _functions():
    """``during_<n>`` and ``at_import_<n>``: one route each (short replies)."""
    for n, route in enumerate(ROUTES):
        globals()[f'during_{n}'] = lambda route=route: repr(attempt(route))
        if route in AT_IMPORT:
            globals()[f'at_import_{n}'] = lambda route=route: repr(AT_IMPORT[route])


_functions()


def honest():
    import collections, dataclasses
    import decimal                   # standard byte-code the runner never imported
    found = {'decimal': decimal.Decimal('1.5') + 1 == decimal.Decimal('2.5')}
    exec(compile('Y = 6 * 7', 'made.py', 'exec'), found)
    Point = collections.namedtuple('Point', 'x y')

    @dataclasses.dataclass
    class Pair:
        a: int
        b: int = 2
    found.update(compiled=found.pop('Y') == 42, namedtuple=Point(1, 2).y == 2,
                 dataclass=Pair(1).b == 2)
    found.pop('__builtins__', None)
    return repr(found)
'''


def case_session(tmp_path, module_text, **files):
    folder = tmp_path / 'sub'
    folder.mkdir()
    (folder / 'tictactoe.py').write_text(textwrap.dedent(module_text))
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    return Session(folder, 'tictactoe.py', 'grader.child.selftest', isolation=ISOLATION)


def value(reply):
    """What the function returned: the text of a ``repr``, read back."""
    assert reply.ok, (reply.status, reply.error)
    return ast.literal_eval(ast.literal_eval(reply.observation['value']['repr']))


@pytest.fixture(autouse=True)
def counter_built():
    if not tally.loaded() and not tally.load(None):
        pytest.skip(instruments.missing_counter_line(official=False))


def test_every_route_to_a_crafted_code_object_is_refused(tmp_path):
    names = ['replace', 'constructor', 'pickle', 'marshal', 'sourceless pyc', 'pycache pyc',
             'zipped pyc']
    with case_session(tmp_path, ROUTES) as box:
        assert box.start().ok
        during = {name: value(box.call({'function': f'during_{n}'}, 20))
                  for n, name in enumerate(names)}
        at_import = {name: value(box.call({'function': f'at_import_{n}'}, 20))
                     for n, name in enumerate(names[:5]) if name != 'pickle'}
    assert during == dict.fromkeys(names, 'refused')
    assert at_import == dict.fromkeys(at_import, 'refused') and len(at_import) == 4


def test_honest_code_objects_still_come_from_the_compiler(tmp_path):
    with case_session(tmp_path, ROUTES) as box:
        assert box.start().ok
        found = value(box.call({'function': 'honest'}, 20))
    assert found == {'compiled': True, 'dataclass': True, 'decimal': True, 'namedtuple': True}


HELPED = '''
import helpers


def answer():
    return repr(helpers.VALUE)
'''


def test_a_hand_in_with_its_own_pycache_imports_its_helpers_from_source(tmp_path):
    """Students zip their ``__pycache__``: its .pyc files are never read, the helper module is
    compiled from its source (a .pyc saying otherwise changes nothing)."""
    import importlib.util
    import marshal
    import sys
    image = (importlib.util.MAGIC_NUMBER + (1).to_bytes(4, 'little') + bytes(8)
             + marshal.dumps(compile('VALUE = "from the pyc"', 'helpers.py', 'exec')))
    tag = sys.implementation.cache_tag
    files = {'helpers.py': b'VALUE = "from the source"\n',
             f'__pycache__/helpers.{tag}.pyc': image,
             f'__pycache__/tictactoe.{tag}.pyc': image}
    with case_session(tmp_path, HELPED, **files) as box:
        assert box.start().ok
        assert value(box.call({'function': 'answer'}, 20)) == 'from the source'


REACH = '''
import gc, sys

REFUSED = 'not available while grading'


def _refused(call):
    try:
        call()
    except PermissionError as error:
        return REFUSED in str(error) or 'sealed' in str(error)
    except BaseException:
        return False
    return False


def reach():
    from grader.child import tally
    found = {
        'layout': _refused(lambda: tally._ext[0].layout()) if tally._ext else True,
        'address dropped': not tally._layout,
        'not in sys.modules': 'grader.child._tally' not in sys.modules,
        'gc.get_objects': _refused(gc.get_objects),
        'gc.get_referents': _refused(lambda: gc.get_referents(tally)),
        'gc.get_referrers': _refused(lambda: gc.get_referrers(tally)),
        'maps': _refused(lambda: open('/proc/self/maps').read()),
        'smaps': _refused(lambda: open('/proc/self/smaps').read()),
        'pagemap': _refused(lambda: open('/proc/self/pagemap', 'rb').read(8)),
    }
    return repr(sorted(name for name, closed in found.items() if not closed))
'''


def test_nothing_of_the_process_hands_out_the_counters_address(tmp_path):
    """Defence in depth (no memory primitive is the defence): once sealed, ``layout()``
    refuses and the case process keeps no copy of the block's address, the extension is not
    in ``sys.modules``, the collector's walks are refused, and so are the files of /proc
    that map the process's memory."""
    with case_session(tmp_path, REACH) as box:
        assert box.start().ok
        still_open = value(box.call({'function': 'reach'}, 20))
    assert still_open == []
