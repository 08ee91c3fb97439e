"""The trusted runner inside the sandbox: it never executes student code.

This module is the sandbox's ``main``.  It reads a *hello* and the
submission's archive from the parent's private pipe, unpacks the archive
into the *pristine* folder (before the uid drop, so the files are not the
submission's to change), applies the runner's isolation layers
(:func:`grader.child.layers.apply_runner`), compiles the student module
and imports the exercise's probe and the standard modules the submission
uses.  Then it answers the parent's requests:

``load``
    fork a case process that executes the module under the import limits
    and reports what it defined (:func:`grader.child.case.run`);
``cut``
    the parent read the load: compile the module without the top-level
    statement where its import stopped, for every case after;
``call``
    fork a fresh case process for one probe request: every case starts
    from the same clean state, as right after import -- nothing kept in
    memory, in files (:meth:`Runner.reset` empties every folder a case may
    write in and puts the project back), or in another process by an
    earlier case;
``stop``
    kill the running case process (the parent saw it exceed its limit);
``exit``
    leave at once.

For each load and call the runner sends one reply: how the case process
ended (its reply, or its exit status or signal), its CPU time from the
kernel (``wait4``), and the case's own reply line as a string, which it
neither parses nor trusts.  A case process cannot imitate the runner: it
never holds the parent's channel.
"""
import builtins
import gc
import importlib
import ntpath  # noqa: F401 - loaded here: see below
import os
import select
import signal
import stat
import sys
import time

from grader.child import case, channel, files, layers, source, tally

# ``ntpath`` (which ``pathlib`` imports) is loaded in the runner, as it was when the runner
# loaded ``zipfile``: imported afresh in a case process, its ``from nt import ...`` meets the
# guard's refusal of fresh imports of process modules (grader.child.layers.FRESH_IMPORTS),
# a PermissionError where it expects an ImportError.
_fork = os.fork
"""The runner's own ``fork``: the stand-ins that refuse it to student code are put in
place in the runner (:func:`grader.child.layers.install_stand_ins`) before its first case."""
MAX_REPLY = 8 * 1024 * 1024
"""Largest reply line a case process may send (bytes)."""
GRACE = 0.5
"""Seconds a case process has to exit after writing its reply."""
SCAN_LIMIT = 2000
"""Entries the runner lists to tell whether a case left the private folders as it found them."""
CONTENT_LIMIT = 256 * 1024
"""Bytes of the private copy's files the runner reads back after each case to tell whether it
changed them, in files of at most :data:`FILE_CONTENT_LIMIT` bytes (the student's own; the
rest, such as data files a plug-in adds, are told by their size, times and inode)."""
FILE_CONTENT_LIMIT = 64 * 1024


def main():
    try:
        Runner(int(sys.argv[1]), int(sys.argv[2])).serve()
    except channel.Closed:
        os._exit(0)
    except BaseException:  # noqa: B036 - a runner failure: say what it was, on the real stderr
        import traceback  # only on a failure of the runner
        os.write(2, ('grader runner failed:\n' + traceback.format_exc()).encode('utf-8', 'replace'))
        os._exit(70)


def split_mark(data, total):
    """``(setup, rest)``: the CPU seconds a case process used before any student code ran
    (its first line, :func:`grader.child.case.mark`), and its output after that line.

    The mark is written before the module runs, so it is the runner's own
    process's word; without one (the process failed before it), or with one
    out of ``[0, total]``, the setup is 0 and the output is left whole.
    """
    if not data.startswith(case.MARK) or b'\n' not in data:
        return 0.0, data
    head, rest = data.split(b'\n', 1)
    try:
        setup = float(head[len(case.MARK):])
    except ValueError:
        return 0.0, data
    if not 0.0 <= setup <= total:
        return 0.0, rest
    return setup, rest


def replied(data):
    """Whether ``data`` holds a whole reply line (after the mark, when there is one)."""
    return data.count(b'\n') >= (2 if data.startswith(case.MARK) else 1)


def _add_site_builtins():
    """``exit()`` and ``quit()``, which the site module adds and ``python -S`` leaves out."""
    if not hasattr(builtins, 'exit'):
        import _sitebuiltins  # only under python -S
        eof = 'Ctrl-D (i.e. EOF)'
        builtins.exit = _sitebuiltins.Quitter('exit', eof)
        builtins.quit = _sitebuiltins.Quitter('quit', eof)


def remove_tree(path):
    """Remove ``path`` and everything under it without recursion (any depth); never raises.

    A symbolic link is removed, never followed; each folder is scanned once, after being
    made its owner's to read and change again (a case may have taken those rights away:
    the case processes and the runner share a uid).
    """
    try:
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            _unlink(path)
            return
    except OSError:
        return
    stack, scanned = [path], set()
    while stack:
        top = stack[-1]
        if top in scanned:
            try:
                os.rmdir(top)
            except OSError:
                pass
            stack.pop()
            continue
        scanned.add(top)
        try:
            os.chmod(top, 0o700)
            entries = list(os.scandir(top))
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
            else:
                _unlink(entry.path)


def _unlink(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def listing(path, limit=SCAN_LIMIT, content=CONTENT_LIMIT):
    """``{relative path: (size, mtime_ns, ctime_ns, inode, mode, content)}`` of a tree, or
    None past ``limit`` entries.

    ``content`` is the bytes of a regular file of at most :data:`FILE_CONTENT_LIMIT` bytes
    while the files read so far hold at most ``content`` bytes (None past that): a case
    that writes such a file and puts its size and times back (``os.utime``) within one tick
    of the kernel's clock, which its change time may not tell, still changes it.
    """
    found, stack, budget = {}, [''], [content]
    while stack:
        relative = stack.pop()
        try:
            entries = list(os.scandir(os.path.join(path, relative) if relative else path))
        except OSError:
            return None
        for entry in entries:
            name = os.path.join(relative, entry.name)
            if len(found) >= limit:
                return None
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                return None
            found[name] = (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino,
                           info.st_mode, _content(entry.path, info, budget))
            if entry.is_dir(follow_symlinks=False):
                stack.append(name)
    return found


def _content(path, info, budget):
    """The bytes of the regular file at ``path`` while ``budget[0]`` lasts, else None."""
    if not stat.S_ISREG(info.st_mode) or info.st_size > min(budget[0], FILE_CONTENT_LIMIT):
        return None
    budget[0] -= info.st_size
    try:
        with open(path, 'rb') as stream:
            return stream.read(info.st_size + 1)
    except OSError:
        return None


def copy_tree(source, target):
    """Copy the folder ``source`` to the new folder ``target`` as ``shutil.copytree(source,
    target, symlinks=True)`` does (links copied as links, modes and times kept), without
    recursion and without ``shutil``, which the runner does not load (see
    :meth:`Runner.unpack`)."""
    stack, folders = [(source, target)], []
    while stack:
        here, there = stack.pop()
        os.mkdir(there)
        folders.append((here, there))
        for entry in list(os.scandir(here)):
            to = os.path.join(there, entry.name)
            if entry.is_symlink():
                os.symlink(os.readlink(entry.path), to)
                _copy_times(entry.path, to, follow=False)
            elif entry.is_dir():
                stack.append((entry.path, to))
            else:
                _copy_file(entry.path, to)
                _copy_times(entry.path, to)
    for here, there in reversed(folders):     # a folder's times once its entries are made
        _copy_times(here, there)


def _copy_file(source, target):
    with open(source, 'rb') as reader, open(target, 'wb') as writer:
        while True:
            chunk = reader.read(1 << 20)
            if not chunk:
                return
            writer.write(chunk)


def _copy_times(source, target, follow=True):
    """``shutil.copystat`` without extended attributes (the pristine folder has none)."""
    info = os.stat(source, follow_symlinks=follow)
    os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns), follow_symlinks=follow)
    if follow:
        os.chmod(target, stat.S_IMODE(info.st_mode))


def emptied(folder, keep=None):
    """Remove everything in ``folder`` but the entry named ``keep``; whether it held more."""
    try:
        entries = os.listdir(folder)
    except OSError:
        return False
    others = [name for name in entries if name != keep]
    for name in others:
        remove_tree(os.path.join(folder, name))
    return bool(others)


class Runner:
    """The runner's state: the channel, the folders, the compiled module, the probe."""

    def __init__(self, read_fd, write_fd):
        self.parent = channel.Lines(read_fd)
        self.write_fd = write_fd
        self.token = None
        self.child = None
        self.module = None
        self.current = None

    def send(self, message):
        message['token'] = self.token
        channel.write_all(self.write_fd, channel.encode(message))

    # -- setting up ------------------------------------------------------
    def serve(self):
        hello = self.parent.message()
        self.token = hello['token']
        archive = self.parent.block(hello.get('archive_bytes', 0))
        self.paths = hello['paths']
        self.unpack(archive)
        # The counter, written out and loaded before the uid drop, where the submission
        # cannot write (see grader.child.tally).
        counter = os.path.join(os.path.dirname(self.paths['pristine'].rstrip('/')), 'counter')
        shipped = tally.unpack(counter)
        if not tally.load(shipped) and shipped is not None:
            # fail closed: a grade never runs without the counter the grader has
            self.send({'id': hello['id'], 'status': 'sandbox', 'error': tally.NOT_LOADED})
            return
        try:
            applied, self.case_filter = layers.apply_runner(hello.get('layers', {}))
        except Exception as exc:  # noqa: BLE001 - fail closed: no student code runs
            failed = f'{type(exc).__name__}: {exc}'
            self.send({'id': hello['id'], 'status': 'sandbox', 'error': failed})
            return
        _add_site_builtins()
        self.guards = bool(hello.get('layers', {}).get('audit-hook', True))
        self.options = hello.get('options', {})
        self.output_chars = hello.get('output_chars', 65536)
        self.module_path = os.path.join(self.paths['project'], hello['module'])
        self.root = self.paths['project'].rstrip('/') + '/'
        self.reset(force=True)
        runner = {'applied': applied, 'syntax_error': None, 'missing': []}
        self.stand_ins = {}
        self.compile_module(hello['module'], runner)
        try:
            self.probe = importlib.import_module(hello['probe'])
        except ImportError as exc:
            self.send({'id': hello['id'], 'status': 'sandbox',
                       'error': f"the probe {hello['probe']} could not be imported "
                                f'({channel.safe_text(exc)})'})
            return
        if self.guards:
            layers.install_stand_ins()
        # Once here rather than in every case process: what is done before the first
        # fork, each case process has without writing (and so copying) those pages.
        owned = frozenset().union(*(tally.codes_of(module) for module in
                                    (self.probe, *getattr(self.probe, 'OWNED', ()))))
        # The functions counted one by one, named here, before any student code runs.
        self.units = tuple(self.probe.units(self.options)) if hasattr(self.probe, 'units') \
            else ()
        tally.install(leaf=getattr(self.probe, 'LEAF', None), owned=owned,
                      sanctioned=getattr(self.probe, 'SANCTIONED', ()), extra_prefixes=[counter])
        # Every object so far goes to the collector's permanent generation: a case
        # process's collections then never walk (and copy, page by page) the runner's
        # memory, which made a case's CPU time vary by milliseconds.
        gc.collect()
        gc.freeze()
        self.send({'id': hello['id'], 'status': 'ok', 'runner': runner})
        self.answer()

    def compile_module(self, module, runner):
        """Study and compile the submission's ``module``; note in ``runner`` a syntax error
        and the modules it imports that are missing (each gets a stand-in)."""
        try:
            self.study = source.study(os.path.join(self.paths['pristine'], module))
            self.study.path = self.module_path
            self.study.code = compile(self.study.tree, self.module_path, 'exec', dont_inherit=True)
            self.code = self.study.code
            self.module = case.empty_module(self.module_path)
        except SyntaxError as exc:
            runner['syntax_error'] = f'syntax error at line {exc.lineno}: {exc.msg}'
            self.study = self.code = None
        except (OSError, ValueError) as exc:
            runner['syntax_error'] = f'the file could not be read ({channel.safe_text(exc)})'
            self.study = self.code = None
        if self.study is None:
            return
        own = source.own_modules(os.path.dirname(os.path.join(self.paths['pristine'], module)))
        preimport, missing = source.classify(self.study, own)
        for name in preimport:
            try:
                __import__(name)
            except Exception:  # noqa: BLE001,S110 - the case process imports it then
                pass
        for name, line, used in missing:
            self.stand_ins[name] = source.stand_in_module(name, line)
            runner['missing'].append({'name': name, 'line': line, 'used': used})

    def answer(self):
        """Serve the parent's requests until it says ``exit``."""
        while True:
            request = self.parent.message()
            op = request.get('op')
            if op == 'exit':
                os._exit(0)
            elif op == 'cut':
                self.cut(request['line'])
            elif op in ('load', 'call'):
                self.send(self.case(request))

    def unpack(self, archive):
        """The submission's files (:mod:`grader.child.files`) into the pristine folder (not
        writable by the sandbox uid).

        Read with builtins only: ``zipfile``, and the modules it loads (``threading``,
        ``shutil``'s compressors, ``pathlib``), never load in the runner, whose every fork
        copies what it holds, and whose case processes would each run ``threading``'s
        after-fork hook (about 0.2 ms and 90 pages written).
        """
        pristine = self.paths['pristine']
        remove_tree(pristine)   # a runner started again in the same private folder
        os.makedirs(pristine)
        try:
            files.write_into(archive, pristine, channel.write_all)
        except OSError as exc:
            raise OSError(f'the submission archive could not be unpacked ({exc})') from None
        for top, folders, names in os.walk(pristine):
            for name in folders:
                os.chmod(os.path.join(top, name), 0o755)
            for name in names:
                os.chmod(os.path.join(top, name), 0o644)

    def reset(self, force=False):
        """Put back the state every case starts from: the project folder a fresh copy of the
        pristine one, and every scratch folder (``/tmp``, the home folder but the project,
        ``/dev/shm`` in the namespaces) empty.

        Nothing a case writes there is seen by the next.  The copy is made again only
        when a listing (file contents included, :func:`listing`) shows the case changed
        the project.
        """
        project = self.paths['project']
        home, project_name = os.path.split(project.rstrip('/'))
        for folder in self.paths.get('scratch', ()):
            emptied(folder, keep=project_name if folder.rstrip('/') == home else None)
        if not force and self.current is not None and listing(project) == self.current:
            return
        remove_tree(project)
        copy_tree(self.paths['pristine'], project)
        self.current = listing(project)

    def cut(self, line):
        if self.study is not None and line:
            self.code, _ = source.truncated(self.study, line)

    # -- one case ----------------------------------------------------------
    def case(self, request):
        """Fork a case process for ``request``; the reply describing how it ended."""
        reply = {'id': request['id']}
        if self.code is None:
            reply.update(status='sandbox', error='nothing to run: the module did not compile')
            return reply
        try:
            self.reset()
        except OSError as exc:
            reply.update(status='sandbox', error=f'the private copy could not be reset: {exc}')
            return reply
        # The input goes into the counter's C memory, out of every Python object the case
        # process starts with: code the submission runs at import cannot read it.
        payload = request.pop('payload', None)
        # Watched (every frame seen once the input is given) only where something is counted.
        counted = bool(getattr(self.probe, 'COUNTED', False)) and \
            not (isinstance(payload, dict) and payload.get('count') is False)
        # A search is stopped past the expansions the probe reads in its input (0: never).
        limit = self.probe.stop_after(payload) if counted and hasattr(self.probe, 'stop_after') \
            else 0
        if tally.hold(payload, self.units if counted else (), limit):
            payload = tally.HELD
        job = {'id': request['id'], 'op': request['op'], 'payload': payload,
               'limit': request.get('limit', 5.0), 'wall': request.get('wall', 20.0),
               'cpu_rlimit': request.get('limit', 5.0) * 1.5 + 1, 'guards': self.guards,
               'module_path': self.module_path, 'root': self.root, 'code': self.code,
               'project': self.paths['project'], 'options': self.options,
               'output_chars': self.output_chars, 'stand_ins': self.stand_ins,
               'runner': os.getpid(), 'module': self.module,
               'counted': counted}
        read_fd, write_fd = os.pipe()
        pid = _fork()
        if pid == 0:
            os.close(read_fd)
            case.run(job, write_fd, self.case_filter, self.probe)
        os.close(write_fd)
        try:
            reply.update(self.wait(pid, read_fd, request.get('wall', 20.0) + 2 * GRACE))
        finally:
            os.close(read_fd)
        return reply

    def wait(self, pid, read_fd, wall):
        """Collect the case process's reply and its end; kill it on ``stop`` or past ``wall``."""
        data, stopped, replied_at, ended = self.collect(pid, read_fd, wall)
        counted, reaped = None, None
        if not stopped:
            # A case process that answered stops itself: its tally is read here, from its
            # memory, while it cannot run (see grader.child.tally).
            done, status, usage = os.wait4(pid, os.WUNTRACED | (0 if ended else os.WNOHANG))
            if done == pid and os.WIFSTOPPED(status):
                counted = tally.read(pid)
            elif done == pid:
                reaped = status, usage
        if reaped is None:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            _, status, usage = os.wait4(pid, 0)
        else:
            status, usage = reaped
        self.reap_strays()
        total = usage.ru_utime + usage.ru_stime
        setup, data = split_mark(bytes(data), total)
        result = {'cpu': total - setup, 'setup_cpu': setup, 'tally': counted}
        line = data.split(b'\n', 1)[0]
        if stopped in ('stop', 'wall'):
            result.update(status='stopped', reason=stopped)
        elif len(data) > MAX_REPLY:
            result.update(status='overflow')
        elif line and (replied_at is not None):
            result.update(status='replied', reply=line.decode('utf-8', 'replace'))
        elif os.WIFSIGNALED(status):
            result.update(status='signaled', signal=os.WTERMSIG(status))
        else:
            result.update(status='exited', code=os.WEXITSTATUS(status) if os.WIFEXITED(status)
                          else None)
        return result

    def collect(self, pid, read_fd, wall):
        """Read the case process's output until it closes its end, the parent says ``stop``,
        ``wall`` seconds pass, or a grace period after its reply line:
        ``(data, stopped, replied_at, ended)``."""
        data, stopped, deadline = bytearray(), None, time.monotonic() + wall
        open_fds = [read_fd, self.parent.fd]
        replied_at = None
        while read_fd in open_fds:
            now = time.monotonic()
            limit = deadline if replied_at is None else min(deadline, replied_at + GRACE)
            if now >= limit:
                stopped = stopped or ('wall' if replied_at is None else None)
                break
            ready, _, _ = select.select(open_fds, [], [], limit - now)
            if self.parent.fd in ready and self.stop_requested(pid):
                stopped = 'stop'
                break
            if read_fd in ready:
                chunk = os.read(read_fd, 1 << 16)
                if not chunk:
                    open_fds.remove(read_fd)
                elif len(data) <= MAX_REPLY:
                    data += chunk
                    if b'\n' in chunk and replied_at is None and replied(data):
                        replied_at = time.monotonic()
        return data, stopped, replied_at, read_fd not in open_fds

    def stop_requested(self, pid):
        """Read the parent's message while a case runs: True for ``stop``; on ``exit`` the
        case process is killed and the runner ends."""
        request = self.parent.message()   # only 'stop' comes while a case runs
        if request.get('op') == 'exit':
            os.kill(pid, signal.SIGKILL)
            os._exit(0)
        return request.get('op') == 'stop'

    @staticmethod
    def reap_strays():
        """Reap any other ended child (a process a case left, re-parented here)."""
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
