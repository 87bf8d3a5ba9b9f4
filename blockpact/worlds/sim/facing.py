"""Where a simulated player looks, and how long turning to a block takes, as a mineflayer bot turns.

Why: on a live server a bot turns to face a block before it digs it or opens a chest, and mineflayer
turns smoothly, at most `turn_speed` radians a second (prismarine-physics' yawSpeed and pitchSpeed, 3 rad/s),
sending one look a physics tick (50 ms). Two bots that reach a chest at once are served in the order
their turns end, so the simulator charges the same turning time to decide such races as the server does.

Angles are mineflayer's: yaw = atan2(-dx, -dz) (0 faces north, -z; pi faces south, +z), pitch up is
positive. A player joins facing south (the server spawns it at yaw 0 in Minecraft's own convention,
which is pi in mineflayer's).
"""

from __future__ import annotations

import math

from blockpact.worlds.grid import EYE_HEIGHT
from blockpact.worlds.spec.schema import Vec

SPAWN_FACING = (math.pi, 0.0)  # (yaw, pitch) of a player that just joined
PHYSICS_TICK_SECONDS = 0.05  # mineflayer's physics tick: one look packet each
MIN_TURN = math.radians(0.15) / 2  # mineflayer rounds a look to its mouse sensitivity, 0.15 degrees


def look_at(stand: Vec, block: Vec) -> tuple[float, float]:
    """(yaw, pitch) from the eyes of a player standing in cell `stand` to the centre of `block`."""
    dx = block[0] + 0.5 - (stand[0] + 0.5)
    dy = block[1] + 0.5 - (stand[1] + EYE_HEIGHT)
    dz = block[2] + 0.5 - (stand[2] + 0.5)
    return math.atan2(-dx, -dz), math.atan2(dy, math.hypot(dx, dz))


def walking_facing(step_from: Vec, step_to: Vec, facing: tuple[float, float]) -> tuple[float, float]:
    """Where a player looks after a walk's last step (the pathfinder looks along the step, level)."""
    dx, dz = step_to[0] - step_from[0], step_to[2] - step_from[2]
    return (math.atan2(-dx, -dz), 0.0) if dx or dz else facing


def turn_seconds(facing: tuple[float, float], target: tuple[float, float], turn_speed: float) -> float:
    """Seconds a bot takes to turn from `facing` to `target`: whole physics ticks of at most `turn_speed` x tick
    radians of yaw each (the short way round). mineflayer's look ends with the tick whose packet reaches the
    yaw, whatever the pitch still lacks, so a turn of pitch alone takes one tick and no turn takes none."""
    yaw = abs((target[0] - facing[0] + math.pi) % (2 * math.pi) - math.pi)
    if yaw < MIN_TURN and abs(target[1] - facing[1]) < MIN_TURN:
        return 0.0
    ticks = math.ceil(yaw / (turn_speed * PHYSICS_TICK_SECONDS) - 1e-9)
    return max(1, ticks) * PHYSICS_TICK_SECONDS
