"""The sim/live parity matrix (issue 18): the built-in worlds double_vein and cleanup, with no contract and with
the negotiated one, played by the scripted players on the simulator and on the embedded server through the one
episode engine. Double-Vein must end the same on both backends, player by player, played in lockstep (the bots take
their shared actions in the simulator's order: bridge/live/lockstep.py), and under the contract also free-running;
Cleanup, whose drops and regrowth are random and whose live clock is the wall clock, within 10% of the simulator's
welfare, free-running.

Both backends start the programs together (live: js/mineflayer/start_line.js), and the simulator charges the
turning time a mineflayer bot takes before it digs or opens a chest (worlds/sim/facing.py): that turn decides
who of the two Double-Vein players gets the iron pickaxe, live as on the simulator. A live episode lasts its
wall seconds (Cleanup: 600 s; Double-Vein's programs finish in about 30 s on an idle machine, 50 s at load 17
on 2 cores), so every cell is slow (`make test-all`). The fast suite keeps the parts: the simulator's chest race
(test_simulator_clock), the start line (tests/js/mineflayer_parts.test.js) and the negotiated Double-Vein
episode on both backends (test_live_world).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from blockpact.bridge.sim import SimWorld
from blockpact.experiments.play.protocol import EpisodeOutcome
from blockpact.worlds.world_files import load_world

from test_live_world import _contract, _live, _play

pytestmark = pytest.mark.slow  # live episodes of 30-600 wall seconds each


@pytest.fixture(scope="module")
def server(embedded_server):
    return embedded_server


def _both(server, world: str, condition: str, out: Path, **options) -> tuple[EpisodeOutcome, EpisodeOutcome]:
    """(live, simulated) outcomes of seed 0 of one cell; `options` for the live world."""
    spec = load_world(world)
    contract = None if condition == "none" else asyncio.run(_contract(spec))
    live, _ = asyncio.run(_play(spec, contract, _live(server, **options), out / "live"))
    simulated, _ = asyncio.run(_play(spec, contract, SimWorld, out / "sim"))
    return live, simulated


# Why lockstep: without a contract the two players race for the last blocks of the shared iron vein, and free-running
# the race is decided by fractions of a second, on either backend:
# - live, the same code three times in a row (2026-11-27, 5cdb896, nice -15, load ~3): Gizmo 28 / Glitch 45, then
#   32 / 42 (the simulator's split), then 28 / 45. Where they part: Gizmo finishes (3, 65, 3) at 10.18 s in the one run,
#   Glitch takes it at 9.76 s in the others; Glitch's walk from the diamond vein varies by ~0.4 s between runs.
# - the simulator with its settings' walk_speed scaled by 0.8 / 0.9 / 1.0 / 1.1 / 1.2 / 1.3 gives Gizmo 40 / 36 / 32 /
#   32 / 28 / 36; turn_speed halved gives 36.
# So the split is not a property of the world that a better time model could pin down: equal rewards need the race's
# contested blocks to be decided by a rule that does not depend on who is a few hundred milliseconds faster. Claiming
# a block when a bot sets out for it does not do it (the choices then race instead of the digs). Lockstep's rule is
# the simulator's order of shared actions, and where each player stood for them.
# Under the contract the players' veins are apart, and the free-running episode ends the same too (kept: the parity of
# the free-running path).
@pytest.mark.parametrize(("condition", "lockstep"), [("none", True), ("negotiate", True), ("negotiate", False)])
def test_double_vein_ends_the_same_on_both_backends(server, condition, lockstep, tmp_path) -> None:
    live, simulated = _both(server, "double_vein", condition, tmp_path, lockstep=lockstep)
    assert live.inventory_rewards == simulated.inventory_rewards, (live.inventory_rewards, simulated.inventory_rewards)
    assert live.rewards == simulated.rewards and live.transfers == simulated.transfers


# Cleanup under the negotiated contract was the gap of issue 18: the live harvester dug fewer mushroom blocks than
# the simulator's (2026-11-25: 366 and 387 against 1110; 2026-11-27 morning: 930). The last of it was the bots'
# block search: mineflayer read every position of every one-block (air) chunk section within 32 blocks before each
# dig, 0.1-0.2 s of the bots' main thread a block (js/mineflayer/find_blocks.js now checks such a section once).
@pytest.mark.timeout(1500)  # a 600 s live episode, its setup and the simulator's, on a busy machine
@pytest.mark.parametrize("condition", ["none", "negotiate"])
def test_cleanup_welfare_is_within_ten_percent_of_the_simulator(server, condition, tmp_path) -> None:
    live, simulated = _both(server, "cleanup", condition, tmp_path)
    welfare, sim_welfare = sum(live.rewards.values()), sum(simulated.rewards.values())
    print(f"cleanup / {condition}: live welfare {welfare:g}, simulator {sim_welfare:g}")  # shown by -rP
    assert abs(welfare - sim_welfare) <= 0.1 * sim_welfare, (live.rewards, simulated.rewards)
