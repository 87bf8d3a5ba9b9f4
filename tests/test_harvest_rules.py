"""A world file's [harvest] rules (tests/worlds/axe_rule.toml: only a wooden axe harvests an oak log, anything
harvests iron ore) are the same rules on the simulator and on the embedded server: the world master sends
them to the server's plugin, which then yields what the simulator yields for a dig with and without a listed
tool, and the bots refuse a dig, and pick their tool, as the simulator's mineBlock does. An external server
(no plugin) reports them unsupported instead (tests/test_live_external.py)."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

from blockpact.bridge.live.world_compiler import SetHarvest, compile_world, harvest_rules
from blockpact.config import PROJECT_ROOT
from blockpact.settings import default_mc_version
from blockpact.worlds.rules import game as rules
from blockpact.worlds.sim.simulator import Simulation
from blockpact.worlds.world_files import load_world

WORLD = Path(__file__).parent / "worlds" / "axe_rule.toml"
PLUGIN = PROJECT_ROOT / "blockpact" / "bridge" / "js" / "server" / "plugin"
WORK = """async function work(bot) {
  const chopped = await mineBlock(bot, 'oak_log', 1);
  const mined = await mineBlock(bot, 'iron_ore', 1);
  log(`chopped ${chopped}, mined ${mined}`);
}"""
# (block, held tool): an overridden block with no tool, a tool it lists, tools it does not; a block that any hand
# harvests here; a block under minecraft-data's own rule.
DIGS = [("oak_log", None), ("oak_log", "wooden_axe"), ("oak_log", "stone_axe"), ("oak_log", "wooden_pickaxe"),
        ("iron_ore", None), ("diamond_ore", None), ("diamond_ore", "iron_pickaxe")]


def test_the_rule_is_sent_to_the_plugin_or_reported_unsupported() -> None:
    spec = load_world(WORLD)
    embedded = compile_world(spec, seed=3)
    assert SetHarvest("oak_log", ("wooden_axe",)) in embedded.world and SetHarvest("iron_ore", ()) in embedded.world
    assert embedded.unsupported == [] and harvest_rules(embedded) == {"iron_ore": [], "oak_log": ["wooden_axe"]}
    external = compile_world(spec, seed=3, plugin=False)
    assert not [op for op in external.world if isinstance(op, SetHarvest)]
    assert external.unsupported == ["harvest.iron_ore: tool overrides", "harvest.oak_log: tool overrides"]
    assert harvest_rules(external) == {}


def _plugin_digs(harvest: dict[str, list[str]]) -> dict[str, list[dict[str, object]]]:
    """What the plugin's drop rules give for DIGS with `harvest` set, and again after a reset (next episode)."""
    script = f"""
const registry = require('minecraft-data')({json.dumps(default_mc_version())})
const {{ dropRules }} = require({json.dumps(str(PLUGIN / "drops.js"))})
const {{ itemTools }} = require({json.dumps(str(PLUGIN / "items.js"))})
const tools = itemTools(registry)
const drops = dropRules({{ registry }}, tools, 0)
for (const [block, names] of Object.entries({json.dumps(harvest)})) drops.setHarvest(block, names)
const dig = () => {json.dumps(DIGS)}.map(([block, tool]) => drops.dropsFor(registry.blocksByName[block], tool ? tools.make(tool) : null))
const set = dig()
drops.reset('0')
console.log(JSON.stringify({{ set, reset: dig() }}))
"""
    out = subprocess.run(["node", "-e", script], check=True, capture_output=True, text=True, cwd=PROJECT_ROOT).stdout
    return json.loads(out)


def test_the_plugin_yields_what_the_simulator_yields() -> None:
    spec = load_world(WORLD)
    state = Simulation(spec, seed=0).state
    simulated = [rules.roll_drops(state, block) if rules.can_harvest(state, block, tool) else {} for block, tool in DIGS]
    assert simulated == [{}, {"oak_log": 1}, {}, {}, {"raw_iron": 1}, {}, {"diamond": 1}]
    plugin = _plugin_digs(harvest_rules(compile_world(spec)))
    assert [{d["name"]: d["count"] for d in digs} for digs in plugin["set"]] == simulated
    # The next episode's world forgets the rules: minecraft-data's again (any hand harvests a log, not iron ore).
    after = [{d["name"]: d["count"] for d in digs} for digs in plugin["reset"]]
    assert after == [{"oak_log": 1}] * 4 + [{}, {}, {"diamond": 1}]


# (block, inventory): what mineBlock's pre-check says, with the world's rule and with minecraft-data's.
CHECKS = [("oak_log", []), ("oak_log", ["wooden_pickaxe"]), ("oak_log", ["stone_axe", "wooden_pickaxe"]),
          ("oak_log", ["wooden_axe", "golden_axe"]), ("iron_ore", []), ("diamond_ore", ["wooden_pickaxe", "wooden_axe"]),
          ("diamond_ore", ["stone_pickaxe", "iron_shovel", "wooden_pickaxe"]), ("diamond_ore", ["iron_pickaxe"])]


def test_the_bots_pre_check_is_the_simulators() -> None:
    """Whether mineBlock digs, and the tool it names when it does not (rules.best_tool), as on the simulator."""
    spec = load_world(WORLD)
    state = Simulation(spec, seed=0).state
    simulated = []
    for block, inventory in CHECKS:
        state.inventories["Ann"] = {item: 1 for item in inventory}
        tool = rules.best_tool(state, "Ann", block)
        simulated.append([rules.can_harvest(state, block, tool), tool or "my bare hands"])
    script = f"""
const registry = require('minecraft-data')({json.dumps(default_mc_version())})
const {{ canHarvest, toolName }} = require({json.dumps(str(PROJECT_ROOT / "blockpact" / "bridge" / "js" / "mineflayer" / "harvest.js"))})
const world = {{ harvest: new Map(Object.entries({json.dumps(harvest_rules(compile_world(spec)))}).map(([b, t]) => [b, new Set(t)])) }}
console.log(JSON.stringify({json.dumps(CHECKS)}.map(([name, inventory]) => {{
  const items = inventory.map(item => ({{ name: item, type: registry.itemsByName[item].id }}))
  const ctx = {{ bot: {{ registry, inventory: {{ items: () => items }} }}, world }}
  const block = registry.blocksByName[name]
  return [canHarvest(ctx, block), toolName(ctx, block)]
}})))
"""
    out = subprocess.run(["node", "-e", script], check=True, capture_output=True, text=True, cwd=PROJECT_ROOT).stdout
    assert json.loads(out) == simulated
    assert simulated == [[False, "my bare hands"], [False, "my bare hands"], [False, "stone_axe"], [True, "wooden_axe"],
                         [True, "my bare hands"], [False, "wooden_pickaxe"], [False, "stone_pickaxe"],
                         [True, "iron_pickaxe"]]


def _outcome(world) -> tuple[dict[str, list[str]], dict[str, list[str]], dict[str, dict[str, int]]]:
    async def play():
        try:
            results = await world.run_programs({"Ann": WORK, "Bo": WORK}, budget=60)
            end = world.finish()
            return results, end
        finally:
            await world.close()

    results, end = asyncio.run(play())
    for result in results.values():
        assert result.success, (result.error, result.chat)
    logs = {p: r.logs for p, r in results.items()}
    refusals = {p: [line for line in r.chat if line.startswith("I cannot mine")] for p, r in results.items()}
    return logs, refusals, end.data["inventories"]


def test_same_outcome_on_the_simulator_and_the_embedded_server(embedded_server) -> None:
    """Ann (a wooden pickaxe) is refused a log, naming the tool she would dig with; Bo chops one with the wooden
    axe (the golden one is faster but gets nothing); both mine iron ore, Bo by hand: on both backends."""
    from blockpact.bridge.live.world import LiveWorld
    from blockpact.bridge.sim import SimWorld

    spec = load_world(WORLD)
    simulated = _outcome(SimWorld(spec, seed=0))
    live = _outcome(LiveWorld(spec, 0, server=embedded_server))
    assert simulated[0] == {"Ann": ["chopped 0, mined 1"], "Bo": ["chopped 1, mined 1"]}
    assert simulated[1] == {"Ann": ["I cannot mine oak_log with my bare hands"], "Bo": []}
    assert simulated[2] == {"Ann": {"wooden_pickaxe": 1, "raw_iron": 1},
                            "Bo": {"wooden_axe": 1, "golden_axe": 1, "oak_log": 1, "raw_iron": 1}}
    assert live == simulated
