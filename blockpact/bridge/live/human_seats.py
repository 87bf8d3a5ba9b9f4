"""People in a run's `human` slots, playing with their own Minecraft client on the embedded server (as
CivAgent lets people negotiate with its agents).

A person joins the server under the slot's name. The run waits for them (live.toml [humans]
join_seconds; past it the unit fails with cause `human`), talks to them in chat (only they see these
lines), reads what they say from the plugin's journal, and at the start of each episode puts them at
their spawn with the world's inventory, as it does a bot. During an episode they play as they like;
their inventory is journaled and read back like anyone's, and they end their part early by saying
`done` (else the episode's end does).

Only the embedded server: there the plugin's journal sees every player's chat and inventory. On an
external server nobody could read a person's inventory or stop them at the episode's end.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any

from blockpact.bridge.protocols import ProgramResult
from blockpact.bridge.live.embedded_server import EmbeddedServer
from blockpact.bridge.live.settings import live_settings
from blockpact.bridge.live.world_compiler import CompiledWorld, ControlChannelTarget, apply, run_command, tally, teleport
from blockpact.errors import UserError
from blockpact.worlds.spec.schema import WorldSpec

DONE_WORDS = ("done", "finished")


class HumanAbsent(UserError):
    """The person in a human slot did not join (or left and did not come back) within the bound."""


class HumanSeats:
    """The human slots of a run, on its embedded server (started when a person is first waited for)."""

    def __init__(self, humans: Sequence[str], server: EmbeddedServer, ensure_server: Callable[[], Any],
                 announce: Callable[[str], None] | None = None) -> None:
        self.humans = tuple(sorted(humans))
        self.server = server
        self.ensure_server = ensure_server  # starts the server if it is not running (LiveWorlds.ensure_server)
        self.announce = announce or (lambda line: None)
        self.settings = live_settings().humans
        self.target = ControlChannelTarget(server)
        self._pending_chat: dict[str, list[str]] = {}

    def __contains__(self, player: object) -> bool:
        return player in self.humans

    # -- presence -----------------------------------------------------------------------------------------
    def connected(self) -> set[str]:
        return {p["username"] for p in self.server.request("players")}

    async def wait_for(self, player: str) -> None:
        """Return once `player` is on the server; HumanAbsent after join_seconds."""
        await asyncio.to_thread(self.ensure_server)
        if player in self.connected():
            return
        seconds = self.settings.join_seconds
        self.announce(f"waiting up to {seconds:g} s for a person to join as {player}: connect a Minecraft "
                      f"{self.server.version} client (offline mode) to {self.server.host}:{self.server.port}")
        deadline = time.monotonic() + seconds
        while player not in self.connected():
            if time.monotonic() > deadline:
                raise HumanAbsent(f"nobody joined as {player} (a human slot) at {self.server.host}:{self.server.port} "
                                  f"within {seconds:g} s (live.toml [humans] join_seconds)")
            await asyncio.sleep(self.settings.poll_seconds)
        self.announce(f"{player} joined")

    def tell(self, player: str, text: str) -> None:
        """A chat line only `player` sees, one per line of `text`."""
        for line in text.splitlines() or [""]:
            self.server.request("tell", player=player, message=line)

    # -- chat outside episodes (negotiation) ----------------------------------------------------------------
    async def next_lines(self, player: str, timeout: float) -> list[str]:
        """What `player` said since the last call (waiting up to `timeout` for at least one line). Reads the
        plugin's journal, which nothing else drains between episodes; HumanAbsent if they left."""
        deadline = time.monotonic() + timeout
        while True:
            entries = self.server.request("drainEvents")["entries"]
            for e in entries:
                if e.get("kind") == "chat" and e.get("agent") in self.humans:
                    self._pending_chat.setdefault(e["agent"], []).append(str((e.get("data") or {}).get("message", "")))
            lines = self._pending_chat.pop(player, [])
            if lines:
                return lines
            if player not in self.connected():
                raise HumanAbsent(f"{player} (a human slot) left the server during the negotiation")
            if time.monotonic() > deadline:
                return []
            await asyncio.sleep(self.settings.poll_seconds)

    # -- episodes -------------------------------------------------------------------------------------------
    async def seat(self, spec: WorldSpec, compiled: CompiledWorld) -> None:
        """Every person at their spawn with the world's inventory, as the server reports it (bounded)."""
        for player in self.humans:
            await self.wait_for(player)
            await apply(compiled.players[player], self.target)
        settle = live_settings().bots.settle_timeout
        deadline = time.monotonic() + settle
        for player in self.humans:
            want = spec.players[player]
            while True:
                cell = self._cell(player)
                inventory = tally([s for s in self.server.request("inventory", player=player) if s["slot"] >= 5])
                if cell == want.spawn and inventory == want.inventory:
                    break
                if time.monotonic() > deadline:
                    raise HumanAbsent(f"{player} (a human slot) was not at {list(want.spawn)} with {want.inventory} "
                                      f"within {settle:g} s of being placed there (at {cell}, holding {inventory})")
                if cell != want.spawn:
                    await run_command(self.target, teleport(player, want.spawn))
                await asyncio.sleep(self.settings.poll_seconds)

    def _cell(self, player: str) -> tuple[int, int, int] | None:
        for p in self.server.request("players"):
            if p["username"] == player:
                x, y, z = (int(v // 1) for v in p["position"])
                return (x, y, z)
        return None

    async def play(self, player: str, end: float, now: Callable[[], float], said: Callable[[str], list[str]]) -> ProgramResult:
        """A person's part of an episode: until they say `done` or the episode ends (`now`: episode seconds;
        `said(player)`: what they said in the episode so far, from the episode's log)."""
        self.tell(player, f"The episode has started: you have {max(0.0, end - now()):.0f} s. Play as you like; "
                          "say 'done' when you are finished.")
        started = now()
        while now() < end:
            if any(line.strip().lower() in DONE_WORDS for line in said(player)):
                break
            await asyncio.sleep(self.settings.poll_seconds)
        self.tell(player, "Your part of the episode is over: what you hold at its end is scored.")
        return ProgramResult(player, True, None, None, None, chat=said(player), logs=["played by a person"],
                             duration=now() - started)
