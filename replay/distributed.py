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


def _run_local(fn, jobs, workers: int, on_result) -> list:
    results: list = [None] * len(jobs)
    if workers <= 1 or len(jobs) <= 1:
        for i, job in enumerate(jobs):
            results[i] = fn(*job)
            if on_result:
                on_result(i, results[i])
        return results
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from multiprocessing import get_context

    with ProcessPoolExecutor(min(workers, len(jobs)), mp_context=get_context("spawn")) as pool:
        futures = {pool.submit(fn, *job): i for i, job in enumerate(jobs)}
        for future in as_completed(futures):
            i = futures[future]
            results[i] = future.result()
            if on_result:
                on_result(i, results[i])
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
