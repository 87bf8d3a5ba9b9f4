"""The action API description (primitives.toml), the prompt reference, and the skill library."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import pytest

from blockpact.bridge.runtime import JS_DIR, node_binary
from blockpact.bridge.sim import BOT_CALLS, SimWorld, implemented_primitives
from blockpact.skills.library import SkillError, SkillLibrary
from blockpact.skills.reference import bot_members, primitive_reference, primitives, runner_bot_calls, runner_queries
from blockpact.worlds.world_files import load_world

PARITY_WORLD = Path(__file__).parent / "worlds" / "bridge_parity.toml"


def test_simulator_offers_exactly_the_documented_primitives() -> None:
    assert implemented_primitives() == set(primitives())
    assert set(primitives()) == {
        "mineBlock", "craftItem", "smeltItem", "placeItem", "killMob", "exploreUntil", "getItemFromChest",
        "depositItemIntoChest", "checkItemInsideChest", "moveTo", "sendSignal", "waitSignal", "joinGroup", "leaveGroup",
        "formGroup",
    }


def test_both_bodies_offer_exactly_the_documented_bot_calls() -> None:
    assert runner_bot_calls() == ["waitForTicks"]
    assert set(BOT_CALLS) == {f"bot.{name}" for name in runner_bot_calls()}
    host_js = JS_DIR / "mineflayer" / "host.js"
    script = f"process.stdout.write(JSON.stringify(require({json.dumps(str(host_js))}).botCallNames))"
    mineflayer = subprocess.run([node_binary(), "-e", script], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(mineflayer.stdout) == runner_bot_calls()


def test_every_primitive_is_documented_for_the_prompt() -> None:
    reference = primitive_reference()
    for p in primitives().values():
        assert p.signature.startswith(f"await {p.name}(bot")
        assert set(p.defaults) <= set(p.params)
        assert p.doc and p.returns
        assert f"`{p.signature}`" in reference
    for member in bot_members().values():
        assert f"`{member.signature}`" in reference
    assert "$" not in reference  # every template placeholder was filled
    assert "findBlock()" in runner_queries() and "entity.position" in runner_queries() and "chat" not in runner_queries()
    assert "waitForTicks" not in " ".join(runner_queries())
    calls = reference[reference.index("Bot methods (with await):"):]
    assert "`await bot.waitForTicks(ticks)`" in calls and "20 ticks = 1 second" in calls


def test_skills_are_stored_replaced_and_read_back(tmp_path: Path) -> None:
    library = SkillLibrary(tmp_path / "skills")
    code = "async function mineThreeIron(bot) {\n  await mineBlock(bot, 'iron_ore', 3);\n}"
    skill = library.add("mineThreeIron", "Mine three iron ore blocks.", code)
    assert library.get("mineThreeIron") == skill
    newer = library.add("mineThreeIron", "Mine three iron ore, nearest first.", code.replace("3)", "3); // nearest"))
    assert library.all() == [newer]
    record = json.loads((tmp_path / "skills" / "mineThreeIron.json").read_text())
    assert record["version"] == 2 and record["description"] == "Mine three iron ore, nearest first."
    # A fresh library on the same directory sees the same skills.
    assert SkillLibrary(tmp_path / "skills").get("mineThreeIron") == newer
    assert library.get("../etc/passwd") is None and library.get("noSuchSkill") is None


@pytest.mark.parametrize("name,code,message", [
    ("mine iron", "async function mine(bot) {}", "invalid skill name 'mine iron'"),
    ("../x", "async function x(bot) {}", "invalid skill name"),
    ("mineIron", "async function mineCopper(bot) {}", "must declare `async function mineIron(bot, ...)`"),
])
def test_bad_skills_are_refused_with_the_reason(tmp_path: Path, name: str, code: str, message: str) -> None:
    with pytest.raises(SkillError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        SkillLibrary(tmp_path).add(name, "x", code)


def test_a_broken_skill_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "broken.json").write_text("{not json")
    with pytest.raises(SkillError, match="broken.json: not a readable skill file"):
        SkillLibrary(tmp_path).all()


def test_retrieve_ranks_by_relevance_offline(tmp_path: Path) -> None:
    library = SkillLibrary(tmp_path)
    library.add("mineIronOre", "Mine iron ore with a stone pickaxe.", "async function mineIronOre(bot) { await mineBlock(bot, 'iron_ore', 3); }")
    library.add("craftSticks", "Craft sticks from planks.", "async function craftSticks(bot) { await craftItem(bot, 'stick', 1); }")
    library.add("smeltIron", "Smelt raw iron into iron ingots in a furnace.",
                "async function smeltIron(bot) { await smeltItem(bot, 'raw_iron', 'coal', 3); }")
    assert [s.name for s in library.retrieve("mine some iron ore")] == ["mineIronOre", "smeltIron"]
    assert [s.name for s in library.retrieve("craft sticks", k=1)] == ["craftSticks"]
    assert library.retrieve("furnace")[0].name == "smeltIron"
    assert library.retrieve("dance in the rain") == []


def test_a_program_calls_a_stored_skill(tmp_path: Path) -> None:
    library = SkillLibrary(tmp_path)
    library.add("fetchPickaxe", "Take the stone pickaxe from the tool chest.",
                "async function fetchPickaxe(bot) {\n  await getItemFromChest(bot, new Vec3(4, 64, 4), { stone_pickaxe: 1 });\n}")
    library.add("mineIron", "Mine n iron ore.", "async function mineIron(bot, n) {\n  return await mineBlock(bot, 'iron_ore', n);\n}")
    program = "async function main(bot) {\n  await fetchPickaxe(bot);\n  log(await mineIron(bot, 2));\n  await mineIron(bot, 0);\n}"
    world = SimWorld(load_world(PARITY_WORLD))

    async def scenario():
        try:
            return await world.body("Gizmo").run(program, skills=[s.code for s in library.retrieve("pickaxe iron mine")])
        finally:
            await world.close()

    result = asyncio.run(scenario())
    assert result.logs == ["2"]
    assert result.observation["inventory"] == {"oak_planks": 4, "raw_iron": 2, "stone_pickaxe": 1}
    # A failure inside a skill points at the program line that called it.
    assert result.error == "Error: count for mineBlock must be a positive number (program line 4)"
    assert "skill:mineIron:2" in result.stack
