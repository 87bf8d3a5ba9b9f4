"""Where a sweep's units run: a local process pool, or Ray (a local instance or a cluster's address).

Both yield each unit's result as it finishes, with the unit's run directory in place under the sweep
directory: local workers write it there directly; a Ray worker, which may be on another machine,
plays into a scratch directory and sends it back as a tar archive that the driver unpacks.
LLM requests are bounded per endpoint across all workers by a shared gate (llm/gate.py).
"""

from __future__ import annotations

import atexit
import ctypes
import io
import multiprocessing
import os
import shutil
import signal
import sys
import tarfile
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

from blockpact.experiments.studies.pool_stop import stop_workers
from blockpact.experiments.play.stopping import HeldSignals, Terminated
from blockpact.experiments.studies.study import Unit
from blockpact.experiments.studies.sweep import UnitResult, play_unit


def endpoint_bounds(units: list[Unit], bound: int) -> dict[str, int]:
    """Every LLM endpoint the units call, each with the study's bound."""
    return {u.llm["base_url"]: bound for u in units if u.llm is not None and u.llm.get("base_url")}


def longest_first(units: list[Unit]) -> list[Unit]:
    """The order workers take units in: the costliest first (a stable sort: equal ones keep the study's order)."""
    return sorted(units, key=lambda u: -u.cost)


def _failed(unit: Unit, error: BaseException) -> UnitResult:
    return UnitResult(unit.id, str(unit.dir), "failed", 0.0, f"{type(error).__name__}: {error}")


# -- local process pool ---------------------------------------------------------------------------

_stopping = False  # in a worker: SIGINT or SIGTERM seen, so units still queued to it are not started
_playing = False  # in a worker: a unit is being played (a stop ends it as interrupted; between units, the worker)
WORKER_STOP_SECONDS = 30.0  # a worker sent SIGTERM ends by then, whatever it is doing (its driver may be gone)
PR_SET_PDEATHSIG = 1  # prctl(2)
_driver = 0  # in a worker: its driver's pid


def _on_stop(signum: int, frame: Any) -> None:
    """A worker's SIGINT and SIGTERM: the first ends the unit being played as interrupted (recorded, so the re-run
    plays it again), or the worker if it is between units; SIGTERM also makes sure it ends soon after."""
    global _stopping
    first = not _stopping
    _stopping = True
    if signum == signal.SIGTERM and not _deadline_armed.is_set():
        _deadline_armed.set()
        threading.Thread(target=_end_after, args=(WORKER_STOP_SECONDS,), name="stop-deadline", daemon=True).start()
    if not first:
        return  # the unit is ending already: a second signal would cut its outputs short
    if not _playing:
        raise SystemExit(128 + signum)
    raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


_deadline_armed = threading.Event()


def _end_after(seconds: float) -> None:
    """Ends the worker without its exit hooks: its Node bridge ends as its stdin closes (guard.js)."""
    time.sleep(seconds)
    _leave_scratch()
    os._exit(128 + signal.SIGTERM)


_scratch = ""  # in a worker: the pool's temporary directory, which its driver removes


def _leave_scratch() -> None:
    """A worker whose driver is gone removes the pool's temporary directory if it is empty (the last one out)."""
    if _scratch and os.getppid() != _driver:
        try:
            os.rmdir(_scratch)
        except OSError:
            pass


def _die_with_driver(driver: int) -> None:
    """SIGTERM when the driver goes, even by SIGKILL: a worker never plays on (and waits forever) without it."""
    if not sys.platform.startswith("linux"):
        return
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != driver:  # the driver went before prctl took effect
        os._exit(128 + signal.SIGTERM)


def _exit_at_once() -> None:
    """A worker's last exit hook (registered first, so it runs after every other one, the Node runtime's
    close included): end the process without the interpreter's teardown, which took ~0.4 s per worker
    (numba, numpy, JSPyBridge's objects), time the driver spent waiting at the end of every sweep."""
    sys.stdout.flush()
    sys.stderr.flush()
    _leave_scratch()
    os._exit(0)


def _init_local_worker(semaphores: Mapping[str, Any], driver: int, scratch: str) -> None:
    from blockpact.llm import gate

    global _scratch, _driver
    atexit.register(_exit_at_once)
    tempfile.tempdir = os.environ["TMPDIR"] = _scratch = scratch  # its own and its Node runtime's temporary files
    _driver = driver
    # installed before any Node runtime starts, so the runtime's own SIGTERM handler (SystemExit, which the
    # pool's worker loop would catch as a unit's error and go on) is not put in its place
    signal.signal(signal.SIGINT, _on_stop)
    signal.signal(signal.SIGTERM, _on_stop)
    _die_with_driver(driver)
    for url, semaphore in semaphores.items():
        gate.install(url, gate.SemaphoreGate(semaphore))


def _play_local(unit: Unit, run_root: str) -> UnitResult:
    global _playing
    if _stopping:
        return UnitResult(unit.id, str(unit.dir), "interrupted", 0.0, "not started: the sweep was interrupted")
    _playing = True
    try:
        return play_unit(unit, Path(run_root))
    finally:
        _playing = False
        if _stopping and os.getppid() != _driver:  # no driver to take the result or send another unit
            threading.Thread(target=_end_after, args=(1.0,), name="stop-orphan", daemon=True).start()


def local_results(root: Path, units: list[Unit], workers: int, bounds: Mapping[str, int]) -> Iterator[UnitResult]:
    """Fresh processes (spawn, not fork: no inherited threads or Node children), `workers` at a time."""
    ctx = multiprocessing.get_context("spawn")
    manager = ctx.Manager() if bounds else None
    # the workers' temporary directory, removed with the pool: what a worker killed at a stop left goes too
    scratch = tempfile.mkdtemp(prefix="blockpact-workers-")
    try:
        semaphores = {url: manager.BoundedSemaphore(n) for url, n in bounds.items()} if manager else {}
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_init_local_worker,
                                 initargs=(semaphores, os.getpid(), scratch)) as pool:
            pending: dict[Future[UnitResult], Unit] = {
                pool.submit(_play_local, unit, str(root / unit.dir)): unit for unit in longest_first(units)}
            try:
                while pending:
                    done, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for future in done:
                        unit = pending.pop(future)
                        try:
                            yield future.result()
                        except Exception as exc:  # a worker died (killed, out of memory)
                            yield _failed(unit, exc)
            except BaseException as exc:  # SIGINT, SIGTERM (stopping.Terminated), the consumer gone, a bug
                _stop_pool(pool, exc)
                raise
    finally:
        if manager is not None:
            manager.shutdown()
        shutil.rmtree(scratch, ignore_errors=True)


def _stop_pool(pool: ProcessPoolExecutor, exc: BaseException) -> None:
    """No unit starts, the running ones end as interrupted, no worker or its Node bridge outlives the driver
    (pool_stop.py). A SIGINT or SIGTERM meanwhile hurries it on; a SIGTERM then makes the stop a termination."""
    workers = list((pool._processes or {}).values())  # by pid; shutdown forgets them
    with HeldSignals() as held:
        pool.shutdown(wait=False, cancel_futures=True)
        stop_workers(workers, held.hurry)
    if held.terminated and not isinstance(exc, Terminated):
        raise Terminated() from exc


# -- Ray ------------------------------------------------------------------------------------------

class RayGate:
    """A gate held by a Ray actor, so workers on every machine share one bound per endpoint."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor

    async def acquire(self) -> None:
        await self.actor.acquire.remote()

    async def release(self) -> None:
        await self.actor.release.remote()


class _SemaphoreActor:
    def __init__(self, slots: int) -> None:
        import asyncio

        self.semaphore = asyncio.Semaphore(slots)

    async def acquire(self) -> None:
        await self.semaphore.acquire()

    async def release(self) -> None:
        self.semaphore.release()


def _play_ray(unit: Unit, actors: Mapping[str, Any]) -> tuple[UnitResult, bytes]:
    """On a Ray worker: play into a scratch directory, send the run directory back as a tar.gz."""
    from blockpact.llm import gate

    for url, actor in actors.items():
        gate.install(url, RayGate(actor))
    with tempfile.TemporaryDirectory(prefix="blockpact-ray-unit-") as tmp:
        run_root = Path(tmp) / "run"
        result = play_unit(unit, run_root)
        buffer = io.BytesIO()
        if run_root.exists():
            with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
                tar.add(run_root, arcname=".")
        return result, buffer.getvalue()


def _unpack(archive: bytes, target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        tar.extractall(target, filter="data")


def ray_results(root: Path, units: list[Unit], address: str | None, workers: int,
                bounds: Mapping[str, int]) -> Iterator[UnitResult]:
    """On the cluster at `address`, or on a local Ray instance with `workers` CPUs (None address)."""
    try:
        import ray
    except ImportError:
        from blockpact.errors import UserError

        raise UserError("--ray needs Ray: pip install 'blockpact[ray]'") from None
    started_here = not ray.is_initialized()
    if started_here:
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    try:
        actor_class = ray.remote(_SemaphoreActor)
        actors = {url: actor_class.remote(n) for url, n in bounds.items()}
        # max_calls=1: each unit in a fresh worker process, which exits (stopping its Node runtime) after it
        remote = ray.remote(num_cpus=1, max_calls=1)(_play_ray)
        pending = {remote.remote(unit, actors): unit for unit in longest_first(units)}
        try:
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1)
                unit = pending.pop(done[0])
                try:
                    result, archive = ray.get(done[0])
                except Exception as exc:  # the worker died, or the task could not be scheduled
                    yield _failed(unit, exc)
                    continue
                if archive:
                    _unpack(archive, root / unit.dir)
                yield result
        except BaseException:
            for ref in pending:
                ray.cancel(ref, force=True)
            raise
    finally:
        if started_here:
            ray.shutdown()

