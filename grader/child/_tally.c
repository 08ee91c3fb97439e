/* The search counter of a case process, written in C (grader.child._tally).
 *
 * Contract (see grader/child/tally.py for the Python side):
 *
 * - install(trampoline, leaf, owned, prefixes, library, callers, sanctioned) -- once, in
 *   the runner, before any student code exists: a C audit hook (it cannot be removed).
 * - given() -- once, in a case process, from the grader's frames only: the case's input
 *   (held in C by hold(), in the runner), and from then on a C frame-evaluation hook
 *   (PEP 523) that sees every frame of this thread.  No Python code can set or remove it;
 *   sys.setprofile/settrace are refused all the same (a trace function could rewrite a
 *   frame's locals or jump in its code).
 * - seal() -- once, in each case process, before the student module runs: from
 *   then on the audit hook refuses ctypes, opening a "mem" file (a process's
 *   memory), links, and extension modules from outside the Python installation;
 *   and no function of this module changes anything any more.
 * - layout() -- (address, size) of the tally block.  The runner reads the block
 *   itself from the stopped case process (/proc/PID/mem): the block lives in C
 *   memory that no Python code of the case process can write, and its contents
 *   never pass through code the submission could patch.
 *
 * What is counted: while a frame of ``trampoline`` is running (one *run* of a
 * search), every Python frame started on this thread.  A code object (code
 * objects with the same bytecode count as one) that is started again while a
 * frame of it is still running is *recursive*, and so is every code object
 * on the stack between the two frames (mutual recursion).  A run's ``nodes``
 * are the calls of its recursive code objects, whatever their names, files or
 * how they are reached (lambdas, closures, exec'd code, callables in
 * containers, the grader's own functions).  ``calls`` are all the frames
 * started.  ``leaves`` are the frames of the ``leaf`` code object.  ``unit``
 * counts the calls of the submission's functions of each name hold() was given
 * (the eight puzzle's FindNextStates and heuristics); the first run's calls of
 * the first name also note the state they were handed (``state``).  Flags say
 * what makes a run's count untrustworthy (see the FLAG_ constants).
 *
 * A unit's name may carry a role (``role:name``) and an owner (``Owner.name``: the call's
 * first argument is an instance of a class of that name, or of a subclass).  The roles
 * count a route planner's *expansions* (see grader/exercises/travel/probe.py for the
 * rule): ``listing`` (a stop's neighbours listed: the stop code is the argument ``code``,
 * else the second), ``transition`` (``fastest_transition``: ``from_code``, ``dest_code``,
 * ``current_time``, else the second to fourth) and ``made`` (a state made from the state
 * passed as ``previous``, else the fourth argument: each distinct one is an expansion).
 * The stop mappings of the network are also replaced by ``neighbours`` objects (a dict
 * whose listing -- iteration, keys, items, values -- is a ``listing`` event of its stop).
 * A run's ``events`` and ``states`` are the two counts; past ``limit`` (hold()) of either,
 * every further event raises ``Stopped`` (a BaseException) in the search.  The first run
 * notes its expansions in order (stop code as a hash of its text, and clock time).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <frameobject.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <errno.h>
#include <limits.h>
#include <time.h>
#include <unistd.h>
#include <stdlib.h>
#include <math.h>

/* How the counter sees frames.
 *
 * Python 3.9-3.13: a frame-evaluation hook (PEP 523, see evaluate()): every frame the
 * interpreter evaluates passes through it.  From 3.11 on its frames are the interpreter's
 * own (struct _PyInterpreterFrame, from its internal header), before, frame objects.
 * Python 3.13 runs the __init__ of a specialised class call (CALL_ALLOC_AND_ENTER_INIT)
 * inside the caller's evaluation, past any hook: there the hook takes each class's version
 * tag away, which that specialisation needs (see unversion()).
 *
 * Python 3.11.0-3.11.3 run a subscript specialised for a class's __getitem__
 * (BINARY_SUBSCR_GETITEM) inside the caller's evaluation, past any hook (CPython gh-104405,
 * mended in 3.11.4): there the counter, when it is loaded, first leaves that
 * specialisation no function to take (see spend_versions()).
 *
 * A profile function (see profile()), on frame objects, serves from 3.11 on where the
 * interpreter's internal headers are not installed (or where the build defines
 * TALLY_NO_HOOK). */
#if PY_VERSION_HEX >= 0x030B0000 && !defined(TALLY_NO_HOOK) && defined(__has_include)
#  if !__has_include(<internal/pycore_frame.h>)
#    define TALLY_NO_HOOK 1
#  endif
#endif
#if (PY_VERSION_HEX >= 0x030B0000 && defined(TALLY_NO_HOOK))
#  define BY_PROFILE 1
typedef PyFrameObject frame_t;
#elif PY_VERSION_HEX >= 0x030B0000
#  define Py_BUILD_CORE 1
#  include <internal/pycore_frame.h>
#  undef Py_BUILD_CORE
typedef struct _PyInterpreterFrame frame_t;
#else
typedef PyFrameObject frame_t;
#endif

#define MAGIC 0x31796c6c61745fULL      /* "_tally1" */
#define SLOTS 64
#define MAX_STACK 200000
#define UNITS 4                /* functions counted by name (hold()'s units) */
#define RECORDED 8192          /* states handed to the first unit, in the first run */
#define ORDERED 6000           /* expansions noted in order (the first run) */
#define MAX_DESTS 512          /* neighbours asked for within one expansion */
#define ROLE_PLAIN 0
#define ROLE_LISTING 1
#define ROLE_TRANSITION 2
#define ROLE_MADE 3

/* Flags of a run (slot) or of the whole process (block.flags). */
#define FLAG_HOOK 1u           /* sys.setprofile / sys.settrace tried */
#define FLAG_NESTED 2u         /* the trampoline entered while a run was going on */
#define FLAG_CODE_MADE 4u      /* compile / exec / code objects made during a run */
#define FLAG_UNNAMED 8u        /* recursion through lambdas/comprehensions only */
#define FLAG_GENERATOR 16u     /* a generator resumed inside itself (recursive generators) */
#define FLAG_THREAD 32u        /* a thread started during a run */
#define FLAG_GRADER_CODE 64u   /* the grader's own rules called outside the leaf function */
#define FLAG_OVERFLOW 128u     /* more runs, or deeper stacks, than the block holds */
#define FLAG_REFUSED 256u      /* a refused operation was tried (ctypes, mem, links, ...) */
#define FLAG_MISMATCH 512u     /* frame events that do not pair up */
#define FLAG_FOREIGN 1024u     /* the trampoline entered from code that is not the grader's */
#define FLAG_OUTSIDE 2048u     /* the submission's code ran outside a run, once the input was given */
#define FLAG_THREADS 4096u     /* another thread was alive when the input was given */

typedef struct {
    uint64_t nodes, calls, leaves, max_depth, recursive, flags, closed, spare;
    uint64_t unit[UNITS];      /* calls of each unit (by name), this run */
    uint64_t events, states, listings, stopped;   /* the route planner's expansions */
} slot_t;

typedef struct {
    uint64_t magic, size, runs, flags, sealed, pid;
    uint64_t others_ns;        /* CPU of the other threads from the input given to the last run's end */
    uint64_t main_ns;          /* CPU of this thread over the same time */
    slot_t slot[SLOTS];
    uint64_t recorded;         /* states noted in state[] (the first run, first unit) */
    uint64_t unread;           /* calls of the first unit whose state could not be read */
    uint32_t state[RECORDED];  /* each as the number its nine tiles spell (123456780) */
    uint64_t ordered;          /* expansions noted in order (the first run) */
    uint64_t order_code[ORDERED];   /* the stop code's hash (FNV-1a of its UTF-8), 0: not text */
    double order_time[ORDERED];     /* the clock time, NaN: not known */
    uint64_t made_ordered;     /* states made from, noted in order (the first run) */
    uint64_t made_code[ORDERED];    /* the stop code's hash of the state made from, 0: unknown */
    double made_time[ORDERED];      /* its clock time, NaN: not known */
} block_t;

static block_t block = {MAGIC, sizeof(block_t), 0, 0, 0, 0, 0, 0, {{0}}, 0, 0, {0}, 0, {0}, {0},
                        0, {0}, {0}};

typedef struct {
    PyObject *code;            /* strong reference while the run lasts */
    uint64_t hash;
    Py_ssize_t length;
    int canon;                 /* entry whose statistics this code shares */
    uint64_t calls;
    int64_t active;
    unsigned char marked, named, generator, owned, library, sanctioned;
    unsigned char unit;        /* 1 + the index of its name in units, or 0 */
    unsigned char owner_checked;   /* the unit's owner was checked on a call */
    unsigned char args_found;      /* where its role's arguments are, found (arg_at) */
    signed char arg_at[4];         /* the role's arguments' positions (-1: none) */
    PyObject *arg_name[4];         /* and their names */
} entry_t;

static entry_t *entries = NULL;
static int n_entries = 0, cap_entries = 0;
static int *table = NULL;      /* open addressing: code pointer -> entry index + 1 */
static size_t table_cap = 0;
static int *stack = NULL;      /* canonical entry indices of running frames */
static unsigned char *stack_ctx = NULL;   /* 1: the grader's own code may run here */
static int depth = 0, cap_stack = 0;
static int running = 0;        /* inside a run */
static uint64_t run_flags = 0;

static PyObject *trampoline = NULL, *leaf = NULL, *owned = NULL, *prefixes = NULL;
static PyObject *sanction = NULL;  /* grader code the search may call: the grader's code under it is fine */
static PyObject *library = NULL;   /* filename prefixes of the standard library */
static PyObject *bytecode_reader = NULL;  /* importlib's _compile_bytecode: its code object */
static PyObject *trusted = NULL;   /* the grader's code objects that may start a run */
static char *held = NULL;          /* the case's input, held in C until it is given */
static Py_ssize_t held_length = 0;
static PyObject *units = NULL;     /* names of the functions counted by name (hold()) */
static PyObject *unit_names = NULL;    /* the code names of the units (role and owner taken off) */
static PyObject *unit_owner[UNITS];    /* the class name a unit's first argument has, or NULL */
static int unit_role[UNITS];
static uint64_t limit = 0;         /* expansions after which a run is stopped (0: none) */
static PyObject *StoppedError = NULL;
/* The current expansion of a run (the route planner's roles). */
static int cur_has = 0, cur_timed = 0, quiet = 0;
static uint64_t cur_code = 0;
static double cur_time = 0;
static uint64_t dests[MAX_DESTS];
static int n_dests = 0;
static uintptr_t *made = NULL;     /* the distinct previous states of this run (addresses) */
static size_t made_cap = 0, made_n = 0;
static int64_t unit_active[UNITS]; /* frames of each unit running: only the outermost counts */
static int given = 0;              /* the input was given: the window is open */
static int setting = 0;            /* the counter sets its own profile function */
#if defined(BY_PROFILE)
static int resume_op = -1;         /* the RESUME opcode, read at install */
static PyFrameObject *skip_return = NULL;  /* the frame whose start raised Stopped (no pop) */
#endif
static struct timespec given_main, given_process;
static int installed = 0;

static size_t
slot_of(PyObject *code, size_t cap)
{
    uintptr_t p = (uintptr_t)code;
    p ^= p >> 17;
    p *= 0x9E3779B97F4A7C15ULL;
    return (size_t)(p >> 7) & (cap - 1);
}

static int
grow_table(void)
{
    size_t cap = table_cap ? table_cap * 2 : 256, i;
    int *fresh = calloc(cap, sizeof(int));
    if (!fresh) return -1;
    for (i = 0; i < (size_t)n_entries; i++) {
        size_t s = slot_of(entries[i].code, cap);
        while (fresh[s]) s = (s + 1) & (cap - 1);
        fresh[s] = (int)i + 1;
    }
    free(table);
    table = fresh;
    table_cap = cap;
    return 0;
}

static uint64_t
fnv(const char *data, Py_ssize_t n)
{
    uint64_t h = 1469598103934665603ULL;
    Py_ssize_t i;
    for (i = 0; i < n; i++) {
        h ^= (unsigned char)data[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static PyObject *
bytecode(PyCodeObject *code)
{
#if PY_VERSION_HEX >= 0x030B0000
    return PyCode_GetCode(code);
#else
    Py_INCREF(code->co_code);
    return code->co_code;
#endif
}

static int
starts_with_any(PyObject *text, PyObject *starts)
{
    Py_ssize_t i, n;
    if (!text || !PyUnicode_Check(text) || !starts) return 0;
    n = PyTuple_GET_SIZE(starts);
    for (i = 0; i < n; i++) {
        int match = PyUnicode_Tailmatch(text, PyTuple_GET_ITEM(starts, i), 0, PY_SSIZE_T_MAX, -1);
        if (match == 1) return 1;
        if (match < 0) PyErr_Clear();
    }
    return 0;
}

/* Code of the standard library (its files, or frozen): its own recursion (abc's subclass
 * checks, deepcopy of nested lists) is not the search's. */
static int
in_library(PyObject *filename)
{
    return starts_with_any(filename, library);
}

/* The entry of ``code`` (made on first sight); -1 when out of memory. */
static int
entry_of(PyCodeObject *code)
{
    size_t s;
    int i, idx;
    entry_t *e;
    PyObject *bytes;
    if (table_cap == 0 || (size_t)(n_entries + 1) * 2 > table_cap) {
        if (grow_table() < 0) return -1;
    }
    s = slot_of((PyObject *)code, table_cap);
    while (table[s]) {
        if (entries[table[s] - 1].code == (PyObject *)code) return table[s] - 1;
        s = (s + 1) & (table_cap - 1);
    }
    if (n_entries == cap_entries) {
        int cap = cap_entries ? cap_entries * 2 : 128;
        entry_t *fresh = realloc(entries, cap * sizeof(entry_t));
        if (!fresh) return -1;
        entries = fresh;
        cap_entries = cap;
    }
    idx = n_entries++;
    e = &entries[idx];
    memset(e, 0, sizeof(*e));
    Py_INCREF(code);
    e->code = (PyObject *)code;
    bytes = bytecode(code);
    if (bytes && PyBytes_Check(bytes)) {
        e->hash = fnv(PyBytes_AS_STRING(bytes), PyBytes_GET_SIZE(bytes));
        e->length = PyBytes_GET_SIZE(bytes);
    } else {
        PyErr_Clear();
    }
    Py_XDECREF(bytes);
    e->canon = idx;
    for (i = 0; i < idx; i++) {
        if (entries[i].hash == e->hash && entries[i].length == e->length) {
            e->canon = entries[i].canon;
            break;
        }
    }
    e->generator = (code->co_flags & (CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR)) != 0;
    e->named = PyUnicode_Check(code->co_name) && PyUnicode_GET_LENGTH(code->co_name) > 0 &&
               PyUnicode_READ_CHAR(code->co_name, 0) != '<';
    if (owned && PySet_Contains(owned, (PyObject *)code) == 1) e->owned = 1;
    if (sanction && PySet_Contains(sanction, (PyObject *)code) == 1) e->sanctioned = 1;
    e->library = in_library(code->co_filename);
    if (e->named) entries[e->canon].named = 1;
    if (unit_names && !e->library && !e->owned) {
        Py_ssize_t u, n = PyTuple_GET_SIZE(unit_names);
        for (u = 0; u < n && u < UNITS; u++) {
            int same = PyUnicode_Compare(code->co_name, PyTuple_GET_ITEM(unit_names, u));
            if (same == -1 && PyErr_Occurred()) PyErr_Clear();
            if (same == 0) { e->unit = (unsigned char)(u + 1); break; }
        }
    }
    table[s] = idx + 1;
    return idx;
}

static void
forget_entries(void)
{
    int i;
    for (i = 0; i < n_entries; i++) {
        int k;
        Py_DECREF(entries[i].code);
        for (k = 0; k < 4; k++) Py_CLEAR(entries[i].arg_name[k]);
    }
    n_entries = 0;
    if (table) memset(table, 0, table_cap * sizeof(int));
    depth = 0;
}

static uint64_t
ns_since(clockid_t clock, const struct timespec *then)
{
    struct timespec now;
    clock_gettime(clock, &now);
    return (uint64_t)((now.tv_sec - then->tv_sec) * 1000000000LL + (now.tv_nsec - then->tv_nsec));
}

static void
close_run(void)
{
    uint64_t nodes = 0, recursive = 0;
    int i;
    if (block.runs < SLOTS) {
        slot_t *slot = &block.slot[block.runs];
        for (i = 0; i < n_entries; i++) {
            entry_t *c = &entries[entries[i].canon];
            if (entries[i].canon == i && c->marked) {
                nodes += c->calls;
                recursive++;
            }
        }
        slot->nodes = nodes;
        slot->recursive = recursive;
        slot->flags |= run_flags;
        slot->closed = 1;
    } else {
        block.flags |= FLAG_OVERFLOW;
    }
    if (given) {
        uint64_t main_ns = ns_since(CLOCK_THREAD_CPUTIME_ID, &given_main);
        uint64_t all_ns = ns_since(CLOCK_PROCESS_CPUTIME_ID, &given_process);
        block.main_ns = main_ns;
        block.others_ns = all_ns > main_ns ? all_ns - main_ns : 0;
    }
    block.runs++;
    running = 0;
    run_flags = 0;
    forget_entries();
}

/* The number a state's nine tiles spell (a list or tuple of nine ints 0..8, or a string of
 * nine digits, each tile once), or 0.  Exact types only: nothing of the submission runs. */
static uint32_t
state_number(PyObject *value)
{
    uint32_t number = 0, seen = 0;
    Py_ssize_t i, n;
    if (PyUnicode_CheckExact(value)) {
        if (PyUnicode_GET_LENGTH(value) != 9) return 0;
        for (i = 0; i < 9; i++) {
            Py_UCS4 c = PyUnicode_READ_CHAR(value, i);
            if (c < '0' || c > '8' || (seen & (1u << (c - '0')))) return 0;
            seen |= 1u << (c - '0');
            number = number * 10 + (uint32_t)(c - '0');
        }
        return number;
    }
    if (!PyList_CheckExact(value) && !PyTuple_CheckExact(value)) return 0;
    n = PySequence_Fast_GET_SIZE(value);
    if (n != 9) return 0;
    for (i = 0; i < 9; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(value, i);
        long tile;
        if (!PyLong_CheckExact(item)) return 0;
        tile = PyLong_AsLong(item);
        if (tile < 0 || tile > 8 || (seen & (1u << tile))) { PyErr_Clear(); return 0; }
        seen |= 1u << tile;
        number = number * 10 + (uint32_t)tile;
    }
    return number;
}

#if !defined(BY_PROFILE)
/* The code object of a frame the hook is given (a new reference). */
static PyCodeObject *
code_of(frame_t *frame)
{
#  if PY_VERSION_HEX >= 0x030D0000
    PyCodeObject *code = _PyFrame_GetCode(frame);
    Py_INCREF(code);
    return code;
#  elif PY_VERSION_HEX >= 0x030B0000
    Py_INCREF(frame->f_code);
    return frame->f_code;
#  else
    return PyFrame_GetCode(frame);
#  endif
}
#endif

/* The value of the frame's argument ``i`` as the call starts (a new reference), or NULL;
 * ``name`` is its name when the caller knows it (else it is looked up where needed).  The
 * frame's own slots are read: nothing of the submission runs. */
static PyObject *
argument(frame_t *frame, PyCodeObject *code, int i, PyObject *name)
{
#if defined(BY_PROFILE)
    PyObject *names = NULL, *value = NULL;
    if (!name) {
        names = PyCode_GetVarnames(code);
        if (!names) { PyErr_Clear(); return NULL; }
        if (i >= PyTuple_GET_SIZE(names)) { Py_DECREF(names); return NULL; }
        name = PyTuple_GET_ITEM(names, i);
    }
#  if PY_VERSION_HEX >= 0x030C0000
    value = PyFrame_GetVar(frame, name);
#  else
    {
        PyObject *locals = PyFrame_GetLocals(frame);     /* a dict, made at every call */
        if (locals) {
            value = PyObject_GetItem(locals, name);
            Py_DECREF(locals);
        }
    }
#  endif
    if (!value) PyErr_Clear();
    Py_XDECREF(names);
    return value;
#else
    PyObject *value;
    (void)name;
    if (i < 0 || i >= code->co_nlocals) return NULL;
#  if PY_VERSION_HEX >= 0x030B0000
    value = frame->localsplus[i];
    /* a generator resumed has made its cells: an argument that is one is read in it */
    if (value && PyCell_Check(value)) value = PyCell_GET(value);
#  else
    value = frame->f_localsplus[i];
#  endif
    Py_XINCREF(value);
    return value;
#endif
}

/* Whether a generator's frame starts here, not resumes after a yield: exactly one of its
 * frame's starts is.  (Under the evaluation hook from 3.11 on, the call that makes the
 * generator; before 3.11, and under a profile function, its first resumption.) */
static int
first_entry(frame_t *frame, PyCodeObject *code)
{
#if defined(BY_PROFILE)
    int lasti = PyFrame_GetLasti(frame), fresh = 0;
    PyObject *bytes;
    if (lasti < 0) return 1;
    bytes = PyCode_GetCode(code);
    if (!bytes) { PyErr_Clear(); return 0; }
    /* lasti is the byte offset of the instruction: RESUME with an oparg of 0 starts it */
    if (PyBytes_Check(bytes) && (Py_ssize_t)lasti + 1 < PyBytes_GET_SIZE(bytes)) {
        const unsigned char *at = (const unsigned char *)PyBytes_AS_STRING(bytes) + lasti;
        fresh = resume_op >= 0 && at[0] == resume_op && (at[1] & 3) == 0;
    }
    Py_DECREF(bytes);
    return fresh;
#elif PY_VERSION_HEX >= 0x030B0000
    (void)code;
    return _PyInterpreterFrame_LASTI(frame) < 0;
#else
    (void)code;
    return frame->f_lasti < 0;
#endif
}

/* The first run's calls of the first unit: the state each was handed (its first argument
 * that is a state, of the first three), kept in the block. */
static void
record(frame_t *frame, PyCodeObject *code)
{
    int i, n = code->co_argcount < 3 ? code->co_argcount : 3;
    uint32_t number = 0;
    for (i = 0; i < n && !number; i++) {
        PyObject *value = argument(frame, code, i, NULL);
        if (value) {
            number = state_number(value);
            Py_DECREF(value);
        }
    }
    if (!number) block.unread++;
    else if (block.recorded < RECORDED) block.state[block.recorded++] = number;
    else block.unread++;
}

static slot_t spill;            /* the run past the block's slots (flagged overflow) */

static slot_t *
current(void)
{
    return block.runs < SLOTS ? &block.slot[block.runs] : &spill;
}

static int
push(int canon, int ctx)
{
    if (depth == cap_stack) {
        int cap = cap_stack ? cap_stack * 2 : 1024;
        int *fresh;
        unsigned char *fresh_ctx;
        if (cap > MAX_STACK) { run_flags |= FLAG_OVERFLOW; return -1; }
        fresh = realloc(stack, cap * sizeof(int));
        if (!fresh) return -1;
        stack = fresh;
        fresh_ctx = realloc(stack_ctx, cap);
        if (!fresh_ctx) return -1;
        stack_ctx = fresh_ctx;
        cap_stack = cap;
    }
    stack[depth] = canon;
    stack_ctx[depth] = (unsigned char)ctx;
    depth++;
    return 0;
}

/* --- the route planner's expansions (roles) -------------------------------- */

/* A stop code's hash: FNV-1a of its UTF-8 text (never 0), or 0 when it is not text. */
static uint64_t
code_hash(PyObject *value)
{
    const char *text;
    Py_ssize_t n;
    uint64_t h;
    if (!value || !PyUnicode_Check(value)) return 0;
    text = PyUnicode_AsUTF8AndSize(value, &n);
    if (!text) { PyErr_Clear(); return 0; }
    h = fnv(text, n);
    return h ? h : 1;
}

/* A clock time: an int or a finite float (1, with *t), or 0. */
static int
time_of(PyObject *value, double *t)
{
    if (!value || PyBool_Check(value)) return 0;
    if (PyLong_Check(value)) {
        *t = PyLong_AsDouble(value);
        if (*t == -1.0 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
        return 1;
    }
    if (PyFloat_Check(value)) {
        *t = PyFloat_AS_DOUBLE(value);
        return isfinite(*t);
    }
    return 0;
}

static uint64_t
expansions_of(slot_t *slot)
{
    return slot->events > slot->states ? slot->events : slot->states;
}

/* Past the run's limit: the run is stopped, and Stopped raised (-1). */
static int
check_limit(slot_t *slot)
{
    if (!limit || expansions_of(slot) <= limit) return 0;
    slot->stopped = 1;
    PyErr_SetString(StoppedError, "the search made more expansions than its limit");
    return -1;
}

static int
start_expansion(slot_t *slot, uint64_t code, int timed, double t)
{
    slot->events++;
    cur_has = 1;
    cur_code = code;
    cur_timed = timed;
    cur_time = t;
    n_dests = 0;
    if (block.runs == 0 && block.ordered < ORDERED) {
        block.order_code[block.ordered] = code;
        block.order_time[block.ordered] = timed ? t : NAN;
        block.ordered++;
    }
    return check_limit(slot);
}

/* A stop's neighbours were listed. */
static int
listed(slot_t *slot, uint64_t code)
{
    slot->listings++;
    if (!cur_has || code != cur_code) return start_expansion(slot, code, 0, 0);
    return 0;
}

/* fastest_transition(code, dest, time) was asked. */
static int
transition(slot_t *slot, uint64_t code, uint64_t dest, int timed, double t)
{
    int i, seen = 0;
    for (i = 0; i < n_dests && !seen; i++) seen = dests[i] == dest;
    if (!cur_has || code != cur_code || (timed && cur_timed && t != cur_time) || seen ||
        n_dests == MAX_DESTS) {
        if (start_expansion(slot, code, timed, t) < 0) return -1;
    } else if (!cur_timed && timed) {
        cur_timed = 1;
        cur_time = t;
        if (block.runs == 0 && slot->events <= block.ordered && slot->events > 0)
            block.order_time[slot->events - 1] = t;
    }
    dests[n_dests++] = dest;
    return 0;
}

/* A state was made from ``previous``: a distinct one is one expansion.  Addresses only (no
 * reference is kept): a state made from is alive while the states made from it are. */
static int
made_from(slot_t *slot, PyObject *previous, int *fresh)
{
    uintptr_t key = (uintptr_t)previous;
    size_t s;
    *fresh = 0;
    if (!previous || previous == Py_None) return 0;
    if ((made_n + 1) * 2 > made_cap) {
        size_t cap = made_cap ? made_cap * 2 : 4096, i;
        uintptr_t *fresh = calloc(cap, sizeof(uintptr_t));
        if (!fresh) { run_flags |= FLAG_OVERFLOW; return 0; }
        for (i = 0; i < made_cap; i++) {
            if (made[i]) {
                size_t t = slot_of((PyObject *)made[i], cap);
                while (fresh[t]) t = (t + 1) & (cap - 1);
                fresh[t] = made[i];
            }
        }
        free(made);
        made = fresh;
        made_cap = cap;
    }
    s = slot_of(previous, made_cap);
    while (made[s]) {
        if (made[s] == key) return 0;
        s = (s + 1) & (made_cap - 1);
    }
    made[s] = key;
    made_n++;
    slot->states++;
    *fresh = 1;
    return check_limit(slot);
}

/* The first run's states, by address: the stop and time each was made with, so that a state
 * made from later is known (the order of the states made from is the order of expansion). */
typedef struct { uintptr_t key; uint64_t code; double time; } born_t;
static born_t *born = NULL;
static size_t born_cap = 0, born_n = 0;

static void
note_born(PyObject *state, uint64_t code, int timed, double t)
{
    size_t s;
    if (!state) return;
    if ((born_n + 1) * 2 > born_cap) {
        size_t cap = born_cap ? born_cap * 2 : 4096, i;
        born_t *fresh = calloc(cap, sizeof(born_t));
        if (!fresh) return;
        for (i = 0; i < born_cap; i++) {
            if (born[i].key) {
                size_t j = slot_of((PyObject *)born[i].key, cap);
                while (fresh[j].key) j = (j + 1) & (cap - 1);
                fresh[j] = born[i];
            }
        }
        free(born);
        born = fresh;
        born_cap = cap;
    }
    s = slot_of(state, born_cap);
    while (born[s].key && born[s].key != (uintptr_t)state) s = (s + 1) & (born_cap - 1);
    if (!born[s].key) born_n++;
    born[s].key = (uintptr_t)state;
    born[s].code = code;
    born[s].time = timed ? t : NAN;
}

/* The first run: the state ``previous`` is made from for the first time (an expansion). */
static void
note_made_from(PyObject *previous)
{
    size_t s;
    uint64_t code = 0;
    double t = NAN;
    if (block.made_ordered >= ORDERED) return;
    if (born_cap) {
        s = slot_of(previous, born_cap);
        while (born[s].key && born[s].key != (uintptr_t)previous) s = (s + 1) & (born_cap - 1);
        if (born[s].key) { code = born[s].code; t = born[s].time; }
    }
    block.made_code[block.made_ordered] = code;
    block.made_time[block.made_ordered] = t;
    block.made_ordered++;
}

/* The code of a stop (an exact dict's "code"), hashed; 0 when it has none. */
static uint64_t
stop_code(PyObject *stop)
{
    PyObject *code;
    if (!stop || !PyDict_CheckExact(stop)) return 0;
    code = PyDict_GetItemString(stop, "code");    /* borrowed; nothing of the submission runs */
    return code_hash(code);
}

static void
forget_expansions(void)
{
    cur_has = 0;
    n_dests = 0;
    made_n = 0;
    if (made) memset(made, 0, made_cap * sizeof(uintptr_t));
    if (born_n) {
        memset(born, 0, born_cap * sizeof(born_t));
        born_n = 0;
    }
}

static const char *CODE_NAMES[] = {"code", "from_code", "stop_code", NULL};
static const char *DEST_NAMES[] = {"dest_code", "dest", "to_code", NULL};
static const char *TIME_NAMES[] = {"current_time", "time", NULL};
static const char *PREVIOUS_NAMES[] = {"previous", NULL};
static const char *STOP_NAMES[] = {"stop", NULL};
static const char *SELF_NAMES[] = {"self", NULL};

/* Where a role's arguments are in the calls of ``code`` (found once per entry): the one
 * named one of ``names``, else the one at ``position`` (-1 when the call has none). */
static void
find_args(entry_t *e, PyCodeObject *code, int role)
{
    static const char **names[4][4] = {{NULL, NULL, NULL, NULL}, {CODE_NAMES, NULL, NULL, NULL},
                                       {CODE_NAMES, DEST_NAMES, TIME_NAMES, NULL},
                                       {PREVIOUS_NAMES, STOP_NAMES, TIME_NAMES, SELF_NAMES}};
    static const int positions[4][4] = {{-1, -1, -1, -1}, {1, -1, -1, -1}, {1, 2, 3, -1},
                                        {3, 1, 2, 0}};
#if PY_VERSION_HEX >= 0x030B0000
    PyObject *varnames = PyCode_GetVarnames(code);
#else
    PyObject *varnames = code->co_varnames;
    Py_XINCREF(varnames);
#endif
    int count = code->co_argcount + code->co_kwonlyargcount, k, i, j;
    e->args_found = 1;
    for (k = 0; k < 4; k++) e->arg_at[k] = -1;
    if (!varnames) { PyErr_Clear(); return; }
    if (count > PyTuple_GET_SIZE(varnames)) count = (int)PyTuple_GET_SIZE(varnames);
    for (k = 0; k < 4 && names[role][k]; k++) {
        int at = -1;
        for (i = 0; i < count && at < 0; i++)
            for (j = 0; names[role][k][j] && at < 0; j++)
                if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(varnames, i),
                                                     names[role][k][j]) == 0)
                    at = i;
        if (at < 0 && positions[role][k] < count) at = positions[role][k];
        if (at >= 0 && at < 127) {
            e->arg_at[k] = (signed char)at;
            e->arg_name[k] = PyTuple_GET_ITEM(varnames, at);
            Py_INCREF(e->arg_name[k]);
        }
    }
    Py_DECREF(varnames);
}

/* The value of the call's argument ``k`` of its role (a new reference), or NULL. */
static PyObject *
arg_value(frame_t *frame, PyCodeObject *code, entry_t *e, int k)
{
    return e->arg_at[k] < 0 ? NULL : argument(frame, code, e->arg_at[k], e->arg_name[k]);
}

/* A call of a unit with a role: its event.  -1: Stopped is raised. */
static int
unit_event(slot_t *slot, frame_t *frame, PyCodeObject *code, entry_t *e, int u)
{
    PyObject *a = NULL, *b = NULL, *c = NULL;
    int result = 0, timed;
    double t = 0;
    if (!e->args_found) find_args(e, code, unit_role[u]);
    switch (unit_role[u]) {
    case ROLE_LISTING:
        a = arg_value(frame, code, e, 0);
        result = listed(slot, code_hash(a));
        break;
    case ROLE_TRANSITION:
        a = arg_value(frame, code, e, 0);
        b = arg_value(frame, code, e, 1);
        c = arg_value(frame, code, e, 2);
        timed = time_of(c, &t);
        result = transition(slot, code_hash(a), code_hash(b), timed, t);
        break;
    case ROLE_MADE: {
        int fresh = 0;
        a = arg_value(frame, code, e, 0);
        if (block.runs == 0) {         /* the first run notes the order of expansion */
            PyObject *self_ = arg_value(frame, code, e, 3);
            b = arg_value(frame, code, e, 1);
            c = arg_value(frame, code, e, 2);
            timed = time_of(c, &t);
            note_born(self_, stop_code(b), timed, t);
            Py_XDECREF(self_);
        }
        result = made_from(slot, a, &fresh);
        if (fresh && block.runs == 0) note_made_from(a);
        break;
    }
    }
    Py_XDECREF(a);
    Py_XDECREF(b);
    Py_XDECREF(c);
    return result;
}

/* Whether a call of unit ``u`` is one of its owner's (the first argument's class, or a base
 * of it, has the owner's name), checked on the code's first call in a run. */
static int
owned_by(entry_t *e, frame_t *frame, PyCodeObject *code, int u)
{
    PyObject *self, *mro;
    Py_ssize_t i;
    int found = 0;
    if (!unit_owner[u] || e->owner_checked) return e->unit != 0;
    e->owner_checked = 1;
    self = code->co_argcount > 0 ? argument(frame, code, 0, NULL) : NULL;
    mro = self ? Py_TYPE(self)->tp_mro : NULL;
    for (i = 0; mro && PyTuple_Check(mro) && i < PyTuple_GET_SIZE(mro) && !found; i++) {
        PyTypeObject *t = (PyTypeObject *)PyTuple_GET_ITEM(mro, i);
        const char *name = t->tp_name, *dot = strrchr(name, '.');
        const char *want = PyUnicode_AsUTF8(unit_owner[u]);
        if (!want) { PyErr_Clear(); break; }
        found = strcmp(dot ? dot + 1 : name, want) == 0;
    }
    Py_XDECREF(self);
    if (!found) e->unit = 0;
    return found;
}

/* A frame of ``code`` starts in a run; ``*at`` is set to its entry (-1: none), which the
 * frame's end hands to ended(), so that each frame is looked up once. */
static int
started(frame_t *frame, PyCodeObject *code, int *at)
{
    slot_t *slot = current();
    int idx = entry_of(code), canon, i, named, user, generator, ctx;
    entry_t *c;
    *at = idx;
    if (idx < 0) { PyErr_Clear(); run_flags |= FLAG_OVERFLOW; return 0; }
    canon = entries[idx].canon;
    c = &entries[canon];
    generator = entries[idx].generator;
    /* The grader's own code runs only under what the grader put in the search's way (the
     * counted evaluation, its own set-up): called from the submission's code, it would be
     * work the counter does not see as the search's. */
    ctx = entries[idx].sanctioned || (entries[idx].owned && (depth == 0 || stack_ctx[depth - 1]));
    if (entries[idx].owned && !ctx) run_flags |= FLAG_GRADER_CODE;
    if (!generator) {      /* a generator's frame starts at every resumption: not a call */
        slot->calls++;
        c->calls++;
        if ((PyObject *)code == leaf) slot->leaves++;
    }
    if (entries[idx].unit) {
        /* A call of a unit, however it is reached: counted when no frame of that unit runs
         * already (an override that calls the method it overrides is one call), and, for a
         * generator, when its frame starts, not at every resumption. */
        int u = entries[idx].unit - 1;
        if (unit_active[u] == 0 && (!generator || first_entry(frame, code))) {
            if (!owned_by(&entries[idx], frame, code, u)) goto not_unit;
            slot->unit[u]++;
            if (unit_role[u] == ROLE_PLAIN) {
                if (u == 0 && block.runs == 0) record(frame, code);
            } else if (unit_event(slot, frame, code, &entries[idx], u) < 0) {
                return -1;     /* stopped: the frame is not pushed (it ends at once) */
            }
        }
        unit_active[u]++;
    }
  not_unit:
    if (c->active > 0) {
        /* Started again while running: every function between its two frames recurs,
         * it too.  Not counted as nodes: generators (a comprehension between two calls
         * of the search is part of it, not a node) and the standard library (a recursion
         * of its own is not the search's).  A cycle of generators alone is a search the
         * counter cannot follow; one through lambdas alone, a search it cannot name. */
        user = !generator && !c->library;
        named = user && c->named;
        if (user) c->marked = 1;
        for (i = depth - 1; i >= 0 && stack[i] != canon; i--) {
            entry_t *between = &entries[stack[i]];
            if (between->library || between->generator) continue;
            between->marked = 1;
            named |= between->named;
            user = 1;
        }
        if (!user && generator && !c->library) run_flags |= FLAG_GENERATOR;
        else if (user && !named) run_flags |= FLAG_UNNAMED;
    }
    c->active++;
    if (push(canon, ctx) < 0) return 0;
    if ((uint64_t)depth > slot->max_depth) slot->max_depth = depth;
    return 0;
}

/* A frame of ``code`` ends; ``idx`` is the entry started() found for it, or -1 (looked up
 * here: the profile function's return event, or an entry the run no longer holds). */
static void
ended(PyCodeObject *code, int idx)
{
    int canon;
    if (idx < 0 || idx >= n_entries || entries[idx].code != (PyObject *)code)
        idx = entry_of(code);
    if (idx < 0) { PyErr_Clear(); return; }
    canon = entries[idx].canon;
    if (entries[idx].unit && unit_active[entries[idx].unit - 1] > 0)
        unit_active[entries[idx].unit - 1]--;
    if (depth == 0) { run_flags |= FLAG_MISMATCH; return; }
    if (stack[depth - 1] != canon) run_flags |= FLAG_MISMATCH;
    depth--;
    if (entries[stack[depth]].active > 0) entries[stack[depth]].active--;
}

/* Whether ``frame`` and every frame below it are the grader's own code: a run started by
 * the submission (a probe or the trampoline called, or replaced, from its code) is not.
 * In the evaluation hook the frame about to run is not linked yet, so the current frame
 * (PyEval_GetFrame) is its caller's. */
static int
all_grader(PyFrameObject *frame)
{
    PyFrameObject *back = frame;
    int ok = 1;
    if (!trusted) return 1;
    Py_XINCREF(back);
    while (back) {
        PyCodeObject *code = PyFrame_GetCode(back);
        PyFrameObject *next;
        int known = PySet_Contains(trusted, (PyObject *)code);
        Py_DECREF(code);
        if (known != 1) {
            if (known < 0) PyErr_Clear();
            ok = 0;
            Py_DECREF(back);
            break;
        }
        next = PyFrame_GetBack(back);
        Py_DECREF(back);
        back = next;
    }
    return ok;
}

/* Once the input is given, the submission's code runs only inside a run. */
static void
outside_run(PyCodeObject *code)
{
    int known;
    if (block.flags & FLAG_OUTSIDE) return;
    if (in_library(code->co_filename)) return;
    known = trusted ? PySet_Contains(trusted, (PyObject *)code) : 1;
    if (known < 0) PyErr_Clear();
    if (known != 1) block.flags |= FLAG_OUTSIDE;
}

/* The start of a run: a frame of the trampoline starts, whose caller is ``caller``. */
static void
open_run(PyFrameObject *caller)
{
    if (running) {
        run_flags |= FLAG_NESTED;
        return;
    }
    memset(current(), 0, sizeof(slot_t));
    running = 1;
    depth = 0;
    memset(unit_active, 0, sizeof(unit_active));
    forget_expansions();
    if (caller && !all_grader(caller)) run_flags |= FLAG_FOREIGN;
}

#if defined(BY_PROFILE)
static int
profile(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg)
{
    PyCodeObject *code;
    if (what != PyTrace_CALL && what != PyTrace_RETURN) return 0;
    code = PyFrame_GetCode(frame);
    if ((PyObject *)code == trampoline) {
        if (what == PyTrace_CALL) {
            PyFrameObject *back = PyFrame_GetBack(frame);
            open_run(back);
            Py_XDECREF(back);
        } else if (running && depth == 0) {
            close_run();
        }
        Py_DECREF(code);
        return 0;
    }
    if (running) {
        if (what == PyTrace_CALL) {
            int at;
            skip_return = NULL;
            if (started(frame, code, &at) < 0) {
                /* Stopped is raised in the frame that starts.  It is not pushed: its
                 * return event is skipped (nothing starts between the two). */
                skip_return = frame;
                Py_DECREF(code);
                return -1;
            }
        }
        else if (frame == skip_return) skip_return = NULL;
        else ended(code, -1);
    } else if (given && what == PyTrace_CALL) {
        outside_run(code);
    }
    Py_DECREF(code);
    return 0;
}

/* Watch this thread's frames (or stop: on 0). */
static void
watch_frames(int on)
{
    setting = 1;               /* the audit hook lets this one through */
    PyEval_SetProfile(on ? profile : NULL, NULL);
    setting = 0;
}
#else
/* The thread whose frames are seen (the case process's main thread), or NULL. */
static PyThreadState *watched = NULL;

#if PY_VERSION_HEX >= 0x030D0000
/* Python 3.13 runs the __init__ of a specialised call of a Python class
 * (CALL_ALLOC_AND_ENTER_INIT) inside its caller's evaluation, past this hook.  That
 * specialisation needs the class's version tag, so a class is given none from the moment
 * the hook sees a frame of its __init__ (its first call is never specialised), nor, when a
 * case's input is given, any class whose calls were specialised already (at import):
 * tp_versions_used at its ceiling and PyType_Modified, after which the interpreter assigns
 * it no version again, and every call of it is an ordinary one whose __init__ passes
 * through here. */
static PyObject *init_name = NULL;      /* "__init__", interned */
static PyObject *subclasses_of = NULL;  /* type.__subclasses__, unbound */

static void
unversion(PyTypeObject *tp)
{
    if (!(tp->tp_flags & Py_TPFLAGS_HEAPTYPE) || tp->tp_versions_used == UINT16_MAX) return;
    tp->tp_versions_used = UINT16_MAX;
    PyType_Modified(tp);
}

/* A frame of an __init__ starts: its class (the type of its first argument) is unversioned. */
static void
seen_init(frame_t *frame, PyCodeObject *code)
{
    PyObject *self;
    if (code->co_name != init_name || code->co_argcount < 1 || code->co_nlocals < 1) return;
    self = frame->localsplus[0];
    if (self && PyCell_Check(self)) self = PyCell_GET(self);
    if (self) unversion(Py_TYPE(self));
}

/* Every class, from ``tp`` down, whose calls were specialised already, unversioned. */
static void
unversion_specialised(PyTypeObject *tp, int depth)
{
    PyObject *subclasses;
    Py_ssize_t i;
    if (depth > 100) return;
    if ((tp->tp_flags & Py_TPFLAGS_HEAPTYPE) && ((PyHeapTypeObject *)tp)->_spec_cache.init)
        unversion(tp);
    subclasses = subclasses_of ? PyObject_CallOneArg(subclasses_of, (PyObject *)tp) : NULL;
    if (!subclasses || !PyList_Check(subclasses)) { Py_XDECREF(subclasses); PyErr_Clear(); return; }
    for (i = 0; i < PyList_GET_SIZE(subclasses); i++) {
        PyObject *sub = PyList_GET_ITEM(subclasses, i);
        if (PyType_Check(sub)) unversion_specialised((PyTypeObject *)sub, depth + 1);
    }
    Py_DECREF(subclasses);
}
#endif

/* The frame-evaluation hook (PEP 523): every Python frame the interpreter evaluates, on
 * any thread, passes through here -- a call, a generator's resumption, a class body, code
 * run by exec -- and ends here, by return, yield or exception.  No Python code can set or
 * take it away.  While a hook is set the interpreter's fast path for calls between Python
 * functions (3.11 and 3.12) is off, so no call goes round it. */
static PyObject *
evaluate(PyThreadState *ts, frame_t *frame, int throwflag)
{
    PyCodeObject *code;
    PyObject *result;
    if (ts != watched) return _PyEval_EvalFrameDefault(ts, frame, throwflag);
    code = code_of(frame);
#if PY_VERSION_HEX >= 0x030D0000
    seen_init(frame, code);
#endif
    if ((PyObject *)code == trampoline) {
        /* the frame is not linked yet: the current frame is its caller's */
        open_run(PyEval_GetFrame());
        result = _PyEval_EvalFrameDefault(ts, frame, throwflag);
        if (running && depth == 0) close_run();
    } else if (running) {
        int at;
        if (started(frame, code, &at) < 0) {
            /* Stopped is raised in the frame that starts, before its first instruction
             * (as generator.throw does on a fresh generator); it was not pushed. */
            result = _PyEval_EvalFrameDefault(ts, frame, 1);
        } else {
            result = _PyEval_EvalFrameDefault(ts, frame, throwflag);
            if (running) ended(code, at);
        }
    } else {
        if (given) outside_run(code);
        result = _PyEval_EvalFrameDefault(ts, frame, throwflag);
    }
    Py_DECREF(code);
    return result;
}

/* Watch this thread's frames (or stop: on 0): the hook is the interpreter's frame
 * evaluation, for every thread, and tallies the frames of this one. */
static void
watch_frames(int on)
{
    PyThreadState *ts = PyThreadState_Get();
#if PY_VERSION_HEX >= 0x030D0000
    if (on) {
        if (!init_name) init_name = PyUnicode_InternFromString("__init__");
        if (!subclasses_of)
            subclasses_of = PyObject_GetAttrString((PyObject *)&PyType_Type, "__subclasses__");
        PyErr_Clear();
        unversion_specialised(&PyBaseObject_Type, 0);
    }
#endif
    watched = on ? ts : NULL;
    _PyInterpreterState_SetEvalFrameFunc(PyThreadState_GetInterpreter(ts),
                                         on ? evaluate : _PyEval_EvalFrameDefault);
}
#endif

/* --- a stop's neighbour mapping that notes its listings -------------------- */

typedef struct {
    PyDictObject dict;
    uint64_t code;             /* its stop's code (hash): not readable or writable from Python */
} neighbours_t;

static PyObject *dict_keys = NULL, *dict_items = NULL, *dict_values = NULL;
static PyTypeObject NeighboursType;

/* Inside a run, a listing of the stop's neighbours; -1 when it stops the run. */
static int
noted(PyObject *self)
{
    if (!running || quiet) return 0;
    return listed(current(), ((neighbours_t *)self)->code);
}

static PyObject *
neighbours_iter(PyObject *self)
{
    if (noted(self) < 0) return NULL;
    return PyDict_Type.tp_iter(self);
}

static PyObject *
neighbours_view(PyObject *self, PyObject *method)
{
    if (noted(self) < 0) return NULL;
    return PyObject_CallFunctionObjArgs(method, self, NULL);
}

static PyObject *neighbours_keys(PyObject *self, PyObject *n) { return neighbours_view(self, dict_keys); }
static PyObject *neighbours_items(PyObject *self, PyObject *n) { return neighbours_view(self, dict_items); }
static PyObject *neighbours_values(PyObject *self, PyObject *n) { return neighbours_view(self, dict_values); }

static PyObject *
neighbours_reduce(PyObject *self, PyObject *args)
{
    /* A copy (pickle, deepcopy) is a plain dict: not a listing. */
    PyObject *plain = PyDict_New(), *result;
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    if (!plain) return NULL;
    while (PyDict_Next(self, &pos, &key, &value)) {
        if (PyDict_SetItem(plain, key, value) < 0) { Py_DECREF(plain); return NULL; }
    }
    result = Py_BuildValue("(O(N))", (PyObject *)&PyDict_Type, plain);
    return result;
}

static PyMethodDef neighbours_methods[] = {
    {"keys", neighbours_keys, METH_NOARGS, "The keys (a listing of the stop's neighbours)."},
    {"items", neighbours_items, METH_NOARGS, "The items (a listing)."},
    {"values", neighbours_values, METH_NOARGS, "The values (a listing)."},
    {"__reduce_ex__", neighbours_reduce, METH_VARARGS, "A plain dict's."},
    {"__reduce__", neighbours_reduce, METH_VARARGS, "A plain dict's."},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject NeighboursType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "grader.child._tally.neighbours",
    .tp_basicsize = sizeof(neighbours_t),
    .tp_flags = Py_TPFLAGS_DEFAULT,     /* the dict's collector support is inherited */
    .tp_doc = "A stop's neighbour mapping; listing it is a listing of the stop's neighbours.",
    .tp_iter = neighbours_iter,
    .tp_methods = neighbours_methods,
};

static PyObject *
tally_neighbours(PyObject *self, PyObject *args)
{
    /* neighbours(mapping, code): a copy of the dict ``mapping`` that notes its listings as
     * listings of the stop ``code``. */
    PyObject *mapping, *code, *made_obj, *empty;
    if (!PyArg_ParseTuple(args, "O!O", &PyDict_Type, &mapping, &code)) return NULL;
    empty = PyTuple_New(0);
    if (!empty) return NULL;
    made_obj = PyDict_Type.tp_new(&NeighboursType, empty, NULL);
    Py_DECREF(empty);
    if (!made_obj) return NULL;
    quiet = 1;
    if (PyDict_Update(made_obj, mapping) < 0) { quiet = 0; Py_DECREF(made_obj); return NULL; }
    quiet = 0;
    ((neighbours_t *)made_obj)->code = code_hash(code);
    return made_obj;
}

/* --- the audit hook ------------------------------------------------------- */

static int
refuse(const char *what)
{
    block.flags |= FLAG_REFUSED;
    if (running) run_flags |= FLAG_REFUSED;
    PyErr_Format(PyExc_PermissionError, "%s is not available while grading", what);
    return -1;
}

static int memory_file(const char *name);

static int
ends_with_mem(PyObject *path)
{
    const char *text = NULL, *last;
    PyObject *bytes = NULL;
    char resolved[PATH_MAX];
    int hit = 0;
    if (PyUnicode_Check(path)) {
        bytes = PyUnicode_EncodeFSDefault(path);
        if (!bytes) { PyErr_Clear(); return 1; }
        text = PyBytes_AS_STRING(bytes);
    } else if (PyBytes_Check(path)) {
        text = PyBytes_AS_STRING(path);
    } else {
        return 0;       /* a descriptor: opened before */
    }
    last = strrchr(text, '/');
    last = last ? last + 1 : text;
    if (strcmp(last, "mem") == 0 || strcmp(last, "mem/") == 0) hit = 1;
    if (!hit && realpath(text, resolved) != NULL) {
        last = strrchr(resolved, '/');
        last = last ? last + 1 : resolved;
        if (strcmp(last, "mem") == 0 ||
            (strncmp(resolved, "/proc/", 6) == 0 &&
             (strstr(resolved, "/mem") != NULL || memory_file(last) ||
              strstr(resolved, "/map_files") != NULL)))
            hit = 1;
    }
    Py_XDECREF(bytes);
    return hit;
}

static int
foreign_extension(PyObject *filename)
{
    Py_ssize_t i, n;
    if (!filename || !PyUnicode_Check(filename) || !prefixes) return 0;
    {
        const char *name = PyUnicode_AsUTF8(filename);
        size_t len;
        if (!name) { PyErr_Clear(); return 1; }
        len = strlen(name);
        if (len < 3 || (strcmp(name + len - 3, ".so") != 0 &&
                        strstr(name, ".so.") == NULL && strstr(name, ".pyd") == NULL))
            return 0;
    }
    n = PyTuple_GET_SIZE(prefixes);
    for (i = 0; i < n; i++) {
        PyObject *prefix = PyTuple_GET_ITEM(prefixes, i);
        int match = PyUnicode_Tailmatch(filename, prefix, 0, PY_SSIZE_T_MAX, -1);
        if (match == 1) return 0;
        if (match < 0) PyErr_Clear();
    }
    return 1;
}

/* Modules that give Python code the process's memory (ctypes.cast and its pointers raise no
 * audit event), or C test hooks: never imported once sealed. */
static int
raw_memory(PyObject *name)
{
    static const char *refused[] = {"ctypes", "_ctypes", "_ctypes_test", "cffi", "_cffi_backend",
                                    "_testcapi", "_testinternalcapi", "_testbuffer",
                                    "_testmultiphase", "_testsinglephase", "_testimportmultiple",
                                    "_xxtestfuzz",
                                    /* another interpreter: no evaluation hook, no profile
                                     * function, no counter (3.12 and later) */
                                    "_xxsubinterpreters", "_xxinterpchannels",
                                    "_xxinterpqueues", "_interpreters", "_interpchannels",
                                    "_interpqueues", NULL};
    const char *text;
    size_t i;
    if (!PyUnicode_Check(name)) return 0;
    text = PyUnicode_AsUTF8(name);
    if (!text) { PyErr_Clear(); return 1; }
    for (i = 0; refused[i]; i++) {
        size_t n = strlen(refused[i]);
        if (strncmp(text, refused[i], n) == 0 && (text[n] == '\0' || text[n] == '.')) return 1;
    }
    return 0;
}

/* A local variable of ``frame``, by name (a new reference), or NULL (no error set). */
static PyObject *
frame_local(PyFrameObject *frame, const char *name)
{
    PyObject *value = NULL;
#if PY_VERSION_HEX >= 0x030C0000
    value = PyFrame_GetVarString(frame, (char *)name);
#elif PY_VERSION_HEX >= 0x030B0000
    PyObject *locals = PyFrame_GetLocals(frame);
    if (locals && PyDict_Check(locals)) {
        value = PyDict_GetItemString(locals, name);
        Py_XINCREF(value);
    }
    Py_XDECREF(locals);
#else
    if (PyFrame_FastToLocalsWithError(frame) == 0 && frame->f_locals &&
        PyDict_Check(frame->f_locals)) {
        value = PyDict_GetItemString(frame->f_locals, name);
        Py_XINCREF(value);
    }
#endif
    if (!value) PyErr_Clear();
    return value;
}

/* Whether ``data`` (the bytes of a marshal.loads) is the standard library's own byte-code
 * as the import system reads it: called from importlib's genuine _compile_bytecode, for a
 * .pyc under the standard library's folders (resolved), whose bytes past its 16-byte header
 * are exactly ``data``.  Nothing else may unmarshal code once sealed: a code object made from
 * bytes rather than by the compiler can read and write any memory. */
static int
library_bytecode(PyObject *data)
{
    PyFrameObject *frame = PyEval_GetFrame();
    PyCodeObject *code;
    PyObject *path = NULL, *encoded = NULL, *resolved_text = NULL;
    char resolved[PATH_MAX];
    FILE *file = NULL;
    int same = 0;
    if (!frame || !bytecode_reader || !data || !PyBytes_Check(data)) return 0;
    code = PyFrame_GetCode(frame);
    same = (PyObject *)code == bytecode_reader;
    Py_DECREF(code);
    if (!same) return 0;
    same = 0;
    path = frame_local(frame, "bytecode_path");
    if (!path || !PyUnicode_Check(path)) goto done;
    encoded = PyUnicode_EncodeFSDefault(path);
    if (!encoded || realpath(PyBytes_AS_STRING(encoded), resolved) == NULL) goto done;
    resolved_text = PyUnicode_DecodeFSDefault(resolved);
    if (!resolved_text || !in_library(resolved_text)) goto done;
    file = fopen(resolved, "rb");
    if (!file) goto done;
    {
        Py_ssize_t want = PyBytes_GET_SIZE(data);
        const char *expected = PyBytes_AS_STRING(data);
        char buffer[65536];
        Py_ssize_t at = 0;
        size_t got;
        if (fseek(file, 16, SEEK_SET) != 0) goto done;
        same = 1;
        while (same && (got = fread(buffer, 1, sizeof(buffer), file)) > 0) {
            if (at + (Py_ssize_t)got > want || memcmp(buffer, expected + at, got) != 0) same = 0;
            at += (Py_ssize_t)got;
        }
        if (at != want) same = 0;
    }
done:
    if (file) fclose(file);
    Py_XDECREF(path);
    Py_XDECREF(encoded);
    Py_XDECREF(resolved_text);
    PyErr_Clear();
    return same;
}

/* Files of /proc that give away a process's memory or its layout: its contents ("mem"),
 * and where each mapping lies. */
static int
memory_file(const char *name)
{
    static const char *names[] = {"mem", "maps", "smaps", "smaps_rollup", "pagemap",
                                  "numa_maps", "map_files", NULL};
    size_t i;
    for (i = 0; names[i]; i++)
        if (strcmp(name, names[i]) == 0) return 1;
    return 0;
}

static int
audit(const char *event, PyObject *args, void *data)
{
    if (strcmp(event, "sys.setprofile") == 0 || strcmp(event, "sys.settrace") == 0) {
        if (setting) return 0;
        block.flags |= FLAG_HOOK;
        if (running) run_flags |= FLAG_HOOK;
        if (block.sealed) return refuse("changing the profile or trace function");
        return 0;
    }
    if (!block.sealed) return 0;
    /* Only the compiler makes code objects once sealed: a code object made otherwise (its
     * constructor, code.replace, pickle's reduce to either, unmarshalled bytes) can index
     * past its constants and so read and write any memory from pure Python. */
    if (strcmp(event, "code.__new__") == 0) return refuse("making code objects");
    /* The collector's walks hand out every object of the process, the grader's included. */
    if (strcmp(event, "gc.get_objects") == 0 || strcmp(event, "gc.get_referrers") == 0 ||
        strcmp(event, "gc.get_referents") == 0)
        return refuse("walking the collector's objects");
    if (strcmp(event, "marshal.load") == 0) return refuse("unmarshalling code");
    if (strcmp(event, "marshal.loads") == 0) {
        if (PyTuple_Check(args) && PyTuple_GET_SIZE(args) > 0 &&
            library_bytecode(PyTuple_GET_ITEM(args, 0)))
            return 0;
        return refuse("unmarshalling code (a .pyc of the submission's, or bytes)");
    }
    if (strcmp(event, "compile") == 0 &&
        PyTuple_Check(args) && PyTuple_GET_SIZE(args) > 1 &&
        in_library(PyTuple_GET_ITEM(args, 1))) {
        /* a code object that would pass for the standard library's */
        block.flags |= FLAG_CODE_MADE;
        if (running) run_flags |= FLAG_CODE_MADE;
        return 0;
    }
    if (running && (strcmp(event, "compile") == 0 || strcmp(event, "exec") == 0 ||
                    strcmp(event, "function.__new__") == 0)) {
        run_flags |= FLAG_CODE_MADE;
        return 0;
    }
    if (running && strcmp(event, "_thread.start_new_thread") == 0) {
        run_flags |= FLAG_THREAD;
        return 0;
    }
    if (strncmp(event, "ctypes.", 7) == 0) return refuse("ctypes");
    if (strcmp(event, "open") == 0 && PyTuple_Check(args) && PyTuple_GET_SIZE(args) > 0) {
        if (ends_with_mem(PyTuple_GET_ITEM(args, 0))) return refuse("a process's memory");
        return 0;
    }
    if (strcmp(event, "os.symlink") == 0 || strcmp(event, "os.link") == 0)
        return refuse("making links");
    if (strcmp(event, "import") == 0 && PyTuple_Check(args) && PyTuple_GET_SIZE(args) > 0 &&
        raw_memory(PyTuple_GET_ITEM(args, 0)))
        return refuse("a module that reads and writes the process's memory");
    if (strcmp(event, "import") == 0 && PyTuple_Check(args) && PyTuple_GET_SIZE(args) > 1) {
        if (foreign_extension(PyTuple_GET_ITEM(args, 1)))
            return refuse("an extension module of the submission");
    }
    return 0;
}

/* --- the module ------------------------------------------------------------ */

static PyObject *
tally_install(PyObject *self, PyObject *args)
{
    PyObject *tramp, *leaf_code, *owned_codes, *allowed, *stdlib, *callers, *sanctioned;
    if (!PyArg_ParseTuple(args, "OOOO!O!OO", &tramp, &leaf_code, &owned_codes,
                          &PyTuple_Type, &allowed, &PyTuple_Type, &stdlib, &callers,
                          &sanctioned))
        return NULL;
    if (installed || block.sealed) return PyErr_Format(PyExc_PermissionError, "installed already");
    if (!PyCode_Check(tramp)) return PyErr_Format(PyExc_TypeError, "trampoline: a code object");
    if (leaf_code != Py_None && !PyCode_Check(leaf_code))
        return PyErr_Format(PyExc_TypeError, "leaf: a code object or None");
    Py_INCREF(tramp);
    trampoline = tramp;
    if (leaf_code != Py_None) { Py_INCREF(leaf_code); leaf = leaf_code; }
    owned = PyFrozenSet_New(owned_codes);
    if (!owned) return NULL;
    Py_INCREF(allowed);
    prefixes = allowed;
    Py_INCREF(stdlib);
    library = stdlib;
    trusted = PyFrozenSet_New(callers);
    if (!trusted) return NULL;
    sanction = PyFrozenSet_New(sanctioned);
    if (!sanction) return NULL;
#if defined(BY_PROFILE)
    {
        /* A generator's frame starts at RESUME with an oparg of 0. */
        PyObject *opcode = PyImport_ImportModule("opcode"), *opmap, *op;
        opmap = opcode ? PyObject_GetAttrString(opcode, "opmap") : NULL;
        op = opmap ? PyMapping_GetItemString(opmap, "RESUME") : NULL;
        if (op && PyLong_Check(op)) resume_op = (int)PyLong_AsLong(op);
        Py_XDECREF(op);
        Py_XDECREF(opmap);
        Py_XDECREF(opcode);
        PyErr_Clear();
    }
#endif
    {
        /* importlib's reader of .pyc files: the only caller of marshal.loads once sealed */
        PyObject *external = PyImport_ImportModule("_frozen_importlib_external");
        PyObject *reader = external ? PyObject_GetAttrString(external, "_compile_bytecode")
                                    : NULL;
        bytecode_reader = reader ? PyObject_GetAttrString(reader, "__code__") : NULL;
        Py_XDECREF(reader);
        Py_XDECREF(external);
        PyErr_Clear();
    }
    if (PySys_AddAuditHook(audit, NULL) < 0) return NULL;
    installed = 1;
    /* The runner is not the case processes' to read or write (/proc/1/mem). */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    Py_RETURN_NONE;
}

static PyObject *
tally_seal(PyObject *self, PyObject *noargs)
{
    if (!installed || block.sealed)
        return PyErr_Format(PyExc_PermissionError, "the counter is sealed");
    block.sealed = 1;
    block.pid = (uint64_t)getpid();
    block.runs = 0;
    block.flags = 0;
    block.recorded = block.unread = 0;
    block.ordered = 0;
    block.made_ordered = 0;
    memset(block.slot, 0, sizeof(block.slot));
#if defined(BY_PROFILE) && PY_VERSION_HEX >= 0x030C0000
    {
        /* The interpreter runs sys.monitoring's callbacks with profiling off: a search
         * started from one would pass the profile function unseen.  Its only reference is
         * the sys module's attribute: gone, the namespace is freed and no Python code can
         * reach its functions again. */
        PyObject *sys = PyImport_ImportModule("sys");
        if (sys && PyObject_HasAttrString(sys, "monitoring") &&
            PyObject_DelAttrString(sys, "monitoring") < 0)
            PyErr_Clear();
        Py_XDECREF(sys);
    }
#endif
    /* The runner reads this process's memory: it must be dumpable again. */
    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
    Py_RETURN_NONE;
}

static PyObject *
tally_hold(PyObject *self, PyObject *args)
{
    /* The runner: the next case's input, kept in C memory only (the case process has it
     * from the fork, where no Python object of its own refers to it); and the names of the
     * functions whose calls are counted (units), as the runner's probe gives them. */
    PyObject *data, *names = NULL, *plain = NULL;
    unsigned long long stop_after = 0;
    Py_ssize_t i;
    if (!PyArg_ParseTuple(args, "O|O!K", &data, &PyTuple_Type, &names, &stop_after))
        return NULL;
    if (!installed || block.sealed || !PyBytes_Check(data))
        return PyErr_Format(PyExc_PermissionError, "the counter is sealed");
    for (i = 0; i < UNITS; i++) { Py_CLEAR(unit_owner[i]); unit_role[i] = ROLE_PLAIN; }
    if (names) {
        static const char *roles[] = {"", "listing:", "transition:", "made:", NULL};
        plain = PyTuple_New(PyTuple_GET_SIZE(names));
        if (!plain) return NULL;
        for (i = 0; i < PyTuple_GET_SIZE(names); i++) {
            PyObject *item = PyTuple_GET_ITEM(names, i), *name;
            const char *text, *colon, *dot;
            int r;
            if (!PyUnicode_CheckExact(item) || !(text = PyUnicode_AsUTF8(item))) {
                Py_DECREF(plain);
                return PyErr_Format(PyExc_TypeError, "units: a tuple of names");
            }
            colon = strchr(text, ':');
            if (colon && i < UNITS) {
                for (r = 1; roles[r]; r++)
                    if (strncmp(text, roles[r], colon + 1 - text) == 0 &&
                        strlen(roles[r]) == (size_t)(colon + 1 - text))
                        unit_role[i] = r;
                text = colon + 1;
            }
            dot = strrchr(text, '.');
            if (dot && i < UNITS) unit_owner[i] = PyUnicode_FromStringAndSize(text, dot - text);
            name = PyUnicode_FromString(dot ? dot + 1 : text);
            if (!name) { Py_DECREF(plain); return NULL; }
            PyTuple_SET_ITEM(plain, i, name);
        }
        Py_INCREF(names);
    }
    Py_XSETREF(units, names);
    Py_XSETREF(unit_names, plain);
    limit = stop_after;
    free(held);
    held_length = PyBytes_GET_SIZE(data);
    held = malloc(held_length ? held_length : 1);
    if (!held) { held_length = 0; return PyErr_NoMemory(); }
    memcpy(held, PyBytes_AS_STRING(data), held_length);
    Py_RETURN_NONE;
}

static int
threads_alive(void)
{
    PyInterpreterState *interp = PyThreadState_GetInterpreter(PyThreadState_Get());
    PyThreadState *ts;
    int n = 0;
    for (ts = PyInterpreterState_ThreadHead(interp); ts; ts = PyThreadState_Next(ts)) n++;
    return n;
}

static PyObject *
tally_given(PyObject *self, PyObject *args)
{
    /* A case process, once, from the grader's frames only: the input, and from now on the
     * submission's code may run only inside a run. */
    PyObject *data;
    int watch = 1;
    if (!PyArg_ParseTuple(args, "|p", &watch)) return NULL;
    if (!block.sealed || given || !held)
        return PyErr_Format(PyExc_PermissionError, "the input was given already");
    if (!all_grader(PyEval_GetFrame())) {
        block.flags |= FLAG_FOREIGN;
        return PyErr_Format(PyExc_PermissionError, "the input is the grader's to give");
    }
    if (threads_alive() > 1) block.flags |= FLAG_THREADS;
    data = PyBytes_FromStringAndSize(held, held_length);
    memset(held, 0, held_length);
    given = 1;
    /* From here on every frame of this thread is seen (and nothing of Python can take the
     * hook away).  Not before: the import runs at full speed. */
    if (watch) watch_frames(1);   /* a probe that counts nothing: nothing watched */
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &given_main);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &given_process);
    return data;
}

static PyObject *
tally_watch(PyObject *self, PyObject *noargs)
{
    /* Outside a case process only (benchmarks): this thread's frames watched, as given()
     * has them watched. */
    if (!installed || block.sealed)
        return PyErr_Format(PyExc_PermissionError, "the counter is sealed");
    watch_frames(1);
    Py_RETURN_NONE;
}

static int
empty_profile(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg)
{
    return 0;
}

#if PY_VERSION_HEX >= 0x030B0000
typedef struct _PyInterpreterFrame evaluated_t;
#else
typedef PyFrameObject evaluated_t;
#endif

static PyObject *
empty_hook(PyThreadState *ts, evaluated_t *frame, int throwflag)
{
    return _PyEval_EvalFrameDefault(ts, frame, throwflag);
}

static PyObject *
tally_floor(PyObject *self, PyObject *args)
{
    /* Outside a case process only (benchmarks): on this thread, what the interpreter's own
     * dispatch costs -- "hook", a frame-evaluation hook that only evaluates; "profile", a
     * profile function that does nothing; "" (or none): neither, and the counter off. */
    const char *kind = "";
    if (!PyArg_ParseTuple(args, "|s", &kind)) return NULL;
    if (block.sealed) return PyErr_Format(PyExc_PermissionError, "the counter is sealed");
    setting = 1;
    PyEval_SetProfile(strcmp(kind, "profile") == 0 ? empty_profile : NULL, NULL);
    setting = 0;
    _PyInterpreterState_SetEvalFrameFunc(PyThreadState_GetInterpreter(PyThreadState_Get()),
                                         strcmp(kind, "hook") == 0 ? empty_hook
                                                                   : _PyEval_EvalFrameDefault);
    Py_RETURN_NONE;
}

/* --- the sandbox's own system calls (no ctypes in a process that forks case processes) --- */

static PyObject *
tally_prctl(PyObject *self, PyObject *args)
{
    /* The runner, and a case process before its seal: prctl(option, value, 0, 0, 0).  With
     * this the sandbox needs no ctypes, which once loaded would let any code in the process
     * read and write any memory (ctypes.cast raises no audit event). */
    int option;
    unsigned long value;
    if (!PyArg_ParseTuple(args, "ik", &option, &value)) return NULL;
    if (block.sealed) return PyErr_Format(PyExc_PermissionError, "the counter is sealed");
    if (prctl(option, value, 0, 0, 0) != 0) return PyErr_SetFromErrno(PyExc_OSError);
    Py_RETURN_NONE;
}

static PyObject *
tally_filter(PyObject *self, PyObject *program)
{
    /* The runner, and a case process before its seal: load a seccomp filter (a BPF program
     * of 8-byte instructions, as libseccomp exports it), as libseccomp's seccomp_load does
     * (no-new-privileges must be set already). */
    struct sock_fprog fprog;
    if (block.sealed) return PyErr_Format(PyExc_PermissionError, "the counter is sealed");
    if (!PyBytes_Check(program) || PyBytes_GET_SIZE(program) == 0 ||
        PyBytes_GET_SIZE(program) % sizeof(struct sock_filter) != 0 ||
        PyBytes_GET_SIZE(program) / sizeof(struct sock_filter) > 0xFFFF)
        return PyErr_Format(PyExc_ValueError, "a BPF program: bytes, 8 per instruction");
    fprog.len = (unsigned short)(PyBytes_GET_SIZE(program) / sizeof(struct sock_filter));
    fprog.filter = (struct sock_filter *)PyBytes_AS_STRING(program);
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0) != 0)
        return PyErr_SetFromErrno(PyExc_OSError);
    Py_RETURN_NONE;
}

static PyObject *
tally_layout(PyObject *self, PyObject *noargs)
{
    if (block.sealed)       /* where the tallies lie is the runner's to know */
        return PyErr_Format(PyExc_PermissionError, "the counter is sealed");
    return Py_BuildValue("(KK)", (unsigned long long)(uintptr_t)&block,
                         (unsigned long long)sizeof(block_t));
}

static PyObject *
tally_active(PyObject *self, PyObject *noargs)
{
    /* Whether the counter is installed (its audit hook). */
    return PyBool_FromLong(installed);
}

static PyMethodDef methods[] = {
    {"install", tally_install, METH_VARARGS,
     "install(trampoline, leaf, owned, prefixes, library, callers, sanctioned): the audit "
     "hook (once)."},
    {"seal", tally_seal, METH_NOARGS, "seal(): a case process starts (once)."},
    {"layout", tally_layout, METH_NOARGS, "layout() -> (address, size) of the tally block."},
    {"watch", tally_watch, METH_NOARGS,
     "watch(): the counter's evaluation hook on this thread, before any seal (benchmarks)."},
    {"hold", tally_hold, METH_VARARGS,
     "hold(bytes, units=(), limit=0): the runner keeps the next case's input in C, the names "
     "of the functions whose calls are counted, and the expansions after which a run stops."},
    {"given", tally_given, METH_VARARGS,
     "given(watch=True) -> bytes: the case's input (once, grader only); with watch, every "
     "frame from now on is seen."},
    {"installed", tally_active, METH_NOARGS, "installed() -> bool."},
    {"floor", tally_floor, METH_VARARGS,
     "floor(kind=''): 'hook', a frame-evaluation hook that only evaluates, 'profile', a "
     "profile function that does nothing, or neither, on this thread, before any seal "
     "(benchmarks: the interpreter's own cost of each)."},
    {"neighbours", tally_neighbours, METH_VARARGS,
     "neighbours(mapping, code): a copy of the dict whose listings are the stop's."},
    {"prctl", tally_prctl, METH_VARARGS,
     "prctl(option, value): prctl(option, value, 0, 0, 0), until the seal."},
    {"filter", tally_filter, METH_O,
     "filter(program): load a seccomp BPF program (bytes), until the seal."},
    {NULL, NULL, 0, NULL}
};

#if !defined(BY_PROFILE) && PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
/* CPython 3.11.0-3.11.3 run a subscript specialised for a class's __getitem__
 * (BINARY_SUBSCR_GETITEM) inside the caller's evaluation, past the hook (gh-104405, mended in
 * 3.11.4).  They specialise it only for a function whose version fits in 16 bits, and hand
 * versions out from one counter of the interpreter, on demand: to a function the first time a
 * call or a subscript is specialised for it.  So when the counter is loaded there (before the
 * hook is ever set, and before any code of a submission runs), every version below 0x10000
 * is spent -- 512 call sites of a function made afresh, each made ready to specialise by
 * eight calls that return at once and then specialised on a function of its own, until a
 * version past 0xFFFF comes out (128 rounds in a fresh interpreter; about 12 ms) -- and every
 * function that has a version already is given none (0, as the interpreter itself does when
 * a function's code changes; the collector knows every function, and the runner loads the
 * counter before it freezes the collector's generations).  From then on no function has a
 * version that subscript can take, and every __getitem__ is an ordinary call through the
 * hook (tests/test_every_call_seen.py's getitem route). */
#  define SPENDS_VERSIONS 1
#  define BYPASSED (Py_Version >= 0x030B0000 && Py_Version < 0x030B04F0)
#  define SPEND_ROUNDS 1024

static const char SPEND[] =
    "exec(compile('def sites(fs, warm):\\n if warm:\\n  return\\n'"
    " + ''.join(' fs[%d]()\\n' % i for i in range(512)), '<spend>', 'exec'))\n"
    "def spend(made=type(sites), code=sites.__code__):\n"
    "    fresh = made(code.replace(), globals())\n"
    "    for _ in range(8):\n"
    "        fresh(None, True)\n"
    "    fs = [(lambda: None) for _ in range(512)]\n"
    "    fresh(fs, False)\n"
    "    return fs[-1]\n";

static int
spend_versions(void)
{
    PyObject *globals, *ran = NULL, *spend, *last, *gc = NULL, *all = NULL;
    Py_ssize_t i;
    int rounds, spent = 0;
    globals = PyDict_New();
    if (!globals || PyDict_SetItemString(globals, "__builtins__", PyEval_GetBuiltins()) < 0)
        goto end;
    ran = PyRun_String(SPEND, Py_file_input, globals, globals);
    spend = ran ? PyDict_GetItemString(globals, "spend") : NULL;
    for (rounds = 0; spend && !spent && rounds < SPEND_ROUNDS; rounds++) {
        last = PyObject_CallNoArgs(spend);
        if (!last) goto end;
        spent = PyFunction_Check(last) && ((PyFunctionObject *)last)->func_version > 0xFFFF;
        Py_DECREF(last);
    }
    if (!spent) goto end;
    gc = PyImport_ImportModule("gc");
    all = gc ? PyObject_CallMethod(gc, "get_objects", NULL) : NULL;
    if (!all || !PyList_Check(all)) { spent = 0; goto end; }
    for (i = 0; i < PyList_GET_SIZE(all); i++) {
        PyObject *item = PyList_GET_ITEM(all, i);
        if (PyFunction_Check(item) && ((PyFunctionObject *)item)->func_version <= 0xFFFF)
            ((PyFunctionObject *)item)->func_version = 0;
    }
end:
    Py_XDECREF(all);
    Py_XDECREF(gc);
    Py_XDECREF(ran);
    if (globals) PyDict_Clear(globals);     /* spend() and its sites hold it: nothing left */
    Py_XDECREF(globals);
    if (spent) return 0;
    PyErr_Clear();      /* whatever went wrong, the load fails as an ImportError */
    PyErr_Format(PyExc_ImportError, "the search counter could not spend the function "
                     "versions below 0x10000 of CPython %lu.%lu.%lu, which runs a specialised "
                     "subscript's __getitem__ past its frame-evaluation hook (gh-104405, "
                     "mended in 3.11.4)", (Py_Version >> 24) & 0xffUL,
                     (Py_Version >> 16) & 0xffUL, (Py_Version >> 8) & 0xffUL);
    return -1;
}
#else
#  define BYPASSED 0
#endif

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_tally", "The search counter of a case process (see _tally.c).",
    -1, methods
};

PyMODINIT_FUNC
PyInit__tally(void)
{
    PyObject *m;
#if defined(SPENDS_VERSIONS)
    if (BYPASSED && spend_versions() < 0) return NULL;
#endif
    m = PyModule_Create(&module);
    if (!m) return NULL;
    NeighboursType.tp_base = &PyDict_Type;
    if (PyType_Ready(&NeighboursType) < 0) return NULL;
    dict_keys = PyObject_GetAttrString((PyObject *)&PyDict_Type, "keys");
    dict_items = PyObject_GetAttrString((PyObject *)&PyDict_Type, "items");
    dict_values = PyObject_GetAttrString((PyObject *)&PyDict_Type, "values");
    if (!dict_keys || !dict_items || !dict_values) return NULL;
    StoppedError = PyErr_NewException("grader.child._tally.Stopped", PyExc_BaseException, NULL);
    if (!StoppedError) return NULL;
    Py_INCREF(StoppedError);
    if (PyModule_AddObject(m, "Stopped", StoppedError) < 0) return NULL;
    PyModule_AddIntConstant(m, "ORDERED", ORDERED);
    PyModule_AddIntConstant(m, "SLOTS", SLOTS);
    PyModule_AddIntConstant(m, "UNITS", UNITS);
    PyModule_AddIntConstant(m, "RECORDED", RECORDED);
    PyModule_AddIntConstant(m, "MAGIC_LOW", (long)(MAGIC & 0x7fffffff));
#if defined(BY_PROFILE)
    PyModule_AddStringConstant(m, "MODE", "profile function");
#else
    PyModule_AddStringConstant(m, "MODE", BYPASSED ? "frame-evaluation hook (PEP 523), "
                               "function versions below 0x10000 spent (gh-104405)"
                                                   : "frame-evaluation hook (PEP 523)");
#endif
    PyModule_AddStringConstant(m, "BUILT_FOR", PY_VERSION);
    return m;
}
