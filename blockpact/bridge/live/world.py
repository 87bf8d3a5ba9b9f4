"""A live episode with the interface of `SimWorld`, so the one episode engine plays both backends.

`LiveWorld(spec, seed, server=...)` builds the spec's world on the embedded server (or, with `address=`,
on an external server through an operator bot: `world_access.py`), logs the players in at their spawn
points with their inventories, and runs every player's program on a mineflayer bot while the world master
(`world_master.py`) records the world's events into the mirror `state`'s log and applies the spec's dynamics.
It keeps the `World` protocol (bridge/protocols.py): `now` is episode seconds of the wall clock here.

Time: the episode's clock starts when the first programs start; `spec.episode_seconds` are wall seconds.
A bot that loses its connection is handled as live.toml's [episode] says (reconnect and restart its
program, retry the episode, or fail it); nothing already logged is dropped.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from blockpact.bridge.protocols import ProgramResult
from blockpact.bridge.live.disconnects import DisconnectPart, EpisodeFailed, Retry
from blockpact.bridge.live.embedded_server import EmbeddedServer, ServerError
from blockpact.bridge.live.episode_setup import SetupPart
from blockpact.bridge.live.human_seats import HumanSeats
from blockpact.bridge.live.lockstep import EpisodeLockstep
from blockpact.bridge.live.settings import live_settings
from blockpact.bridge.live.mineflayer_body import (MineflayerBody, MineflayerWorld, ServerAddress, StartBatch,
                                                   node_call_seconds)
from blockpact.bridge.runtime import BridgeBroken
from blockpact.bridge.live.watchdog import lateness_note
from blockpact.bridge.live.world_access import EmbeddedAccess, WitnessedAccess, WorldAccess
from blockpact.bridge.live.world_master import WorldMaster
from blockpact.errors import UserError
from blockpact.worlds.events import Event, Listener
from blockpact.worlds.spec.first_look import first_look
from blockpact.worlds.spec.schema import WorldSpec
from blockpact.worlds.state import WorldState

WATCHDOG_GRACE_SECONDS = 2.0  # beyond node_call_seconds(): the watchdog pings Node; a ping unanswered that long kills it


class LiveWorld(SetupPart, DisconnectPart):
    """One episode of `spec` on a live server, with SimWorld's interface (see the module docstring). Setting it up is
    episode_setup.py's part, what a lost connection does disconnects.py's."""

    def __init__(self, spec: WorldSpec, seed: int = 0, *, server: EmbeddedServer | None = None,
                 address: ServerAddress | None = None, on_disconnect: str | None = None, viewer: bool = False,
                 announce: Callable[[str], None] | None = None, humans: HumanSeats | None = None,
                 lockstep: bool | None = None) -> None:
        """`server`: the embedded server to play on (started if it is not running; None: one of its own);
        `humans`: the players who are people with their own client (no bot, no program: human_seats.py);
        `lockstep`: shared actions in the order of a simulated twin (lockstep.py; None: live.toml's);
        `address`: an external server instead (no plugin); `viewer`: a viewer page for every player's bot
        (`viewer_urls`); `announce` is told, in a line each, where the server and the pages are."""
        settings = live_settings()
        self.spec = spec
        self.seed = seed
        self._trusted: frozenset[str] = frozenset()  # players whose programs are scripted (run_programs)
        self.set_disconnect_policy(on_disconnect)
        self.tick_interval, self.play_out = settings.world_master.tick_seconds, settings.world_master.play_out
        if server is not None and address is not None:
            raise UserError("a live world plays either on the embedded server or on an external one, not both")
        self._own_server = server is None and address is None
        self.server = None if address is not None else server or EmbeddedServer(seed=seed)
        self.access: WorldAccess = WitnessedAccess(address) if address is not None else EmbeddedAccess(self.server)
        self.viewer, self.humans = viewer, humans
        self.announce = announce or (lambda line: None)
        lockstep = settings.episode.lockstep if lockstep is None else lockstep
        if lockstep and (address is not None or humans is not None):
            raise UserError("lockstep needs the embedded server and bots in every slot: on another server the bots "
                            "cannot wait for each other between walking to a block and digging it, and people do not wait")
        self.lockstep = EpisodeLockstep(spec, seed, settings.episode.lockstep_stall_seconds) if lockstep else None
        self.viewer_urls: dict[str, str] = {}
        self.state = state = WorldState(spec, seed)
        self.master = WorldMaster(self.access, spec, state)
        state.emit(None, "episode_start", world=spec.name, seed=seed, backend="minecraft",
                   **(EpisodeLockstep.MARK if self.lockstep else {}), **state.snapshot())
        self.bots: MineflayerWorld | None = None
        self._ticker: asyncio.Task | None = None
        self._finished: Event | None = None
        self._closed = False

    # -- the World protocol's record of the episode -------------------------------------------------------
    @property
    def now(self) -> float:
        """Wall seconds since the programs started (0 before)."""
        return self.master.now

    @property
    def events(self) -> list[Event]:
        return self.state.log.events  # one log for every attempt (on_disconnect = "retry")

    def emit(self, agent: str | None, kind: str, **data: Any) -> Event:
        """An event at the episode clock's now, after whatever the journals hold from before."""
        if self.master.started_at is not None:
            self.master.record()
        self.state.time = round(self.now, 6)
        return self.state.emit(agent, kind, **data)

    def listen(self, listener: Listener) -> None:
        self.state.log.listeners.append(listener)

    def _said(self, player: str) -> list[str]:
        return [str(e.data.get("message", "")) for e in self.state.log.events if e.kind == "chat" and e.agent == player]

    async def _tick_forever(self) -> None:
        while True:
            await asyncio.sleep(self.tick_interval)
            if self.bots is None or self.bots.watchdog.answering:  # else the journals wait in Node for the next tick
                self.master.tick()

    async def observe(self, player: str) -> dict[str, Any]:
        """What `player` sees now; SimWorld.observe gives the same keys. Before the bots join, the world as
        its spec builds it (joining here would start the episode's clock while the agents think)."""
        if self.bots is None:
            return first_look(self.spec, player)
        return self.body(player).observe()

    def body(self, player: str) -> MineflayerBody:
        if self.bots is None:
            raise UserError("the live world is not set up yet: bodies exist once run_programs has started")
        return self.bots.body(player)

    # -- playing ----------------------------------------------------------------------------------------------
    async def run_programs(self, programs: Mapping[str, str], *, skills: Mapping[str, Sequence[str]] | None = None,
                           until: float | None = None, budget: float | None = None,
                           trusted: Collection[str] = ()) -> dict[str, ProgramResult]:
        """All players' programs start together; returns when all finish or the episode end / `until` (episode
        seconds) is reached, then unfinished ones are stopped (timed_out=True). `budget`: wall seconds each
        program may take. With dynamics rules and live.toml's play_out, the world runs on to the episode end.
        `trusted`: players whose programs run in sandbox threads; every other program runs in a process of its own."""
        self._trusted = frozenset(trusted)  # their programs run in threads, every other one in a process
        while True:
            try:
                return await self._play(programs, skills or {}, until, budget)
            except Retry as retry:
                await self._start_over(str(retry))

    async def _play(self, programs: Mapping[str, str], skills: Mapping[str, Sequence[str]], until: float | None,
                    budget: float | None) -> dict[str, ProgramResult]:
        # the order the bots' shared actions take (lockstep.py); planned before the first batch's clock starts
        schedule = await self.lockstep.plan(programs, skills, until, budget) if self.lockstep is not None else None
        await self._ensure_ready()
        end = self.spec.episode_seconds if until is None else min(float(until), self.spec.episode_seconds)
        assert self.bots is not None
        if self.lockstep is not None and schedule is not None:
            self.lockstep.start(self.bots, schedule)
        batch = self.bots.start_batch(len([p for p in programs if self.humans is None or p not in self.humans]))
        tasks = {p: asyncio.ensure_future(self.humans.play(p, end, lambda: self.now, self._said)
                                          if self.humans is not None and p in self.humans else
                                          self._run_player(p, programs[p], tuple(skills.get(p, ())), end, budget, batch))
                 for p in sorted(programs)}
        watchdog = asyncio.ensure_future(self.bots.watchdog.watch())  # a dead or wedged Node runtime ends the episode at once
        try:
            failure = await self._wait_for_players(set(tasks.values()), watchdog, end)
            ended = {p for p, t in tasks.items() if not t.done() and (self.humans is None or p not in self.humans)}
            for player in ended:
                try:
                    self.body(player).cancel(f"stopped: the episode ended at {end:g} s" if failure is None else f"stopped: {failure}")
                except BridgeBroken:
                    pass  # its program died with the runtime
            outcomes = await asyncio.gather(*tasks.values(), return_exceptions=True)
        finally:
            for task in (*tasks.values(), watchdog):
                task.cancel()
            if self.lockstep is not None and schedule is not None and (status := self.lockstep.end(self.bots)):
                self._lockstep_ended(status)
            if (note := lateness_note(late := self.bots.watchdog.worst_late)) is not None:
                self.state.emit(None, "runtime_late", late_s=round(late, 3))
                self.announce(f"seed {self.seed}: {note}")
        failure = failure or next((o for o in outcomes if isinstance(o, BaseException)), None)
        if failure is not None:
            raise failure
        self._check_master()
        if self.play_out and self.spec.rules and until is None and self.now < end:
            if self._ticker is not None:
                await asyncio.wait([self._ticker], timeout=end - self.now)  # the end, or the master failing
            else:
                await asyncio.sleep(end - self.now)
            self._check_master()
        return {p: self._episode_result(r, stopped=p in ended) for p, r in zip(tasks, outcomes)}  # type: ignore[arg-type]

    def _lockstep_ended(self, status: dict[str, Any]) -> None:
        """The batch's lockstep is over: an event with how far the bots followed the twin's order. Called in a
        `finally`: it raises nothing, so what ended the batch (Ctrl-C's cancellation, whose SIGINT also stopped the
        server in the same process group) is what propagates, not a ServerError from draining a gone server."""
        try:
            self.master.record()  # the journal's lockstep_diverged first
            self.emit(None, "lockstep", **status)
        except (BridgeBroken, ServerError):
            return  # a dead or wedged runtime or server: the episode fails with that cause (or was stopped)
        if status["diverged"]:
            self.announce(f"seed {self.seed}: lockstep given up after {status['done']} of {status['scheduled']} "
                          f"shared actions: {status['diverged']}")

    async def _wait_for_players(self, pending: set[asyncio.Future], watchdog: asyncio.Future, end: float) -> BaseException | None:
        """Until every player's task is done, one fails, the watchdog finds the bridge broken, the world master's
        ticker fails (the episode stops then, not at its end), or the episode ends; returns the failure, if any."""
        guards = {watchdog, *([self._ticker] if self._ticker is not None else [])}
        while pending:
            done, _ = await asyncio.wait([*pending, *guards], timeout=max(0.0, end - self.now),
                                         return_when=asyncio.FIRST_COMPLETED)
            if not done:
                return None  # the episode's end
            if (failure := self._master_failure()) is not None:
                if isinstance(failure, BridgeBroken) and not watchdog.done():
                    # The master's call found Node gone or wedged: let the watchdog kill a wedged runtime, so
                    # stopping the players does not wait on it.
                    await asyncio.wait([watchdog], timeout=node_call_seconds() + WATCHDOG_GRACE_SECONDS)
                return failure
            guards -= done  # a guard that ended without finding anything wrong is not waited on again
            pending -= done
            failure = next((t.exception() for t in done if not t.cancelled() and t.exception() is not None), None)
            if failure is not None:
                return failure
        return None

    def _master_failure(self) -> EpisodeFailed | BridgeBroken | None:
        """Why the world master's ticker stopped, if it did: the bridge (cause `bridge`) or the server/world."""
        if self._ticker is not None and self._ticker.done() and not self._ticker.cancelled() and self._ticker.exception():
            error = self._ticker.exception()
            if isinstance(error, BridgeBroken):
                return error
            return EpisodeFailed(f"the world master stopped: {error}")
        return None

    def _check_master(self) -> None:
        failure = self._master_failure()
        if failure is not None:
            raise failure

    def _episode_result(self, result: ProgramResult, *, stopped: bool) -> ProgramResult:
        """The engine reads `observation["time"]` as episode time (the simulator's clock)."""
        observation = {**result.observation, "time": round(self.now, 6)}
        if stopped:
            return dataclasses.replace(result, success=False, timed_out=True, observation=observation)
        return dataclasses.replace(result, observation=observation)

    async def _run_player(self, player: str, source: str, skills: tuple[str, ...], end: float,
                          budget: float | None, batch: StartBatch) -> ProgramResult:
        """Run the program, started with the others of `batch`; a bot that loses its connection is handled as the
        policy says. Writes the simulator's program_start and program_end events around it."""
        self.emit(player, "program_start")
        result = await self._run_until_done(player, source, skills, end, budget, batch)
        self.emit(player, "program_end", success=result.success, error=result.error)
        return result

    # -- the end ----------------------------------------------------------------------------------------------
    def finish(self) -> Event:
        """The episode_end event with the final snapshot, after the last events and a read-back of inventories and
        chests (rewards are the mirror's inventory values, as the simulator's)."""
        if self._finished is not None:
            return self._finished
        if self._ticker is not None:
            self._ticker.cancel()
        state = self.state
        if self.bots is not None:
            connected = [p for p in self.spec.players if p in self.bots.players and self._connection_lost(p) is None]
            if self.humans is not None:  # people still on the server: their inventories are read back too
                connected += sorted(set(self.humans.humans) & self.humans.connected())
            self.master.final_check(connected)
        state.time = round(self.now, 6)
        self._finished = state.emit(None, "episode_end", **state.snapshot())
        return self._finished

    async def close(self) -> None:
        """Disconnect the bots; stop the server if this world started it (idempotent)."""
        if self._closed:
            return
        self._closed = True
        if self._ticker is not None:
            self._ticker.cancel()
        try:
            try:
                if self.lockstep is not None:
                    await self.lockstep.close()
            finally:
                if self.bots is not None:
                    await self.bots.close()
        finally:
            if self._own_server and self.server is not None:
                await asyncio.to_thread(self.server.stop)
