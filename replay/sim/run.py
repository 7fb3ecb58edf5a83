"""``paipu simulate`` to a file: blocks of hands in worker processes, written in order,
through a temporary file renamed at the end, so that Ctrl-C or ``kill`` leaves a valid
file of complete hands (a ``.gz`` closed properly) and a crash leaves the old file.

The hands do not depend on the number of workers: a block is :data:`~replay.sim.BLOCK`
hands (a new match starts at each block), and blocks are written in order.
"""

from __future__ import annotations

import itertools
import os
import signal
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from types import FrameType
from typing import Any

from ..games import find_rules
from . import BLOCK, simulate
from .bots import BOTS
from .search import bot_named
from .core import Seat


@dataclass(frozen=True)
class Job:
    """What a worker plays: hands ``start..start+hands`` of one setting."""

    game: str
    variant: str | None
    seed: int
    start: int
    hands: int
    params: dict | None = None
    prefix: str | None = None
    escape_rate: float = 0.0
    bot: str = "fast"
    text: bool = False
    #: the search bot's budget per decision, ms (None: its default)
    budget: float | None = None


def jobs(game: str, variant: str | None, hands: int, seed: int, settings: Sequence[dict | None],
         compare: bool = False, **kw) -> Iterator[Job]:
    """The blocks of a run, in file order: each block of deals under every setting in turn.
    Made as they are consumed: the memory of a run does not depend on its number of hands
    (a list of a billion hands' jobs took 2.5 GB before the first hand)."""
    rules = find_rules(game, variant)
    for start in range(0, hands, BLOCK):
        for j, params in enumerate(settings):
            prefix = f"{rules.game}-{rules.variant}-s{seed}" + (f"-c{j}" if compare else "")
            yield Job(rules.game, rules.variant, seed, start, min(BLOCK, hands - start), params or None,
                      prefix, **kw)


def job_count(hands: int, settings: int) -> int:
    """The number of blocks :func:`jobs` makes."""
    return -(-hands // BLOCK) * settings


def records(job: Job) -> Iterator[dict]:
    policy = bot_named(job.bot, job.budget)
    players = find_rules(job.game, job.variant).with_params(job.params).players
    seats_for = None if policy is BOTS["fast"] else (lambda k: [Seat(None, policy) for _ in range(players)])
    return simulate(job.game, job.variant, job.hands, job.seed, job.escape_rate, job.params, job.prefix,
                    seats_for=seats_for, start=job.start)


def simulate_settings(game: str, variant: str | None, hands: int, seed: int, settings: Sequence[dict | None],
                      **kw) -> Iterator[dict]:
    """Duplicate deals: deals 0..*hands* under each setting (rule params) in turn, block by
    block, as ``paipu simulate --compare`` writes them (ids ``…-c<setting>-<k>``)."""
    for job in jobs(game, variant, hands, seed, settings, compare=True, **kw):
        yield from records(job)


def encode(record: dict, text: bool) -> bytes:
    from ..io.jsonl import record_to_json
    from ..io.text import record_to_text

    return ("\n" + record_to_text(record)).encode() if text else record_to_json(record) + b"\n"


#: the files simulate writes, by ending (each may also end in .gz): JSONL or the text format
SIMULATED = {".jsonl": "jsonl", ".ndjson": "jsonl", ".paipu": "text", ".txt": "text"}


def output_format(output: str) -> str:
    """jsonl or text, by the name of the file *output* ('-': JSONL on standard output); a
    ValueError for any other ending (a .csv got JSONL without a word).

    >>> output_format("-"), output_format("a.paipu.gz")
    ('jsonl', 'text')
    """
    if output == "-":
        return "jsonl"
    base = output.removesuffix(".gz")
    for ending, kind in SIMULATED.items():
        if base.endswith(ending):
            return kind
    raise ValueError(f"simulate writes {', '.join(SIMULATED)} (JSONL or the text format), "
                     "optionally gzipped as .gz, or '-' for standard output")


def default_workers(hands: int, settings: int, cores: int) -> int:
    """The processes to play *hands* deals under *settings* settings on *cores* cores: one
    for a single block of work, else every core up to the blocks there are."""
    return min(cores, job_count(hands, settings)) if hands * settings > BLOCK else 1


def write_records(output: str, records: Iterable[dict], text: bool) -> int:
    """*records* into *output* ("-": stdout) in JSONL or the text format, the file whole
    or not at all (:func:`~replay.io.output.atomic_file`); the records written."""
    n = 0
    with _sink(output) as f:
        for record in records:
            f.write(_placed(encode(record, text), n))
            n += 1
        f.flush()
    return n


def _sink(output: str) -> Any:
    """Where simulate writes: standard output for "-", else *output* whole or not at all
    (:func:`~replay.io.output.atomic_file`)."""
    from ..io.output import atomic_file

    return nullcontext(sys.stdout.buffer) if output == "-" else atomic_file(output)


def _placed(chunk: bytes, n: int) -> bytes:
    """The *n*-th record's bytes as written: a text-format record starts with its blank
    line (:func:`encode`), but not the file's first."""
    return chunk[1:] if n == 0 and chunk[:1] == b"\n" else chunk


def run_job(job: Job) -> list[bytes]:
    """A worker's block, encoded (the text format's records each start with a blank line)."""
    return [encode(r, job.text) for r in records(job)]


_STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def _quiet_worker(parent: int) -> None:
    from ..distributed import die_with_parent

    die_with_parent(parent)  # a killed run leaves no worker playing on
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # the pool forked this process with the stop signals blocked (produce): a SIGTERM of the
    # pool's terminate() that came before the handlers above is delivered now and ends it
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)


class Stop:
    """Set by SIGINT/SIGTERM: the run stops after the hand being written."""

    def __init__(self) -> None:
        self.asked = False
        self.old: dict[int, Callable[[int, FrameType | None], object] | int | None] = {}

    def __enter__(self) -> Stop:
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                self.old[sig] = signal.signal(sig, self._ask)
            except ValueError:  # not the main thread: no handlers, the run is not interruptible
                pass
        return self

    def _ask(self, signum, frame) -> None:
        self.asked = True

    def __exit__(self, *exc) -> None:
        for sig, old in self.old.items():
            signal.signal(sig, old)


def produce(job_list: Iterable[Job], workers: int, stop: Stop) -> Iterator[list[bytes]]:
    """Blocks of encoded hands in order; one hand at a time in-process (workers ≤ 1).
    With workers, at most two blocks a worker are asked for ahead of the one written."""
    if workers <= 1:
        for job in job_list:
            for record in records(job):
                yield [encode(record, job.text)]
                if stop.asked:
                    return
        return
    import multiprocessing

    todo = iter(job_list)
    first = list(itertools.islice(todo, 2 * workers))
    if not first:  # no work: no pool
        return
    # A forked worker inherits the parent's handlers, Stop's among them, which only note a
    # SIGTERM: one that the pool's terminate() sent before the worker's own handlers were set
    # was noted and ignored, and the pool's join waited for ever (a run stopped or done at
    # once). The workers start with the stop signals blocked and unblock them when ready.
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
    try:
        pool = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn").Pool(
            workers, initializer=_quiet_worker, initargs=(os.getpid(),))
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    try:
        pending = deque(pool.apply_async(run_job, (job,)) for job in first)
        while pending:
            block = pending.popleft().get()
            pending.extend(pool.apply_async(run_job, (job,)) for job in itertools.islice(todo, 1))
            yield block
            if stop.asked:
                return
    finally:
        pool.terminate()
        pool.join()


def write(output: str, job_list: Iterable[Job], workers: int = 1,
          on_hands: Callable[[int], None] | None = None) -> tuple[int, bool]:
    """Play *job_list* into *output* ("-": stdout); (hands written, interrupted?).

    A file is written through :func:`~replay.io.output.atomic_file`: an error (a full
    disk) leaves the old file and nothing beside it; a kill leaves the old file and a
    ``.NAME.part-PID`` that the next run removes."""
    n = 0
    with _sink(output) as f:
        with Stop() as stop:
            for block in produce(job_list, workers, stop):
                for chunk in block:
                    f.write(_placed(chunk, n))
                    n += 1
                if on_hands:
                    on_hands(len(block))
            interrupted = stop.asked
        f.flush()
    return n, interrupted
