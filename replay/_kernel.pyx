# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The play loop of replay/replayer.py and Table.do_play / do_pass (replay/table.py) in C,
for the common case only: a legal play of a plain game (readings by lookup) or a pass.
Anything else (a violation, an unusual value, another act, a game's own do_play) goes to
the Python methods, which are the reference; the fast path leaves the state untouched
before it hands over, so the verdict and its message are the Python engine's.

The state lives in the C fields of PlayState, the base class of Table when this module is
built, so that both this loop and the games' Python hooks read the same values.
"""

from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_CheckExact, PyByteArray_FromStringAndSize, PyByteArray_GET_SIZE
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.dict cimport PyDict_GetItem, PyDict_GetItemWithError, PyDict_Next, PyDict_Size
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE, PyList_New, PyList_SET_ITEM
from cpython.float cimport PyFloat_AS_DOUBLE
from cpython.long cimport PyLong_AsLong, PyLong_AsLongAndOverflow, PyLong_AsLongLongAndOverflow, PyLong_AsUnsignedLongLongMask, PyLong_CheckExact, PyLong_FromUnsignedLongLong
from cpython.object cimport PyObject, PyTypeObject
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE
from cpython.unicode cimport (PyUnicode_1BYTE_DATA, PyUnicode_1BYTE_KIND, PyUnicode_CheckExact, PyUnicode_GET_LENGTH,
                              PyUnicode_KIND)
from libc.string cimport memcmp, memset


cdef extern from "Python.h":
    bint PyUnicode_IS_ASCII(object)
    bint Py_UNICODE_ISSPACE(Py_UCS4)

from .cards import CARD_OF as _CARD_OF, RANK
from .combos import any_beats, strongest
from .verdicts import Event

from orjson import loads as _orjson_loads

cdef dict CARD_OF = _CARD_OF
# each card id's packed rank bit as two halves: ranks 0..11 (bits 0..59), ranks 12..14
cdef unsigned long long RANK_LOW[54]
cdef unsigned long long RANK_HIGH[54]
for _c in range(54):
    _r = RANK[_c]
    RANK_LOW[_c] = (1ULL << (5 * _r)) if _r < 12 else 0
    RANK_HIGH[_c] = (1ULL << (5 * (_r - 12))) if _r >= 12 else 0

cdef enum:
    MAX_CARDS = 64

# the card id of each two-letter ASCII spelling of cards.CARD_OF ("3h", "Ts", "BJ"), by its
# letters, -1 for none: what most tokens are, found without hashing; others go to the dict
cdef signed char ID2[128][128]
for _a in range(128):
    for _b in range(128):
        ID2[_a][_b] = -1
for _token, _c in _CARD_OF.items():
    if len(_token) == 2 and _token.isascii():
        ID2[ord(_token[0])][ord(_token[1])] = _c


cdef extern from *:
    """
    /* the two letters of a str of two ASCII characters as one index (first * 128 +
       second), -1 for any other object: the letters of a compact ASCII str follow its
       header, which is what a token read from JSON or text is */
    static inline long paipu_two_letters(PyObject *t) {
        const unsigned char *s;
        if (!PyUnicode_CheckExact(t) || !PyUnicode_IS_COMPACT_ASCII(t) || PyUnicode_GET_LENGTH(t) != 2)
            return -1;
        s = (const unsigned char *)(((PyASCIIObject *)t) + 1);
        return ((long)s[0] << 7) | s[1];
    }
    """
    long paipu_two_letters(PyObject *t) nogil


cdef inline long card_id(object token):
    """The id of a card token, -1 when it is none (cards.CARD_OF's answer)."""
    cdef long two = paipu_two_letters(<PyObject *>token)
    cdef PyObject *found
    if two >= 0 and ID2[two >> 7][two & 127] >= 0:
        return ID2[two >> 7][two & 127]
    found = PyDict_GetItem(CARD_OF, token)
    if found is NULL:
        return -1
    return PyLong_AsLong(<object>found)


cdef extern from "structmember.h":
    ctypedef struct PyMemberDef:
        const char *name
        int type
        Py_ssize_t offset
        int flags
        const char *doc
    int T_OBJECT_EX

cdef extern from "Python.h":
    object PyDescr_NewMember(PyTypeObject *, PyMemberDef *)
    void PyType_Modified(PyTypeObject *)

#: the fields, in the order of the struct below
FIELDS = ("phase", "turn", "last", "last_seat", "passes", "first_play_done", "over", "tricks", "plays", "n",
          "combos", "hands", "packed", "left", "active", "out", "plays_by", "cards_played", "events", "detail")


cdef class PlayState:
    """The fields of replay.table.PlayState (see there), in C."""

    cdef object phase, turn, last, last_seat, passes, first_play_done, over, tricks, plays, n
    cdef object combos, hands, packed, left, active, out, plays_by, cards_played, events, detail
    cdef object loop  # its Loop (loop_of)

    # (the defaults: new_state below, PlayState's tp_new)

    def begin(self, Py_ssize_t n, detail):
        """replay.table.PlayState.begin (the reference) in C: n seats, no cards, all in."""
        self.n = n
        self.hands = filled(NO_CARDS, n)
        self.packed = filled(0, n)
        self.left = filled(0, n)
        self.active = filled(True, n)
        self.out = []
        self.plays_by = filled(0, n)
        self.cards_played = filled(0, n)
        self.events = []
        self.detail = detail
        if detail:
            self.plays = []


#: the card counts of a seat before the deal (read-only: the deal check replaces them)
cdef bytearray NO_CARDS = bytearray(54)


cdef list filled(object value, Py_ssize_t n):
    """[value] * n"""
    cdef list out = PyList_New(n)
    cdef Py_ssize_t k
    for k in range(n):
        Py_INCREF(value)
        PyList_SET_ITEM(out, k, value)
    return out


# Python code reads the fields as member descriptors (as of __slots__), which CPython's
# attribute caches take at the speed of an instance dict; Cython's "public" attributes
# would be properties, ~10 ns slower on every access of the games' Python code
cdef PyMemberDef MEMBERS[20]
cdef list _NAMES = [name.encode() for name in FIELDS]


cdef void _members():
    cdef PlayState probe = PlayState.__new__(PlayState)
    cdef char *base = <char *><PyObject *>probe
    cdef PyObject **at[20]
    at[:] = [&probe.phase, &probe.turn, &probe.last, &probe.last_seat, &probe.passes, &probe.first_play_done,
             &probe.over, &probe.tricks, &probe.plays, &probe.n, &probe.combos, &probe.hands, &probe.packed,
             &probe.left, &probe.active, &probe.out, &probe.plays_by, &probe.cards_played, &probe.events,
             &probe.detail]
    cdef int k
    cdef PyTypeObject *kind = <PyTypeObject *>PlayState
    for k in range(20):
        MEMBERS[k].name = <bytes>_NAMES[k]
        MEMBERS[k].type = T_OBJECT_EX
        MEMBERS[k].offset = <char *>at[k] - base
        MEMBERS[k].flags = 0
        MEMBERS[k].doc = NULL
        (<dict>kind.tp_dict)[FIELDS[k]] = PyDescr_NewMember(kind, &MEMBERS[k])
    PyType_Modified(kind)


_members()


# Instances: made as object() makes them, then the fields above set. Cython's own tp_new
# allocates a subclass's instance without laying out its attribute values in line (CPython
# 3.11 does that in object.__new__ only): the instance dict of every table was then a
# separate dict sharing its class's keys, which the interpreter's attribute caches do not
# take (3.11's LOAD_ATTR_WITH_HINT deoptimises on such a dict every time), so each read of
# a game's own attribute (self.level, self.rules) cost ~340 instructions instead of ~20,
# each write ~450, and each method call the uncached lookup.
cdef extern from *:
    """
    static PyObject *paipu_no_args = NULL;
    /* what object.__new__(t) does: the allocation and, for a class with a managed dict,
       its attribute values laid out in line */
    static PyObject *paipu_object_new(PyTypeObject *t) {
        if (paipu_no_args == NULL && (paipu_no_args = PyTuple_New(0)) == NULL)
            return NULL;
        return PyBaseObject_Type.tp_new(t, paipu_no_args, NULL);
    }
    /* (and no vectorcall of its own, which would make the instances of the class itself) */
    #define paipu_set_new(type, fn) ((type)->tp_new = (newfunc)(fn), (type)->tp_vectorcall = NULL)
    """
    object paipu_object_new(PyTypeObject *t)
    void paipu_set_new(PyTypeObject *t, void *fn)


cdef Py_ssize_t LOOP_AT = 0  # where PlayState keeps its loop (the other fields: MEMBERS)


cdef object new_state(PyTypeObject *t, PyObject *args, PyObject *kwargs):
    """PlayState's tp_new: object.__new__, every field None (as Cython's would set them),
    then PlayState's defaults."""
    o = paipu_object_new(t)
    cdef char *base = <char *><PyObject *>o
    cdef int k
    for k in range(20):
        (<PyObject **>(base + MEMBERS[k].offset))[0] = <PyObject *>None
        Py_INCREF(None)
    (<PyObject **>(base + LOOP_AT))[0] = <PyObject *>None
    Py_INCREF(None)
    cdef PlayState state = <PlayState>o
    state.phase = "play"
    state.turn = -1
    state.last_seat = -1
    state.passes = 0
    state.first_play_done = False
    state.over = False
    state.tricks = 0
    state.plays = ()
    return o


cdef void _new():
    global LOOP_AT
    cdef PlayState probe = PlayState.__new__(PlayState)
    cdef PyObject **at[1]
    at[:] = [&probe.loop]  # (as _members takes the fields' addresses)
    LOOP_AT = <char *>at[0] - <char *><PyObject *>probe
    paipu_set_new(<PyTypeObject *>PlayState, <void *>new_state)


_new()


cdef class Loop:
    """What the loop reads once per hand: the table's bound methods and flags."""

    cdef PlayState t
    cdef object table, do_play, do_pass, step, on_play, check_play, check_pass, on_trick_won, classify
    cdef bint plays, passes, play_rules, pass_rules, trick_hook, own_step, plain
    cdef dict readings

    def __init__(self, table):
        self.t = table
        self.table = table
        self.step = table.step
        self.own_step = table.own_step
        self.do_play = self.step if self.own_step else table.do_play
        self.do_pass = self.step if self.own_step else table.do_pass
        self.plays = table.kernel_plays
        self.passes = table.kernel_passes
        self.play_rules = table.has_play_rules
        self.pass_rules = table.has_pass_rules
        self.trick_hook = table.has_trick_hook
        self.on_play = table.on_play
        self.check_play = table.check_play
        self.check_pass = table.check_pass
        self.on_trick_won = table.on_trick_won
        self.plain = table.plain_lookup
        self.readings = table.combos.readings if self.plain else None
        self.classify = table.classify

    def take(self, i, action):
        """One action, as the loop takes it (the walk's step when a visitor sees each action)."""
        return self.act(i, action)

    cdef object act(self, object i, object action):
        """One action: the violation or None (Table.step's dispatch with the fast paths)."""
        act = action["act"]
        fast = type(action) is dict
        if act == "play":
            if self.plays and fast:
                return self.play(i, action)
            return self.do_play(i, action)
        if act == "pass":
            if self.passes and fast:
                return self.pass_(i, action)
            return self.do_pass(i, action)
        return self.step(i, action)

    cdef object play(self, object i, dict action):
        cdef PlayState t = self.t
        cdef Py_ssize_t k, taken = 0, ncards, seat, nseats
        cdef long c
        cdef int ids[MAX_CARDS]
        cdef unsigned long long low = 0, high = 0
        cdef long nxt
        cdef char *buf
        cdef PyObject *found
        seat_o = action["seat"]
        if t.phase != "play" or "as" in action or "declared" in action or not PyLong_CheckExact(seat_o) \
                or seat_o != t.turn:
            return self.do_play(i, action)
        cards = action["cards"]
        hands = t.hands
        if type(hands) is not list or type(cards) is not list:
            return self.do_play(i, action)
        nseats = PyList_GET_SIZE(hands)
        seat = PyLong_AsLong(seat_o)
        if seat < 0 or seat >= nseats:
            return self.do_play(i, action)
        ncards = PyList_GET_SIZE(cards)
        hand = <object>PyList_GET_ITEM(hands, seat)
        if ncards > MAX_CARDS or not PyByteArray_CheckExact(hand) or PyByteArray_GET_SIZE(hand) < 54:
            return self.do_play(i, action)
        buf = PyByteArray_AS_STRING(hand)
        # ownership: each card out of the seat's card counts (undone below on failure)
        for k in range(ncards):
            c = card_id(<object>PyList_GET_ITEM(cards, k))
            if c < 0 or buf[c] == 0:
                break
            buf[c] -= 1
            ids[k] = c
            taken += 1
            low += RANK_LOW[c]
            high += RANK_HIGH[c]
        if taken < ncards:
            return self.undo(taken, ids, buf, i, action)
        packed = PyLong_FromUnsignedLongLong(low)
        if high:
            packed = packed + (PyLong_FromUnsignedLongLong(high) << 60)
        id_list = PyList_New(ncards)
        for k in range(ncards):
            c_o = ids[k]
            Py_INCREF(c_o)
            PyList_SET_ITEM(id_list, k, c_o)
        if self.plain:
            found = PyDict_GetItem(self.readings, packed)
            if found is NULL:
                return self.undo(taken, ids, buf, i, action)
            readings = <tuple>found
        else:  # wild cards: the game's classification (its cache)
            readings = self.classify(id_list, packed, None)
            if type(readings) is not tuple or not readings:
                return self.undo(taken, ids, buf, i, action)
        last = t.last
        if last is not None:
            if type(last) is not tuple:  # (set from outside the engine: the Python path copes)
                return self.undo(taken, ids, buf, i, action)
            if PyTuple_GET_SIZE(readings) == 1 and PyTuple_GET_SIZE(last) == 1:
                a = <tuple>PyTuple_GET_ITEM(readings, 0)
                b = <tuple>PyTuple_GET_ITEM(last, 0)
                if a[3] != b[3]:
                    ok = a[3] > b[3]
                else:
                    ok = a[2] > b[2] and (a[3] or a[0] == b[0] and a[1] == b[1])
            else:
                ok = any_beats(readings, last)
            if not ok:
                return self.undo(taken, ids, buf, i, action)
        if self.play_rules and self.check_play(i, seat_o, id_list, readings) is not None:
            return self.undo(taken, ids, buf, i, action)
        # the play stands: Table.do_play's bookkeeping
        led = last is None
        n_o = ncards
        t.packed[seat] = t.packed[seat] - packed
        left = t.left
        left[seat] = left[seat] - n_o
        t.plays_by[seat] = t.plays_by[seat] + 1
        t.cards_played[seat] = t.cards_played[seat] + n_o
        t.first_play_done = True
        t.last = readings if PyTuple_GET_SIZE(readings) == 1 else strongest(readings)
        t.last_seat = seat_o
        t.passes = 0
        self.on_play(i, seat_o, id_list, readings, led)
        if left[seat] == 0:
            table = self.table
            if table.ends_on_first_out:
                t.tricks = t.tricks + 1
            t.active[seat] = False
            t.out.append(seat_o)
            t.events.append(Event("out", i, seat_o, {"place": len(t.out)}))
            table.on_out(i, seat_o)
            if t.over:
                return None
        nxt = seat + 1 if seat + 1 < t.n else 0
        t.turn = nxt if t.active[nxt] else self.table.next_active(seat_o)
        return None

    cdef object undo(self, Py_ssize_t taken, int *ids, char *buf, object i, dict action):
        """Give the cards back and let the Python method name what is wrong."""
        cdef Py_ssize_t k
        for k in range(taken):
            buf[ids[k]] += 1
        return self.do_play(i, action)

    cdef object pass_(self, object i, dict action):
        cdef PlayState t = self.t
        cdef long seat, nxt
        seat_o = action["seat"]
        if not PyLong_CheckExact(seat_o) or seat_o != t.turn or t.phase != "play" or t.last is None:
            return self.do_pass(i, action)
        if self.pass_rules:
            v = self.check_pass(i, seat_o)
            if v is not None:
                return v
        t.passes = t.passes + 1
        active = t.active
        seat = PyLong_AsLong(seat_o)
        nxt = seat + 1 if seat + 1 < t.n else 0
        if not active[nxt]:
            nxt = self.table.next_active(seat_o)
        last_seat = t.last_seat
        if nxt == last_seat:
            t.tricks = t.tricks + 1
            if self.trick_hook:
                self.on_trick_won(i, last_seat)
            t.last = None  # everyone else passed: the last player leads
        elif not active[last_seat] and t.passes >= sum(active):
            t.tricks = t.tricks + 1
            if self.trick_hook:
                self.on_trick_won(i, last_seat)
            t.last = None
            nxt = self.table.leader_after_out(last_seat)
        t.turn = nxt
        return None


cdef Loop loop_of(PlayState t):
    """The table's loop, kept on it (step: the benchmarks' single actions; a loop and its
    table refer to each other, so run() makes its own and drops it)."""
    if t.loop is None:
        t.loop = Loop(t)
    return <Loop>t.loop


def run(table, list actions):
    """Replay *actions* on a set-up table: (index reached, violation or None). The index is
    len(actions) when every action was taken; a smaller one with no violation means the
    hand was over before that action (replayer.run names both cases)."""
    cdef PlayState t = table
    cdef Loop loop = Loop(t)
    cdef Py_ssize_t k, count = len(actions)
    for k in range(count):
        if t.over:
            return k, None
        action = actions[k]
        v = loop.act(k, action)
        if v is not None:
            return k, v
    return count, None


def step(table, i, action):
    """One action on a set-up table, as the kernel's loop takes it (for the benchmarks:
    prepare(table) first keeps the loop's making out of the time of the first step)."""
    return loop_of(table).act(i, action)


def prepare(table):
    """Make and keep the table's loop for step()."""
    loop_of(table)


cdef extern from "Python.h":
    object _PyLong_FromByteArray(const unsigned char *data, size_t n, int little_endian, int is_signed)


cdef bint count_hand(list hand, unsigned char *counts, unsigned char *total, unsigned long long *packed):
    """One seat's cards added to its card counts *counts* and to *total*, its packed rank
    counts to *packed* (two halves: ranks 0..11, ranks 12..14); False when a token is not
    a card."""
    cdef Py_ssize_t k, n = PyList_GET_SIZE(hand)
    cdef long c
    cdef unsigned long long low = packed[0], high = packed[1]
    for k in range(n):
        c = card_id(<object>PyList_GET_ITEM(hand, k))
        if c < 0:
            return False
        counts[c] += 1
        total[c] += 1
        low += RANK_LOW[c]
        high += RANK_HIGH[c]
    packed[0] = low
    packed[1] = high
    return True


cdef object as_packed(unsigned long long *packed):
    """The packed counts of two halves (ranks 0..11, 12..14) as one int."""
    cdef unsigned long long low = packed[0], high = packed[1]
    cdef unsigned long long words[2]
    cdef unsigned char data[16]
    cdef int k
    if not high:
        return PyLong_FromUnsignedLongLong(low)
    words[0] = low + (high << 60)  # (mod 2^64: the carry goes to words[1])
    words[1] = (high >> 4) + (words[0] < low)
    for k in range(16):
        data[k] = <unsigned char>(words[k >> 3] >> (8 * (k & 7)))
    return _PyLong_FromByteArray(data, 16, 1, 0)


def checked_deal(deal, bottom, list sizes, Py_ssize_t bottom_size, bytes deck):
    """Table.check_deal for a deal that is right, in one call: (each seat's card counts as
    a bytearray, each seat's packed rank counts, each seat's number of cards: a copy of
    *sizes*) when *deal* is a list of lists of tokens in the sizes *sizes*, *bottom* None
    or a list of *bottom_size* tokens (None counts as empty), and all of them together are
    the deck (*deck*: its count of each card id, a byte each); None for anything else, and
    the caller's full check then finds the verdict. With the sizes right a deal holds fewer
    than 256 cards: no count wraps."""
    cdef unsigned char total[54]
    cdef unsigned char counts[54]
    cdef unsigned long long halves[2]
    cdef const unsigned char *want
    cdef long c
    cdef Py_ssize_t k, s, n
    if type(deal) is not list or PyList_GET_SIZE(deal) != PyList_GET_SIZE(sizes) or PyBytes_GET_SIZE(deck) != 54:
        return None
    if bottom is None:
        if bottom_size != 0:
            return None
    elif type(bottom) is not list or PyList_GET_SIZE(bottom) != bottom_size:
        return None
    memset(total, 0, 54)
    n = PyList_GET_SIZE(deal)
    cdef list hands = PyList_New(n)
    cdef list packed = PyList_New(n)
    for s in range(n):  # (the lists hold NULL until filled: Py_None first, as a failure drops them)
        Py_INCREF(None)
        PyList_SET_ITEM(hands, s, None)
        Py_INCREF(None)
        PyList_SET_ITEM(packed, s, None)
    for s in range(n):
        hand = <object>PyList_GET_ITEM(deal, s)
        if type(hand) is not list or PyList_GET_SIZE(hand) != PyLong_AsLong(<object>PyList_GET_ITEM(sizes, s)):
            return None
        halves[0] = halves[1] = 0
        memset(counts, 0, 54)
        if not count_hand(hand, counts, total, halves):
            return None
        hands[s] = PyByteArray_FromStringAndSize(<char *>counts, 54)
        packed[s] = as_packed(halves)
    if bottom_size:
        for k in range(bottom_size):
            c = card_id(<object>PyList_GET_ITEM(bottom, k))
            if c < 0:
                return None
            total[c] += 1
    want = <const unsigned char *>PyBytes_AS_STRING(deck)
    for k in range(54):
        if total[k] != want[k]:
            return None
    return hands, packed, sizes[:]


# ----------------------------------------------------------------- a hand's setup fields

cdef extern from *:
    """
    static int paipu_descr_set(PyObject *descr, PyObject *obj, PyObject *value) {
        return Py_TYPE(descr)->tp_descr_set(descr, obj, value);
    }
    """
    int paipu_descr_set(object descr, object obj, object value) except -1


#: the record's fields table.HandSetup.of reads, in the order of its slots
cdef tuple SETUP_NAMES = ("id", "players", "deal", "bottom", "leader", "lead_card", "room", "stacks", "match", "level",
                          "levels")
cdef object SETUP_CLASS = None  # the class whose slots' descriptors SETUP_SLOTS holds
cdef tuple SETUP_SLOTS = ()


def hand_setup(cls, dict record):
    """table.HandSetup.of (the reference) in C: an instance of *cls* (HandSetup) with each
    field the record's value, None where it has none, players and deal [] where theirs is
    false, room {} where it is no dict."""
    global SETUP_CLASS, SETUP_SLOTS
    cdef Py_ssize_t k
    cdef PyObject *found
    if cls is not SETUP_CLASS:
        SETUP_SLOTS = tuple([cls.__dict__[name] for name in SETUP_NAMES])
        SETUP_CLASS = cls
    spec = paipu_object_new(<PyTypeObject *>cls)
    for k in range(11):
        found = PyDict_GetItemWithError(record, <object>PyTuple_GET_ITEM(SETUP_NAMES, k))
        value = None if found is NULL else <object>found
        if k == 1 or k == 2:  # players, deal
            if not value:
                value = []
        elif k == 6:  # room
            if not isinstance(value, dict):
                value = {}
        paipu_descr_set(<object>PyTuple_GET_ITEM(SETUP_SLOTS, k), spec, value)
    return spec


# ----------------------------------------------------------------- settlement

cdef bint whole(object x, long long limit, long long *value):
    """True when *x* is an int (not a bool) within ±*limit*, its value in *value*."""
    cdef int overflow = 0
    if not PyLong_CheckExact(x):
        return False
    value[0] = PyLong_AsLongLongAndOverflow(x, &overflow)
    return not overflow and -limit <= value[0] <= limit


def settle_whole(scores, coef, fee, stacks):
    """settle.settle_coins' common case in C: whole coins, zero-sum, no cap reached (each
    seat's score × coef within what it carries), the fee taken but never past what a seat
    has left: the coins; None for anything else, or numbers past the bounds that keep the
    sums here exact (|score|, |coef| ≤ 2^26, stacks and fee ≤ 2^53): the Python function
    then, which is the reference."""
    cdef long long c, f, have, score, wants, left, balance = 0
    cdef Py_ssize_t k, n
    if type(scores) is not list or type(stacks) is not list:
        return None
    if not whole(coef, 1LL << 26, &c) or not whole(fee, 1LL << 53, &f):
        return None
    n = min(PyList_GET_SIZE(scores), PyList_GET_SIZE(stacks))
    cdef list coins = [None] * n
    for k in range(n):
        if not whole(<object>PyList_GET_ITEM(stacks, k), 1LL << 53, &have) \
                or not whole(<object>PyList_GET_ITEM(scores, k), 1LL << 26, &score):
            return None
        wants = score * c
        if have < wants or have < -wants:
            return None
        balance += wants
        left = have + wants
        coins[k] = wants - (f if f < left else left)
    if balance:
        return None
    return coins


# ----------------------------------------------------------------- the one-deck beating test
#
# combos.one_deck_beats on 128-bit packed counts (the reference is the Python function:
# tests/test_kernel.py compares the two); the must-play check asks it at every pass

cdef extern from *:
    """
    typedef unsigned __int128 paipu_u128;
    """
    ctypedef unsigned long long u128 "paipu_u128"

from .combos import ABOVE as _ABOVE, GUARD as _GUARD, JOKERS as _JOKERS, NORMAL as _NORMAL, ONES as _ONES
from .combos import one_deck_beats as _one_deck_beats_python

cdef u128 as128(object x):
    return (<u128>PyLong_AsUnsignedLongLongMask(x >> 64) << 64) | <u128>PyLong_AsUnsignedLongLongMask(x)

cdef u128 GUARD128 = as128(_GUARD)
cdef u128 NORMAL128 = as128(_NORMAL)
cdef u128 ONES128 = as128(_ONES)
cdef u128 JOKERS128 = as128(_JOKERS)
cdef u128 ABOVE128[16]
for _k in range(16):
    ABOVE128[_k] = as128(_ABOVE[_k])


def one_deck_beats(hand, last, kinds):
    """combos.one_deck_beats in C (the same answers; anything unusual goes to it)."""
    cdef long key, tier, index
    cdef u128 held, bombs
    cdef int n
    if not (PyLong_CheckExact(hand) and isinstance(last, tuple)
            and PyTuple_GET_SIZE(last) == 4 and type(kinds) is frozenset and hand >= 0 and hand >> 80 == 0):
        return _one_deck_beats_python(hand, last, kinds)
    kind = <object>PyTuple_GET_ITEM(last, 0)
    key_o = <object>PyTuple_GET_ITEM(last, 2)
    tier_o = <object>PyTuple_GET_ITEM(last, 3)
    if not (PyLong_CheckExact(key_o) and PyLong_CheckExact(tier_o)) or not (-16 <= key_o <= 1000):
        return _one_deck_beats_python(hand, last, kinds)
    key = key_o
    tier = tier_o
    index = key + 1 if key + 1 < 15 else 15
    if index < 0:
        index += 16  # as Python indexes ABOVE
    held = as128(hand) | GUARD128
    if tier:
        bombs = (held - 4 * ONES128) & NORMAL128 if "bomb" in kinds else 0
        if tier != 1:
            return False
        return bool(bombs & ABOVE128[index]) or ((held - ONES128) & JOKERS128) == JOKERS128 and "rocket" in kinds
    if ((held - 4 * ONES128) & NORMAL128) and "bomb" in kinds or ((held - ONES128) & JOKERS128) == JOKERS128 \
            and "rocket" in kinds:
        return True
    if kind == "single":
        return bool((held - ONES128) & GUARD128 & ABOVE128[index])
    if kind == "pair":
        n = 2
    elif kind == "triple":
        n = 3
    else:
        return None
    return bool((held - n * ONES128) & NORMAL128 & ABOVE128[index])


# ----------------------------------------------------------------- the wild-card games' beating tests
#
# guandan.beating_exists and shuangkou.beating_exists (the references: tests/test_kernel.py
# compares them on random hands and every kind of play) on 128-bit packed counts: the
# same direct tests per kind. None hands a case to the Python function (an unusual value;
# Shuangkou's bomb chains where a run of fillable ranks exists)

cdef u128 FIELD_MASK = (((<u128>1) << 75) - 1)

cdef inline u128 at_least128(u128 hand, long n):
    """combos.at_least: guard bits of the ranks holding at least n (1..15) cards."""
    return ((hand | GUARD128) - <u128>n * ONES128) & GUARD128


cdef inline u128 capped128(u128 hand, long n):
    cdef u128 d = (hand | GUARD128) - <u128>n * ONES128
    return hand - (d & (((d & GUARD128) >> 4) * 15))


cdef inline u128 positions128(u128 hand):
    """combos.positions: A (0), 2 (1), 3..A (2..13)."""
    return ((hand >> 55) & 31) | (((hand >> 60) & 31) << 5) | ((hand & ((<u128>1 << 60) - 1)) << 10)


cdef bint window_holds128(u128 held, long length, long need, long first, long last):
    """combos.window_holds: some window of *length* fields starting at first..last holds need cards."""
    cdef long start, k, total
    if first < 0:
        first = 0
    for start in range(first, last + 1):
        total = 0
        for k in range(start, start + length):
            total += <long>((held >> (5 * k)) & 31)
        if total >= need:
            return True
    return False


cdef inline u128 rank_guard(long r):
    return (<u128>1) << (5 * r + 4)


cdef inline long gd_value(long rank, long level):
    if rank == level:
        return 13
    if rank == 13:
        return 14
    if rank == 14:
        return 15
    if rank == 12:
        return 0
    return rank + 1


cdef u128 GD_ABOVE[13][18]  # Guandan: guard bits of the ranks whose value is above key (key + 1)
for _level in range(13):
    for _k in range(18):
        GD_ABOVE[_level][_k] = 0
        for _r in range(15):
            if gd_value(_r, _level) > _k - 1:
                GD_ABOVE[_level][_k] |= rank_guard(_r)
cdef int GD_SIZE_ABOVE_TIER[10]  # the smallest bomb size above each tier (99: none)
cdef int GD_SIZE_OF_TIER[10]  # the size of each rank-bomb tier (0: none)
_BOMB_TIER = {4: 1, 5: 2, 6: 4, 7: 5, 8: 6, 9: 7, 10: 8}
for _t in range(10):
    GD_SIZE_ABOVE_TIER[_t] = min([s for s, st in _BOMB_TIER.items() if st > _t] or [99])
    GD_SIZE_OF_TIER[_t] = {t: s for s, t in _BOMB_TIER.items()}.get(_t, 0)


cdef bint gd_straight_flush(const unsigned char *hand, long wilds, long level, long key):
    """guandan.straight_flush_exists: a straight flush with its top position above key."""
    cdef long suit, top, p, rank, held, wild = 4 * level + 1
    if key >= 13:
        return False
    for suit in range(4):
        for top in range(max(4, key + 1), 14):
            held = 0
            for p in range(top - 4, top + 1):
                rank = 11 if p == 0 else 12 if p == 1 else p - 2
                if hand[4 * rank + suit] and 4 * rank + suit != wild:
                    held += 1
            if held + wilds >= 5:
                return True
    return False


def guandan_beats(hand, natural, long wilds, long level, last, frozenset kinds):
    """guandan.beating_exists in C (the same answers; None: ask it)."""
    if not (PyByteArray_CheckExact(hand) and PyByteArray_GET_SIZE(hand) == 54 and PyLong_CheckExact(natural)
            and 0 <= natural < (1 << 75) and 0 <= wilds <= 2 and 0 <= level <= 12
            and isinstance(last, tuple) and PyTuple_GET_SIZE(last) == 4):
        return None
    kind, size_o, key_o, tier_o = <object>PyTuple_GET_ITEM(last, 0), <object>PyTuple_GET_ITEM(last, 1), \
        <object>PyTuple_GET_ITEM(last, 2), <object>PyTuple_GET_ITEM(last, 3)
    if not (PyLong_CheckExact(key_o) and PyLong_CheckExact(tier_o) and -1 <= key_o <= 16 and 0 <= tier_o <= 9):
        return None
    cdef long key = key_o, tier = tier_o, size, unit, length, t, n, spare
    cdef u128 nat = as128(natural), above = GD_ABOVE[level][key + 1], ranks, rest
    if not tier:
        if kind == "single":
            if at_least128(nat, 1) & above or (wilds >= 1 and key < 13):
                return True
        elif kind == "pair":
            if at_least128(nat, max(1, 2 - wilds)) & NORMAL128 & above or at_least128(nat, 2) & JOKERS128 & above \
                    or (wilds >= 2 and key < 13):
                return True
        elif kind == "triple":
            if at_least128(nat, max(1, 3 - wilds)) & NORMAL128 & above:
                return True
        elif kind == "full_house":
            ranks = at_least128(nat, max(1, 3 - wilds)) & NORMAL128 & above
            for t in range(13):
                if ranks & rank_guard(t):
                    n = <long>((nat >> (5 * t)) & 31)
                    spare = wilds - max(0, 3 - n)
                    rest = nat - ((<u128>n) << (5 * t))
                    if spare >= 2 or at_least128(rest, 2 - spare) & NORMAL128 or at_least128(rest, 2) & JOKERS128:
                        return True
        elif kind == "straight" or kind == "pair_chain" or kind == "plate":
            unit, length = (1, 5) if kind == "straight" else (2, 3) if kind == "pair_chain" else (3, 2)
            if window_holds128(capped128(positions128(nat), unit), length, unit * length - wilds, key - length + 2,
                               14 - length):
                return True
        else:
            return None
    if tier >= 9:
        return False
    if "bomb" in kinds:
        size = GD_SIZE_ABOVE_TIER[tier]
        if size <= 10 and at_least128(nat, max(1, size - wilds)) & NORMAL128:
            return True
        size = GD_SIZE_OF_TIER[tier]
        if size and at_least128(nat, max(1, size - wilds)) & NORMAL128 & above:
            return True
    if "joker_bomb" in kinds and at_least128(nat, 2) & JOKERS128 == JOKERS128:
        return True
    return tier <= 3 and "straight_flush" in kinds and \
        gd_straight_flush(<const unsigned char *>PyByteArray_AS_STRING(hand), wilds, level, key if tier == 3 else -1)


cdef inline long long sk_bomb_key(long long stars, long long cls, long long rank):
    """shuangkou.bomb_key of a plain bomb (one rank, or none: rank < 0) or a joker bomb."""
    return ((((stars * 4 + cls) * 16) * 32) << 30) | ((rank + 3) << 25 if rank >= 0 else 0)


def shuangkou_beats(natural, long small, long big, last, frozenset kinds, long max_bomb, long chain_min):
    """shuangkou.beating_exists in C (the same answers; None: ask it, as where a bomb on
    the table might be beaten by a bomb chain)."""
    if not (PyLong_CheckExact(natural) and 0 <= natural < (1 << 65) and 0 <= small <= 2 and 0 <= big <= 2
            and isinstance(last, tuple) and PyTuple_GET_SIZE(last) == 4 and 2 <= chain_min <= 13 and max_bomb <= 30):
        return None
    kind, size_o, key_o, tier_o = <object>PyTuple_GET_ITEM(last, 0), <object>PyTuple_GET_ITEM(last, 1), \
        <object>PyTuple_GET_ITEM(last, 2), <object>PyTuple_GET_ITEM(last, 3)
    if not (PyLong_CheckExact(key_o) and PyLong_CheckExact(tier_o) and PyLong_CheckExact(size_o)
            and -16 <= key_o < (1 << 60) and 0 <= tier_o <= 1 and 1 <= size_o <= 30):
        return None
    cdef long long key = key_o, stars
    cdef long tier = tier_o, jokers = small + big, unit, length, r, size
    cdef u128 nat = as128(natural), above = ABOVE128[min(max(key + 1, 0), 15)], fill, run
    if not tier:
        if kind == "single":
            if at_least128(nat, 1) & above or (small > 0 and key < 13) or (big > 0 and key < 14):
                return True
        elif kind == "pair":
            if at_least128(nat, max(1, 2 - jokers)) & NORMAL128 & above or (jokers >= 2 and 13 + min(big, 2) > key):
                return True
        elif kind == "triple":
            if at_least128(nat, max(1, 3 - jokers)) & NORMAL128 & above:
                return True
        elif kind == "straight" or kind == "pair_chain" or kind == "triple_chain":
            unit = 1 if kind == "straight" else 2 if kind == "pair_chain" else 3
            length = size_o // unit
            if window_holds128(capped128(nat & ((<u128>1 << 60) - 1), unit), length, unit * length - jokers,
                               key - length + 2, 12 - length):
                return True
        else:
            return None
        return bool("bomb" in kinds and at_least128(nat, max(1, 4 - jokers)) & NORMAL128) or (
            jokers >= 3 and "three_joker_bomb" in kinds) or (jokers == 4 and "four_joker_bomb" in kinds)
    stars = key >> 41
    if "bomb" in kinds:
        fill = at_least128(nat, max(1, 4 - jokers)) & NORMAL128
        for r in range(13):
            if fill & rank_guard(r):
                size = min(max_bomb, <long>((nat >> (5 * r)) & 31) + jokers)
                if size > stars or (size == stars and sk_bomb_key(size, 2, r) > key):
                    return True
    if (jokers >= 3 and "three_joker_bomb" in kinds and sk_bomb_key(6, 0, -1) > key) or (
            jokers == 4 and "four_joker_bomb" in kinds and sk_bomb_key(7, 0, -1) > key):
        return True
    if "bomb_chain" not in kinds:
        return False
    # a chain needs a run of chain_min ranks each of which the jokers could fill to four
    fill = (at_least128(nat, 4 - jokers) & NORMAL128) if jokers < 4 else NORMAL128
    run = fill
    for r in range(1, chain_min):
        run &= fill >> (5 * r)
    if run:
        return None
    fill = positions128(fill)
    run = fill
    for r in range(1, chain_min):
        run &= fill >> (5 * r)
    return None if run else False


# ----------------------------------------------------------------- moves with wild cards
#
# combos.WildMoves.moves' loop over the table's entries (the reference is the Python
# method: tests/test_kernel.py compares the two): the shortage of each entry against the
# natural counts on 128-bit packed counts, then, for the entries kept, the move named by
# its natural counts and wilds, built from the lowest cards of each rank, its readings
# from the memo (the game's classify on a miss)

from cpython.list cimport PyList_Append
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.ref cimport Py_DECREF
from libc.stdlib cimport calloc, free

cdef u128 LOW40_128 = ((<u128>1) << 40) - 1
cdef u128 NATURAL_FIELDS = ((<u128>1) << 65) - 1  # the count fields of the ranks 3..2
cdef u128 JOKER_FIELDS = (((<u128>1) << 75) - 1) ^ NATURAL_FIELDS


cdef enum:
    READINGS_SLOTS = 16384  # wild_count's readings by name (a power of two), emptied when half full


cdef inline size_t slot_of(u128 key, size_t mask):
    cdef unsigned long long x = <unsigned long long>key ^ (<unsigned long long>(key >> 64) * 0x9E3779B97F4A7C15ULL)
    return <size_t>((x * 0x9E3779B97F4A7C15ULL) >> 40) & mask


cdef class WildTable:
    """A combination table's entries as C arrays, for :func:`wild_moves` and
    :func:`wild_count`; and wild_count's own cache of readings by name (the name as one
    128-bit number: a move's natural counts, its wild cards, whether it is of one suit),
    beside the Python memo it fills from."""

    cdef u128 *packed
    cdef unsigned char *size
    cdef unsigned char *always
    cdef unsigned char *flushable
    cdef Py_ssize_t n
    cdef int wild_bomb
    cdef u128 *names  # 0: an empty slot (a name has bit 127 set)
    cdef PyObject **readings
    cdef Py_ssize_t used
    cdef u128 *met  # wild_count's names met in one call: slots of this call's stamp
    cdef unsigned int *stamps
    cdef unsigned int stamp
    cdef size_t met_mask

    def __cinit__(self, list packed, list sizes, list always, list flushable, int wild_bomb):
        cdef Py_ssize_t i, n = len(packed)
        cdef size_t slots = 64
        self.n = 0
        self.packed = <u128 *>PyMem_Malloc(max(n, 1) * sizeof(u128))
        self.size = <unsigned char *>PyMem_Malloc(max(n, 1) * 3)
        self.names = <u128 *>calloc(READINGS_SLOTS, sizeof(u128))
        self.readings = <PyObject **>calloc(READINGS_SLOTS, sizeof(PyObject *))
        while slots < <size_t>(2 * n):
            slots *= 2
        self.met = <u128 *>calloc(slots, sizeof(u128))
        self.stamps = <unsigned int *>calloc(slots, sizeof(unsigned int))
        self.met_mask = slots - 1
        self.stamp = 0
        self.used = 0
        if self.packed is NULL or self.size is NULL or self.names is NULL or self.readings is NULL \
                or self.met is NULL or self.stamps is NULL:
            raise MemoryError()
        self.always = self.size + n
        self.flushable = self.size + 2 * n
        for i in range(n):
            if not (0 <= packed[i] < (1 << 75)) or not (0 <= sizes[i] <= 30):
                raise ValueError("a table entry out of range")
            self.packed[i] = as128(packed[i])
            self.size[i] = sizes[i]
            self.always[i] = 1 if always[i] else 0
            self.flushable[i] = 1 if flushable[i] else 0
        self.n = n
        self.wild_bomb = wild_bomb

    def __dealloc__(self):
        PyMem_Free(self.packed)
        PyMem_Free(self.size)
        if self.readings is not NULL:
            self.forget()
        free(self.names)
        free(self.readings)
        free(self.met)
        free(self.stamps)

    cdef void forget(self):
        cdef Py_ssize_t k
        for k in range(READINGS_SLOTS):
            if self.readings[k] is not NULL:
                Py_DECREF(<object>self.readings[k])
                self.readings[k] = NULL
            self.names[k] = 0
        self.used = 0

    cdef PyObject *cached(self, u128 name):
        cdef size_t k = slot_of(name, READINGS_SLOTS - 1)
        while self.names[k]:
            if self.names[k] == name:
                return self.readings[k]
            k = (k + 1) & (READINGS_SLOTS - 1)
        return NULL

    cdef void keep(self, u128 name, object readings):
        cdef size_t k
        if self.used * 2 >= READINGS_SLOTS:
            self.forget()
        k = slot_of(name, READINGS_SLOTS - 1)
        while self.names[k] and self.names[k] != name:
            k = (k + 1) & (READINGS_SLOTS - 1)
        if self.names[k]:
            Py_DECREF(<object>self.readings[k])
        else:
            self.names[k] = name
            self.used += 1
        Py_INCREF(readings)
        self.readings[k] = <PyObject *>readings

    cdef bint meet(self, u128 name):
        """Marks *name* met in this call of wild_count; False if it was already."""
        cdef size_t k = slot_of(name, self.met_mask)
        while self.stamps[k] == self.stamp:
            if self.met[k] == name:
                return False
            k = (k + 1) & self.met_mask
        self.stamps[k] = self.stamp
        self.met[k] = name
        return True


cdef bint beats_c(object a, object b) except -1:
    """combos.beats on two Combo tuples (checked by the caller)."""
    ta, tb = <object>PyTuple_GET_ITEM(a, 3), <object>PyTuple_GET_ITEM(b, 3)
    if ta != tb:
        return ta > tb
    if ta:
        return <object>PyTuple_GET_ITEM(a, 2) > <object>PyTuple_GET_ITEM(b, 2)
    return (<object>PyTuple_GET_ITEM(a, 0) == <object>PyTuple_GET_ITEM(b, 0)
            and <object>PyTuple_GET_ITEM(a, 1) == <object>PyTuple_GET_ITEM(b, 1)
            and <object>PyTuple_GET_ITEM(a, 2) > <object>PyTuple_GET_ITEM(b, 2))


cdef bint any_beats_c(tuple plays, tuple lasts) except -1:
    for a in plays:
        for b in lasts:
            if not (isinstance(a, tuple) and PyTuple_GET_SIZE(a) == 4 and isinstance(b, tuple) and PyTuple_GET_SIZE(b) == 4):
                return any_beats(plays, lasts)
            if beats_c(a, b):
                return True
    return False


def wild_moves(WildTable t, out, dict made, list by_rank, list spare, natural, last, classify, dict memo,
               remember):
    """combos.WildMoves.moves' loop: appends (cards, readings) to *out* and each move's
    cards to *made* by name, as the Python method does."""
    cdef u128 nat = as128(natural), d, lack, entry
    cdef Py_ssize_t i, r, wilds = len(spare), short, need, k, suits, last_size = -1
    cdef list cards, have
    cdef tuple lasts = None
    cdef bint follow = last is not None
    if natural < 0 or natural >> 75:
        raise ValueError("natural counts out of range")
    if not isinstance(out, list):
        raise TypeError("out: a list")
    if follow:
        lasts = tuple(last)
        if not any(c.tier for c in lasts):
            last_size = lasts[0].size
    for i in range(t.n):
        entry = t.packed[i]
        d = (entry | GUARD128) - nat
        lack = d & (((d & GUARD128) >> 4) * 15)  # what each rank lacks
        if lack & JOKER_FIELDS:
            continue  # jokers are never wild here
        short = <Py_ssize_t>(((lack * ONES128) >> 70) & 31)  # the sum of the fields (entries of 30 cards at most)
        if short > wilds:
            continue
        if follow and not (t.always[i] or (t.size[i] >= t.wild_bomb and short > 0) or t.size[i] == last_size):
            continue
        entry -= lack  # the move's natural counts
        key = (PyLong_FromUnsignedLongLong(<unsigned long long>(entry & LOW40_128)),
               PyLong_FromUnsignedLongLong(<unsigned long long>(entry >> 40)), short)
        if key in made:
            continue
        if follow and entry and not t.flushable[i]:
            readings = memo.get(key)
            if readings is not None and not (readings and any_beats_c(tuple(readings), lasts)):
                made[key] = i  # its readings do not beat: its cards are made only if add() asks
                continue
        cards = []
        for r in range(15):
            need = <Py_ssize_t>((entry >> (5 * r)) & 31)
            if need:
                if r >= len(by_rank):
                    raise IndexError("no cards of a rank the table uses")
                have = <list>by_rank[r]
                for k in range(min(need, len(have))):
                    cards.append(have[k])
        name = key
        if t.flushable[i] and cards:
            suits = (<long>cards[0]) & 3
            for c in cards:
                if ((<long>c) & 3) != suits:
                    break
            else:
                name = (key, True)  # a straight of one suit also reads as a straight flush
        if short:
            for k in range(short):
                cards.append(spare[k])
            if not (entry & (((<u128>1) << 75) - 1)):
                name = tuple(cards)  # wild cards alone: which ones
        made[key] = cards
        readings = memo.get(name)
        if readings is None:
            readings = classify(cards)
            remember(name, readings)
        if readings and (not follow or any_beats_c(tuple(readings), lasts)):
            PyList_Append(out, (cards, readings))  # (a list's subclass: its own append unchanged)



def wild_count(WildTable t, bytearray hand, Py_ssize_t skip, list spare, natural, last, classify, dict memo,
               remember, bint names=False):
    """wild._wild_count (the reference): how many moves wild_moves would append, counted
    without making them (a move's cards are put together only where its readings are in
    neither cache), the names of the moves of one suit's cards from flushable entries, each
    with its suit, (with *names*; else None) the names met, and the numbers of wild cards
    of the moves of wild cards alone met, as a bit mask (bit k: k wild cards). The natural cards of a rank
    are read from *hand* (card counts by id) as cards_by_rank(hand, skip) lists them:
    lowest suit first, *skip* (a wild card) left out."""
    cdef u128 nat = as128(natural), d, lack, entry, name128
    cdef Py_ssize_t i, r, wilds = len(spare), short, need, k, n = 0, last_size = -1
    cdef unsigned long long alone = 0
    cdef long suit, c, m
    cdef list cards
    cdef unsigned char *held
    cdef PyObject *found
    cdef tuple lasts = None
    cdef set seen = set() if names else None
    cdef dict one_suit = {}
    cdef bint follow = last is not None, mixed
    if natural < 0 or natural >> 75:
        raise ValueError("natural counts out of range")
    if PyByteArray_GET_SIZE(hand) != 54:
        raise ValueError("a hand of 54 card counts")
    held = <unsigned char *>PyByteArray_AS_STRING(hand)
    if follow:
        lasts = tuple(last)
        if not any(x.tier for x in lasts):
            last_size = lasts[0].size
    t.stamp += 1
    if t.stamp == 0:  # (wrapped: every slot's stamp is stale again)
        memset(t.stamps, 0, (t.met_mask + 1) * sizeof(unsigned int))
        t.stamp = 1
    for i in range(t.n):
        entry = t.packed[i]
        d = (entry | GUARD128) - nat
        lack = d & (((d & GUARD128) >> 4) * 15)  # what each rank lacks
        if lack & JOKER_FIELDS:
            continue  # jokers are never wild here
        short = <Py_ssize_t>(((lack * ONES128) >> 70) & 31)  # the sum of the fields (entries of 30 cards at most)
        if short > wilds:
            continue
        if follow and not (t.always[i] or (t.size[i] >= t.wild_bomb and short > 0) or t.size[i] == last_size):
            continue
        entry -= lack  # the move's natural counts
        name128 = entry | (<u128>short << 75) | ((<u128>1) << 127)
        if not t.meet(name128):
            continue  # a name met before: the same move
        key = None
        if names:
            key = (PyLong_FromUnsignedLongLong(<unsigned long long>(entry & LOW40_128)),
                   PyLong_FromUnsignedLongLong(<unsigned long long>(entry >> 40)), short)
            seen.add(key)
        if not (entry & FIELD_MASK):  # wild cards alone: named by which ones, the Python memo's
            alone |= 1ULL << short
            name = tuple(spare[:short])
            readings = memo.get(name)
            if readings is None:
                readings = classify(list(name))
                remember(name, readings)
        else:
            if t.flushable[i]:
                suit = -1
                mixed = False
                for r in range(13):  # (a flushable entry: natural ranks only)
                    need = <Py_ssize_t>((entry >> (5 * r)) & 31)
                    for c in range(4 * r, 4 * r + 4):  # the rank's lowest *need* cards, lowest suit first
                        if need <= 0:
                            break
                        m = held[c] if c != skip else 0
                        if m:
                            need -= m
                            if suit < 0:
                                suit = c & 3
                            elif (c & 3) != suit:
                                mixed = True
                                break
                    if mixed:
                        break
                if not mixed and suit >= 0:
                    if key is None:
                        key = (PyLong_FromUnsignedLongLong(<unsigned long long>(entry & LOW40_128)),
                               PyLong_FromUnsignedLongLong(<unsigned long long>(entry >> 40)), short)
                    one_suit[key] = suit
                    name128 |= (<u128>1) << 80  # a straight of one suit also reads as a straight flush
            found = t.cached(name128)
            if found is not NULL:
                readings = <object>found
            else:
                if key is None:
                    key = (PyLong_FromUnsignedLongLong(<unsigned long long>(entry & LOW40_128)),
                           PyLong_FromUnsignedLongLong(<unsigned long long>(entry >> 40)), short)
                name = (key, True) if name128 >> 80 & 1 else key
                readings = memo.get(name)
                if readings is None:
                    cards = []
                    for r in range(15):
                        need = <Py_ssize_t>((entry >> (5 * r)) & 31)
                        c = 4 * r if r < 13 else 39 + r  # (the jokers: 52 and 53)
                        while need > 0 and c < (4 * r + 4 if r < 13 else 40 + r):
                            m = held[c] if c != skip else 0
                            while m > 0 and need > 0:
                                cards.append(c)
                                m -= 1
                                need -= 1
                            c += 1
                    for k in range(short):
                        cards.append(spare[k])
                    readings = classify(cards)
                    remember(name, readings)
                t.keep(name128, readings)
        if readings and (not follow or any_beats_c(tuple(readings), lasts)):
            n += 1
    return n, one_suit, seen, alone


# ----------------------------------------------------------------- the result check

def same(a, b, python_same):
    """table._same (a declared result's value against the replay's) for what records hold
    most: lists, and values of one type that are equal; anything else (bool against int,
    int against float, ...) goes to *python_same*, the reference."""
    return same_c(a, b, python_same)


cdef bint same_c(object a, object b, object python_same) except -1:
    cdef Py_ssize_t k, n
    if type(a) is list and type(b) is list:
        n = PyList_GET_SIZE(a)
        if n != PyList_GET_SIZE(b):
            return False
        for k in range(n):
            x = <object>PyList_GET_ITEM(a, k)
            y = <object>PyList_GET_ITEM(b, k)
            if not (type(x) is type(y) and type(x) is not list and x == y or same_c(x, y, python_same)):
                return False
        return True
    if type(a) is type(b) and a == b:
        return True
    return python_same(a, b)


def results_agree(declared, replayed, python_same):
    """table.compare_result's loop: True when both are dicts and every declared field the
    replay has holds the same value (same()); False at the first that differs, or for
    anything but two dicts (the caller's Python loop then names it)."""
    cdef Py_ssize_t pos = 0
    cdef PyObject *key
    cdef PyObject *value
    cdef PyObject *mine
    if type(declared) is not dict or type(replayed) is not dict:
        return False
    while PyDict_Next(declared, &pos, &key, &value):
        mine = PyDict_GetItem(replayed, <object>key)
        if mine is not NULL and not same_c(<object>value, <object>mine, python_same):
            return False
    return True


# ----------------------------------------------------------------- the text format's lines

cdef dict BOOL_WORDS = {"yes": True, "no": False, "true": True, "false": False}
cdef dict FLAG_OF = {"bid": "call", "grab": "grab"}
cdef tuple PLAIN_ACTS = ("pass", "peek", "resist", "escape")


# the action words the scan below reads, by length: (word, index) pairs
cdef tuple SCAN_ACTS = ("play", "pass", "bid", "grab", "peek", "resist", "escape")
# the two-letter tokens met so far as str objects (each made once, kept for the process)
cdef PyObject *TOKEN2[128][128]
for _a in range(128):
    for _b in range(128):
        TOKEN2[_a][_b] = NULL
# the boolean words after bid and grab, by their first letter and length
cdef enum:
    MAX_TOKENS = 64


cdef Py_ssize_t ascii_tokens(str text, Py_ssize_t *starts, Py_ssize_t *ends, bint at_sign):
    """Where the tokens of *text* begin and end (into *starts*, *ends*) and how many: ASCII
    letters and digits, and '@' with *at_sign*, between spaces; -1 for any other text or
    more than MAX_TOKENS tokens."""
    cdef Py_ssize_t size, i = 0, j, count = 0
    cdef const unsigned char *s
    cdef unsigned char c
    if not PyUnicode_IS_ASCII(text):
        return -1
    size = PyUnicode_GET_LENGTH(text)
    s = <const unsigned char *>PyUnicode_1BYTE_DATA(text)
    while i < size:
        while i < size and s[i] == 32:
            i += 1
        if i == size:
            break
        if count == MAX_TOKENS:
            return -1
        j = i
        while j < size and s[j] != 32:
            c = s[j]
            if not (48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122 or c == 64 and at_sign):
                return -1
            j += 1
        starts[count] = i
        ends[count] = j
        count += 1
        i = j
    return count


cdef inline object token_at(str line, const unsigned char *s, Py_ssize_t a, Py_ssize_t b):
    """line[a:b] (ASCII): a two-letter token from TOKEN2, made once; others sliced."""
    cdef PyObject *found
    if b - a == 2:
        found = TOKEN2[s[a]][s[a + 1]]
        if found is NULL:
            token = line[a:b]
            Py_INCREF(token)
            TOKEN2[s[a]][s[a + 1]] = <PyObject *>token
            return token
        return <object>found
    return line[a:b]


cdef object scan_action(str line):
    """The common action lines of :func:`parse_action` read by one scan of the line's
    bytes, without splitting it into new strings: a line of ASCII letters and digits
    between single or repeated spaces, a seat of at most 9 digits, one of the words of
    SCAN_ACTS, cards without ``as``, and a last ``@T`` of at most 15 digits. The same dict
    (keys in the same order); None for any other line, which parse_action then reads."""
    cdef Py_ssize_t i, j, count, k
    cdef Py_ssize_t starts[MAX_TOKENS]
    cdef Py_ssize_t ends[MAX_TOKENS]
    cdef const unsigned char *s
    cdef long seat = 0
    cdef long long t = -1
    cdef int which = -1
    cdef list cards
    cdef dict action
    count = ascii_tokens(line, starts, ends, True)
    if count < 2 or ends[0] - starts[0] > 9:
        return None
    s = <const unsigned char *>PyUnicode_1BYTE_DATA(line)
    for i in range(starts[0], ends[0]):
        if not 48 <= s[i] <= 57:
            return None
        seat = seat * 10 + (s[i] - 48)
    # the time: a last token @DIGITS, no leading zero; '@' anywhere else: parse_action
    k = count - 1
    if k >= 2 and s[starts[k]] == 64:
        if ends[k] - starts[k] < 2 or ends[k] - starts[k] > 16 or s[starts[k] + 1] == 48 and ends[k] - starts[k] > 2:
            return None
        t = 0
        for i in range(starts[k] + 1, ends[k]):
            if not 48 <= s[i] <= 57:
                return None
            t = t * 10 + (s[i] - 48)
        count -= 1
    for k in range(1, count):
        for i in range(starts[k], ends[k]):
            if s[i] == 64:
                return None
    j = ends[1] - starts[1]
    for k in range(7):
        word = <str>PyTuple_GET_ITEM(SCAN_ACTS, k)
        if PyUnicode_GET_LENGTH(word) == j and memcmp(PyUnicode_1BYTE_DATA(word), s + starts[1], j) == 0:
            which = k
            break
    if which < 0:
        return None
    act = <str>PyTuple_GET_ITEM(SCAN_ACTS, which)
    key = None  # the act's own field, after the time
    if which == 0:  # play: cards, no "as"
        if count < 3:
            return None
        cards = PyList_New(count - 2)
        for k in range(2, count):
            if ends[k] - starts[k] == 2 and s[starts[k]] == 97 and s[starts[k] + 1] == 115:  # "as"
                return None
            token = token_at(line, s, starts[k], ends[k])
            Py_INCREF(token)
            PyList_SET_ITEM(cards, k - 2, token)
        key, value = "cards", cards
    elif which == 2 or which == 3:  # bid, grab: one word of BOOL_WORDS
        if count != 3:
            return None
        value = BOOL_WORDS.get(line[starts[2]:ends[2]])
        if value is None:
            return None
        key = "call" if which == 2 else "grab"
    elif count != 2:
        return None
    action = {"seat": seat, "act": act}
    if t >= 0:
        action["t"] = t
    if key is not None:
        action[key] = value
    return action


def text_scan(str line):
    """:func:`scan_action` for a test (against parse_action and io.text._parse_action)."""
    return scan_action(line)


cdef object parse_action(str line, long n, object full):
    """io.text._parse_action in C: the common action lines (a play, a pass, a bid or grab,
    with or without ``@T``); anything else goes to *full* (text._parse_action_full), the
    reference, as there. The same dict (keys in the same order) or the same exception."""
    cdef list tokens, rest
    cdef dict action
    cdef str act, digits, last
    cdef Py_ssize_t k, size
    scanned = scan_action(line)
    if scanned is not None:
        return scanned
    if "{" not in line:
        tokens = line.split()
        seat = int(tokens[0])
        size = PyList_GET_SIZE(tokens)
        if size > 1:
            act = <str>PyList_GET_ITEM(tokens, 1)
            action = {"seat": seat, "act": act}
            if size > 2:
                last = <str>PyList_GET_ITEM(tokens, size - 1)
                if last[0] == "@":
                    digits = last[1:]
                    if not (digits.isdigit() and digits.isascii() and (digits[0] != "0" or len(digits) == 1)):
                        return full(line, n)
                    action["t"] = int(digits)
                    size -= 1
            if act == "play":
                rest = tokens[2:size]
                if "as" in rest:
                    k = rest.index("as")
                    if k:
                        action["cards"] = rest[:k]
                        action["as"] = rest[k + 1:]
                        return action
                elif rest:
                    action["cards"] = rest
                    return action
            elif act in PLAIN_ACTS:
                if size == 2:
                    return action
            elif act in FLAG_OF and size == 3:
                word = <object>PyList_GET_ITEM(tokens, 2)
                if word in BOOL_WORDS:
                    action[FLAG_OF[act]] = BOOL_WORDS[word]
                    return action
    return full(line, n)


def text_action(str line, long n, full):
    """:func:`parse_action` for a test (the kernel against io.text._parse_action)."""
    return parse_action(line, n, full)


# the text reader's own pieces, given by io.text (which imports this module) at its import
cdef object FULL = None  # text._parse_action_full
cdef object SEAT_MATCH = None  # text._PLAIN_SEAT.fullmatch
cdef object KEY_MATCH = None  # text._KEY.fullmatch
cdef object NUMBER_MATCH = None  # text._NUMBER.match
cdef tuple NOT_FIELDS = ("players", "deal", "actions")
cdef tuple JSON_WORDS = ("true", "false", "null")


def text_setup(full, seat_match, key_match, number_match):
    global FULL, SEAT_MATCH, KEY_MATCH, NUMBER_MATCH
    FULL, SEAT_MATCH, KEY_MATCH, NUMBER_MATCH = full, seat_match, key_match, number_match


def text_lines(list lines, Py_ssize_t begin, Py_ssize_t end, long n, builder):
    """io.text._lines: the lines ``lines[begin:end]`` of a hand (line *begin* is line
    number *n*) into *builder* (a text._HandBuilder): action lines parsed here, the usual
    game, seat and field lines too (:func:`header_line`), any other line given to
    ``builder.feed``; the same record or the same exception as there."""
    cdef Py_ssize_t i
    cdef str line, stripped
    cdef list actions = builder.actions
    cdef dict record = builder.record
    cdef dict seats = builder.seats
    feed = builder.feed
    if end > PyList_GET_SIZE(lines):
        raise IndexError("text_lines: end past the lines")
    for i in range(begin, end):
        line = <str>PyList_GET_ITEM(lines, i)
        stripped = line.strip()
        if stripped:
            if stripped[0].isdigit():
                actions.append(parse_action(stripped, n, FULL))
            elif not header_line(stripped, record, seats):
                feed(line, stripped, n)
        n += 1


cdef bint header_line(str stripped, dict record, dict seats) except -1:
    """The usual reading of text._HandBuilder.feed for a game line, a seat line with a
    bare name, and a ``KEY: VALUE`` line (a bare word, or JSON that orjson reads as the
    standard decoder does: :func:`orjson_safe`); False for any other line or anything
    unusual, which feed then reads (or names the error of)."""
    cdef Py_ssize_t size = len(stripped)
    cdef list words
    cdef str key, value, v
    if stripped.startswith("game") and (size == 4 or stripped[4] in " \t"):
        words = stripped.split()
        if len(words) != 3 or "game" in record:  # (a second game line: feed names the error)
            return False
        record["game"] = words[1]
        record["variant"] = words[2]
        return True
    if stripped.startswith("seat") and size > 4 and stripped[4] in " \t":
        scanned = scan_seat(stripped, size, seats)
        if scanned is not None:
            return scanned
        m = SEAT_MATCH(stripped)
        if m is None:
            return False
        seat = int(m.group(1))
        if seat in seats:
            return False
        seats[seat] = (m.group(2), m.group(3).split())
        return True
    key, sep, value = stripped.partition(":")
    key = key.strip()
    if not sep or KEY_MATCH(key) is None or key in record or key in NOT_FIELDS:
        return False
    if key == "bottom":
        record[key] = value.split()
        return True
    v = value.strip()
    number = small_number(v)
    if number is not None:
        record[key] = number
        return True
    if v and (v[0] in '{["' or v in JSON_WORDS or NUMBER_MATCH(v) is not None):
        if not orjson_safe(v):
            return False
        try:
            record[key] = _orjson_loads(v)
        except ValueError:  # orjson.JSONDecodeError: feed's reading names the error
            return False
        return True
    record[key] = v
    return True


cdef object scan_seat(str stripped, Py_ssize_t size, dict seats):
    """A seat line ``seat N NAME: CARDS`` read as text._PLAIN_SEAT reads it, for the usual
    one: N of ASCII digits (at most 9), a bare name, ASCII cards. True when it was taken
    (the seat put in *seats*), None for any other line (the regex then reads it)."""
    cdef Py_ssize_t i = 4, j, name_at, colon
    cdef long seat = 0
    cdef Py_UCS4 ch
    while i < size and Py_UNICODE_ISSPACE(stripped[i]):
        i += 1
    j = i
    while j < size and u'0' <= stripped[j] <= u'9':
        seat = seat * 10 + (<long>stripped[j] - 48)
        j += 1
    if j == i or j - i > 9 or j == size or not Py_UNICODE_ISSPACE(stripped[j]):
        return None
    while j < size and Py_UNICODE_ISSPACE(stripped[j]):
        j += 1
    name_at = j
    if j == size or stripped[j] == u'"':
        return None
    while j < size:
        ch = stripped[j]
        if ch == u':':
            break
        if Py_UNICODE_ISSPACE(ch):
            return None
        j += 1
    if j == size or j == name_at or seat in seats:
        return None
    colon = j
    rest = stripped[colon + 1:]
    cards = scan_tokens(rest)
    seats[seat] = (stripped[name_at:colon], rest.split() if cards is None else cards)
    return True


cdef object scan_tokens(str text):
    """text.split() for at most MAX_TOKENS ASCII letters and digits between spaces, each
    two-letter token made once (token_at); None for anything else."""
    cdef Py_ssize_t starts[MAX_TOKENS]
    cdef Py_ssize_t ends[MAX_TOKENS]
    cdef Py_ssize_t count = ascii_tokens(text, starts, ends, False), k
    cdef const unsigned char *s
    if count < 0:
        return None
    s = <const unsigned char *>PyUnicode_1BYTE_DATA(text)
    return [token_at(text, s, starts[k], ends[k]) for k in range(count)]


cdef object small_number(str v):
    """The int of *v* when it is a JSON integer of at most 18 ASCII digits with no sign,
    fraction or leading zero (what orjson and the standard decoder both read as that
    int); None otherwise."""
    cdef Py_ssize_t size = PyUnicode_GET_LENGTH(v), i
    cdef const unsigned char *s
    cdef long long value = 0
    if size == 0 or size > 18 or not PyUnicode_IS_ASCII(v):
        return None
    s = <const unsigned char *>PyUnicode_1BYTE_DATA(v)
    if s[0] == 48 and size > 1:
        return None
    for i in range(size):
        if not 48 <= s[i] <= 57:
            return None
        value = value * 10 + (s[i] - 48)
    return value


def text_header(str stripped):
    """:func:`header_line` for a test: (taken, record, seats) of one line."""
    record, seats = {}, {}
    return header_line(stripped, record, seats), record, seats


cdef bint orjson_safe(str v):
    """Where orjson reads *v* (stripped JSON) as text._json_loads does: no fraction or
    exponent (floats are left to Python's float), no run of 19 digits or more (orjson reads
    big integers as floats), fewer than 200 brackets (no depth limit reached)."""
    cdef Py_ssize_t run = 0, brackets = 0
    cdef Py_UCS4 ch
    for ch in v:
        if u'0' <= ch <= u'9':
            run += 1
            if run >= 19:
                return False
        else:
            if run and (ch == u'.' or ch == u'e' or ch == u'E'):
                return False
            run = 0
            if ch == u'[' or ch == u'{':
                brackets += 1
                if brackets >= 200:
                    return False
    return True


# ----------------------------------------------------------------- the record's checks

def check_actions(list actions, long n, bint action_cards, frozenset card_set, check_action):
    """record._check_actions in C: a well-formed play, pass, bid or grab is taken here;
    any other action goes to *check_action* (record._check_action), the reference."""
    cdef Py_ssize_t i, k, size
    cdef dict a
    cdef bint taken
    for i in range(PyList_GET_SIZE(actions)):
        item = <object>PyList_GET_ITEM(actions, i)
        taken = False
        if type(item) is dict:
            a = <dict>item
            seat = a.get("seat")
            act = a.get("act")
            t = a.get("t")
            if _seat_ok(seat, n) and _time_ok(t):
                if type(act) is str:
                    if act == "pass":
                        taken = True
                    elif act == "play":
                        cards = a.get("cards")
                        if type(cards) is list and PyList_GET_SIZE(cards) and "as" not in a and "declared" not in a:
                            if action_cards:
                                taken = _all_in(<list>cards, card_set)
                            else:
                                taken = True
                                for k in range(PyList_GET_SIZE(cards)):
                                    if type(<object>PyList_GET_ITEM(cards, k)) is not str:
                                        taken = False
                                        break
                    elif act == "bid":
                        taken = type(a.get("call")) is bool
                    elif act == "grab":
                        taken = type(a.get("grab")) is bool
        if not taken:
            check_action(item, i, n, action_cards)


cdef inline bint _seat_ok(object seat, long n):
    """type(seat) is int and 0 <= seat < n, compared in C."""
    cdef int overflow = 0
    cdef long v
    if type(seat) is not int:
        return False
    v = PyLong_AsLongAndOverflow(seat, &overflow)
    return overflow == 0 and 0 <= v < n


cdef inline bint _time_ok(object t):
    """t is None or an int or float (not a bool) from 0 to 2^53 (record.MAX_EXACT), compared
    in C (a NaN fails, as there)."""
    cdef int overflow = 0
    cdef long long v
    cdef double d
    if t is None:
        return True
    if type(t) is int:
        v = PyLong_AsLongLongAndOverflow(t, &overflow)
        return overflow == 0 and 0 <= v <= 9007199254740992LL
    if type(t) is float:
        d = PyFloat_AS_DOUBLE(t)
        return 0.0 <= d <= 9007199254740992.0
    return False


cdef bint _all_in(list cards, frozenset card_set):
    """card_set.issuperset(cards), False where an element is not hashable (the slow path
    names it) as in the reference."""
    cdef Py_ssize_t k
    for k in range(PyList_GET_SIZE(cards)):
        x = <object>PyList_GET_ITEM(cards, k)
        if type(x) is str:
            if x not in card_set:
                return False
        else:
            try:
                if x not in card_set:
                    return False
            except TypeError:
                return False
    return True


# ----------------------------------------------------------------- the dataset's action columns

cdef tuple ACTION_COLUMNS = ("seat", "act", "cards", "as", "call", "grab", "factor", "card", "to", "t")
cdef dict COLUMN_OF = {name: k for k, name in enumerate(ACTION_COLUMNS)}


def action_columns(list flat, dict bases):
    """The values of io.dataset's action fields (ACTION_COLUMNS) as one list per field
    (None where an action lacks it or holds null), how many are not None, and the actions
    that may carry extra fields (io.dataset._maybe_extra's test: more keys than *bases*
    gives the act, 2 for others, plus a non-null ``t`` and ``as``; all of them when an act
    is null); or None when an action is not a dict. Each action's own keys are walked (a
    few), not the ten fields looked up."""
    cdef Py_ssize_t n = PyList_GET_SIZE(flat), i, k, pos, expected
    cdef Py_ssize_t counts[10]
    cdef PyObject *key
    cdef PyObject *value
    cdef PyObject *found
    cdef list columns = [[None] * n for _ in range(10)]
    cdef list column
    cdef list maybe = []
    cdef bint act_missing = False
    for k in range(10):
        counts[k] = 0
    for i in range(n):
        a = <object>PyList_GET_ITEM(flat, i)
        if type(a) is not dict:
            return None
        pos = 0
        expected = 2
        act = None
        while PyDict_Next(a, &pos, &key, &value):
            if <object>value is None:
                continue
            found = PyDict_GetItem(COLUMN_OF, <object>key)
            if found is NULL:
                continue
            k = <Py_ssize_t><long>(<object>found)
            column = <list>PyList_GET_ITEM(columns, k)
            column[i] = <object>value
            counts[k] += 1
            if k == 1:
                act = <object>value
            elif k == 3 or k == 9:  # "as", "t"
                expected += 1
        if act is None:
            act_missing = True
        else:
            found = PyDict_GetItem(bases, act)
            if found is not NULL:
                expected += <long>(<object>found) - 2
        if PyDict_Size(a) > expected:
            maybe.append(i)
    return columns, [counts[k] for k in range(10)], list(range(n)) if act_missing else maybe
