"""The `Body` conformance suite (bridge/protocols.py), in the style of PettingZoo's `parallel_api_test`: one plain
function any backend's bodies are run through (the simulator, the embedded server, a user's own server).

    from blockpact.conformance import check_body
    check_body(lambda spec, seed: SimWorld(spec, seed))

A body is reached through its world (`world.body(player)`, after a first `run_programs`: live bots join
then). The checks: every primitive and bot member skills/primitives.toml names exists in a program; soft
failures come back as feedback chat lines (Voyager's contract with the LLM); a program's error, its line and
a run past its budget are reported as such; `observe` has the observation's keys; `close` is idempotent.
"""

from __future__ import annotations

import asyncio
import json

from blockpact.bridge.protocols import ProgramResult
from blockpact.conformance.world import OBSERVATION_KEYS, MakeWorld, check_result, conformance_spec
from blockpact.skills.reference import bot_members, primitives

PLAYER = "Ada"
NOTHING = "async function main(bot) {}"


def _probe_program() -> str:
    """A program that says, in one chat line, which documented primitives and bot members it cannot see."""
    names = json.dumps(sorted(primitives()))
    members = json.dumps(sorted(bot_members()))
    return f"""async function main(bot) {{
  const missing = [];
  const scope = {{ {", ".join(f"{n}: typeof {n}" for n in sorted(primitives()))} }};
  for (const name of {names}) if (scope[name] !== 'function') missing.push(name);
  for (const path of {members}) {{
    let value = bot;
    for (const part of path.split('.')) value = value === undefined || value === null ? undefined : value[part];
    if (value === undefined) missing.push('bot.' + path);
  }}
  bot.chat('missing: ' + missing.join(','));
}}"""


# Calls that fail softly on every backend in world.toml, each said in the chat (primitives.toml's feedback).
SOFT_FAILURES = {
    "mineBlock": 'await mineBlock(bot, "diamond_ore", 1)',
    "craftItem": 'await craftItem(bot, "diamond_pickaxe", 1)',
    "getItemFromChest": 'await getItemFromChest(bot, new Vec3(5, 64, 3), { diamond: 1 })',
    "placeItem": 'await placeItem(bot, "diamond_block", bot.entity.position.offset(1, 0, 0))',
}


def _feedback_program() -> str:
    steps = "\n".join(f"  bot.chat('>> {name}');\n  {call};" for name, call in SOFT_FAILURES.items())
    return f"async function main(bot) {{\n{steps}\n  bot.chat('>> end');\n}}"


def _said_after(chat: list[str], marker: str) -> list[str]:
    """The chat lines between `>> marker` and the next marker."""
    start = chat.index(f">> {marker}") + 1
    end = next(i for i in range(start, len(chat)) if chat[i].startswith(">> "))
    return chat[start:end]


async def _check_body(make_world: MakeWorld, budget: float) -> None:
    world = make_world(conformance_spec(), 0)
    try:
        await world.run_programs({PLAYER: NOTHING}, budget=budget)
        body = world.body(PLAYER)
        assert body.player == PLAYER, f"world.body({PLAYER!r}).player is {body.player!r}"
        seen = body.observe()
        assert OBSERVATION_KEYS <= set(seen), f"observe lacks {OBSERVATION_KEYS - set(seen)}"

        probe = await body.run(_probe_program(), budget=budget)
        check_result(probe, PLAYER)
        assert probe.success, probe.error
        assert "missing: " in probe.chat, f"primitives or bot members missing in a program: {probe.chat}"

        feedback = await body.run(_feedback_program(), budget=budget)
        check_result(feedback, PLAYER)
        assert feedback.success, f"soft failures must not fail the program: {feedback.error}"
        for name in SOFT_FAILURES:
            said = _said_after(feedback.chat, name)
            assert said and all(isinstance(line, str) and line for line in said), f"{name} failed without feedback: {feedback.chat}"

        broken = await body.run("async function main(bot) {\n  await bot.waitForTicks(1);\n  null.boom;\n}", budget=budget)
        check_result(broken, PLAYER)
        assert not broken.success and broken.failure == "program" and broken.error_line == 3, broken

        slow = await body.run("async function main(bot) {\n  await bot.waitForTicks(20 * 600);\n}", budget=1.0)
        check_result(slow, PLAYER)
        assert not slow.success and slow.timed_out and slow.failure == "budget", slow

        again = await body.run(NOTHING, budget=budget)
        assert isinstance(again, ProgramResult) and again.success, "the body runs on after a failure"
        await body.close()
        await body.close()  # idempotent
    finally:
        await world.close()


def check_body(make_world: MakeWorld, *, budget: float = 30.0) -> None:
    """Run the suite on the bodies of the worlds `make_world(spec, seed)` makes; `budget`: seconds a program
    may take (simulated or wall, the backend's)."""
    asyncio.run(_check_body(make_world, budget))
