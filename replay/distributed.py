"""Per-part batch work on many cores: a local process pool (the default) or a Ray cluster.

:func:`run_parts` runs ``fn(*job)`` for every job and returns the results in job order,
calling ``on_result(index, result)`` as each job finishes (progress bars follow that).
A job must be a pure function of its arguments as far as the dataset goes: it reads its
part files and writes its output under names that depend only on the inputs, so running
it twice (a retry after a worker died) leaves the same files as running it once.

Ray (``pip install 'paipu[ray]'``) is used when an address is given:

- ``"local"``: a Ray instance started for this run on this machine (stopped after it);
- ``"auto"``: the cluster this machine belongs to (``ray start`` ran here);
- ``"ray://HOST:PORT"``: a remote cluster through the Ray client;
- any other address is handed to ``ray.init`` as it is.

When the driver is already connected (``ray.init`` ran in this process, as in the tests)
that connection is used whatever the address says.  Every job is one Ray task of one CPU,
retried up to *retries* times when its worker process or node dies.  Ray keeps a worker
process alive between the tasks of a run, so whatever a job builds once per process (the
combination tables of :meth:`replay.table.Table.combo_table`) is built once per worker,
not once per part.  Workers must import ``fn``'s module: paipu is installed on every node.
A dataset they work on must be where every node reaches it: object storage
(:mod:`replay.io.store`; the driver's ``AWS_ENDPOINT_URL`` goes with the tasks), or a
folder shared by every node under the same path.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

#: how often a Ray task is run again after its worker or node died
RETRIES = 3
#: environment variables of the driver that Ray tasks get too: where object storage is,
#: which extra games are registered (credentials are each node's own, never sent)
FORWARDED = ("AWS_ENDPOINT_URL", "AWS_DEFAULT_REGION", "AWS_REGION", "PAIPU_GAMES")


class ClusterError(RuntimeError):
    """Ray is missing, or the cluster cannot be reached (the message says which)."""


def run_parts(fn: Callable[..., Any], jobs: Sequence[tuple], ray_address: str | None = None,
              workers: int | None = None, on_result: Callable[[int, Any], None] | None = None,
              retries: int = RETRIES) -> list:
    """``[fn(*job) for job in jobs]``, on a local pool of *workers* processes (default: all
    cores; 1: in this process) or, with *ray_address*, as Ray tasks."""
    if ray_address is not None:
        return _run_ray(fn, jobs, ray_address, on_result, retries)
    return _run_local(fn, jobs, workers or os.cpu_count() or 1, on_result)


def die_with_parent(parent: int) -> None:
    """In a worker process: be killed (SIGKILL) when the process *parent* ends, however it
    ends (``kill -9`` included), so that no worker goes on writing or computing for a run
    that is gone.  Linux's ``PR_SET_PDEATHSIG``; elsewhere a thread polls the parent."""
    import signal
    import sys

    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            _poll_parent(parent)
    else:
        _poll_parent(parent)
    if os.getppid() != parent:  # the parent died before the call: nothing would signal us
        os._exit(1)


def _poll_parent(parent: int) -> None:
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


class WorkerDied(RuntimeError):
    """A worker process of the local pool died (killed: the out-of-memory killer, ``kill -9``).

    *failed*: the indexes of the jobs the dead workers were running (empty when it cannot
    be told); *unfinished*: every job without a result.  The pool is shut down by then."""

    def __init__(self, failed: list[int], unfinished: list[int]):
        super().__init__(f"a worker process died while running job(s) {failed or unfinished}")
        self.failed, self.unfinished = failed, unfinished


#: in a pool worker: (the pool's table of running jobs, this worker's row in it)
_slot: tuple[Any, int] | None = None


def _init_worker(parent: int, running, count) -> None:
    """A local pool worker: dies with its parent, and notes in *running* the job it runs
    (-1: none), so that the parent can tell which job a killed worker took down with it.
    The pool ends the workers it shuts down with SIGTERM: those mark their row free first,
    so that only a worker killed otherwise leaves its job there."""
    import signal

    global _slot
    die_with_parent(parent)
    with count.get_lock():
        row = count.value
        count.value += 1
    _slot = (running, row)
    running[row] = -1

    def ended(signum, frame) -> None:
        running[row] = -1
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, ended)


def _run_job(fn, index: int, job: tuple):
    if _slot is None:  # pragma: no cover - always set by _init_worker
        return fn(*job)
    running, row = _slot
    running[row] = index
    result = fn(*job)
    running[row] = -1
    return result


def _run_local(fn, jobs, workers: int, on_result) -> list:
    results: list = [None] * len(jobs)
    if workers <= 1 or len(jobs) <= 1:
        for i, job in enumerate(jobs):
            results[i] = fn(*job)
            if on_result:
                on_result(i, results[i])
        return results
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool
    from multiprocessing import get_context

    context = get_context("spawn")
    n = min(workers, len(jobs))
    running, count = context.Array("q", [-1] * n, lock=False), context.Value("i", 0)
    pool = ProcessPoolExecutor(n, mp_context=context, initializer=_init_worker,
                               initargs=(os.getpid(), running, count))
    done: set[int] = set()
    try:
        futures = {pool.submit(_run_job, fn, i, job): i for i, job in enumerate(jobs)}
        for future in as_completed(futures):
            i = futures[future]
            try:
                results[i] = future.result()
            except BrokenProcessPool:
                pool.shutdown(wait=True, cancel_futures=True)
                failed = sorted({k for k in running if 0 <= k < len(jobs) and k not in done})
                raise WorkerDied(failed, [k for k in range(len(jobs)) if k not in done]) from None
            done.add(i)
            if on_result:
                on_result(i, results[i])
    except KeyboardInterrupt:  # Ctrl-C: stop now, not after the jobs running (a review's can take minutes)
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            process.terminate()  # (SIGTERM: the worker marks its row free and exits, _init_worker)
        raise
    finally:  # an error: no job left running or queued (its output would never be committed)
        pool.shutdown(wait=True, cancel_futures=True)
    return results


def _call(fn, job):
    return fn(*job)


def _run_ray(fn, jobs, address: str, on_result, retries: int) -> list:
    ray, started = connect(address)
    try:
        # SPREAD: long CPU-bound tasks go round the nodes rather than fill the driver's first
        options: dict = {"num_cpus": 1, "max_retries": retries, "retry_exceptions": False,
                         "scheduling_strategy": "SPREAD"}
        forwarded = {k: os.environ[k] for k in FORWARDED if k in os.environ}
        if forwarded:
            options["runtime_env"] = {"env_vars": forwarded}
        task = ray.remote(**options)(_call)
        fn_ref = ray.put(fn)
        pending = {task.remote(fn_ref, job): i for i, job in enumerate(jobs)}
        results: list = [None] * len(jobs)
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                i = pending.pop(ref)
                results[i] = ray.get(ref)
                if on_result:
                    on_result(i, results[i])
        return results
    finally:
        if started:
            ray.shutdown()


def connect(address: str):
    """(the ray module, whether this call connected): the driver's connection to a cluster."""
    try:
        import ray
    except ImportError:
        raise ClusterError("Ray is not installed: pip install 'paipu[ray]'") from None
    if ray.is_initialized():
        return ray, False
    options: dict = {"logging_level": "ERROR", "log_to_driver": False, "configure_logging": True}
    try:
        if address == "local":
            if "RAY_TMPDIR" not in os.environ and len(os.environ.get("TMPDIR", "")) > 30:
                # Ray's socket names under TMPDIR/ray/session_.../sockets/ must stay short
                os.environ["RAY_TMPDIR"] = "/tmp"
            ray.init(include_dashboard=False, **options)
        else:
            ray.init(address=address, **options)
    except (ConnectionError, RuntimeError, ValueError) as e:
        raise ClusterError(f"cannot reach the Ray cluster at {address!r}: {str(e).splitlines()[0]}") from None
    return ray, True
