"""Group membership over time (issue 40): a player leaves one reward-sharing clan and joins the other during play,
and the formal settlement shares what it earns with its old clan until the move and with its new clan from then
on; the event log records the move, and a call that cannot be made fails with a clear message."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from blockpact.bridge.sim import SimWorld
from blockpact.experiments.play.judging import Judges, settle
from blockpact.judge.groups import group_outcomes, group_sharing, social_graph
from blockpact.worlds.events import Event
from blockpact.worlds.membership import Membership, MembershipError, spells
from blockpact.worlds.sim.simulator import Simulation
from blockpact.worlds.world_files import load_world

WORLD = Path(__file__).parent / "worlds" / "clan_move.toml"

# Ann picks 2 of her pumpkins, leaves red, tells Bo, joins blue and picks her other 3; Bo picks his 2 after she left.
ANN = """async function main(bot) {
  await mineBlock(bot, 'pumpkin', 2);
  await leaveGroup(bot, 'red');
  await sendSignal(bot, 'left red');
  bot.chat('blue: ' + (await joinGroup(bot, 'blue')).join(','));
  await mineBlock(bot, 'pumpkin', 3);
}"""
BO = "async function main(bot) { await waitSignal(bot, 'Ann left red', 100, 'Ann'); await mineBlock(bot, 'pumpkin', 2); }"
IDLE = "async function main(bot) { }"


def _play(programs: dict[str, str]) -> tuple[dict, list[Event]]:
    async def go():
        world = SimWorld(load_world(WORLD), seed=0)
        try:
            results = await world.run_programs(programs)
            world.sim.finish()
        finally:
            await world.close()
        return results, list(world.events)
    return asyncio.run(go())


@pytest.fixture(scope="module")
def moved() -> tuple[dict, list[Event]]:
    return _play({"Ann": ANN, "Bo": BO, "Cal": IDLE, "Dee": IDLE})


class _NoLog:
    def __getattr__(self, name: str):
        raise AssertionError(f"no contract: nothing is logged ({name})")


def test_the_event_log_records_the_move_at_its_simulated_time(moved) -> None:
    results, events = moved
    assert all(r.success for r in results.values()), {p: r.error for p, r in results.items()}
    changes = [(e.agent, e.kind, e.data["group"], e.data["members"]) for e in events if e.kind.startswith("group_")]
    assert changes == [("Ann", "group_leave", "red", ["Bo"]), ("Ann", "group_join", "blue", ["Cal", "Dee", "Ann"])]
    leave, join = (e for e in events if e.kind.startswith("group_"))
    second_pumpkin = [e for e in events if e.kind == "inventory" and e.agent == "Ann"][1]
    assert second_pumpkin.time <= leave.time < join.time < 120
    assert any(e.kind == "chat" and e.data["message"] == "blue: Cal,Dee,Ann" for e in events)


def test_the_formal_settlement_moves_the_shared_rewards_from_the_time_of_the_move(moved) -> None:
    _, events = moved
    spec = load_world(WORLD)
    settlement = asyncio.run(settle(spec, None, events, _NoLog(), Judges()))
    assert settlement.inventory_rewards == {"Ann": 5.0, "Bo": 2.0, "Cal": 0.0, "Dee": 0.0}
    # red (Ann, Bo) shares Ann's first 2 until she leaves; Bo's 2, picked after, stay his; blue (Cal, Dee, Ann)
    # shares Ann's last 3 from her joining on.
    assert settlement.transfers == pytest.approx({"Ann": -1.0 - 2.0, "Bo": 1.0, "Cal": 1.0, "Dee": 1.0})
    assert settlement.rewards == pytest.approx({"Ann": 2.0, "Bo": 3.0, "Cal": 1.0, "Dee": 1.0})
    # Without the move (the same picks, the declared clans throughout) red would have split all 7.
    stayed = [e for e in events if not e.kind.startswith("group_")]
    assert group_sharing(spec, stayed) == pytest.approx({"Ann": -1.5, "Bo": 1.5, "Cal": 0.0, "Dee": 0.0})


def test_membership_over_time_in_the_group_measures_and_the_graph(moved) -> None:
    _, events = moved
    spec = load_world(WORLD)
    leave = next(e for e in events if e.kind == "group_leave").time
    join = next(e for e in events if e.kind == "group_join").time
    out = group_outcomes(spec, {"Ann": 2.0, "Bo": 3.0, "Cal": 1.0, "Dee": 1.0}, events)
    assert out["red"]["members"] == ["Bo"] and out["blue"]["members"] == ["Cal", "Dee", "Ann"]
    assert out["red"]["membership"] == [{"from": 0.0, "until": leave, "members": ["Ann", "Bo"]},
                                        {"from": leave, "until": 120.0, "members": ["Bo"]}]
    assert out["blue"]["membership"] == [{"from": 0.0, "until": join, "members": ["Cal", "Dee"]},
                                         {"from": join, "until": 120.0, "members": ["Cal", "Dee", "Ann"]}]
    assert social_graph(spec, 1.0, events).has_edge("Ann", "Bo")
    late = social_graph(spec, 100.0, events)
    assert not late.has_edge("Ann", "Bo") and late.has_edge("Ann", "Cal")


@pytest.mark.parametrize(("program", "message"), [
    ("await joinGroup(bot, 'green')", "joinGroup: no group named 'green' in this world (groups: blue, red"),
    ("await joinGroup(bot, 'red')", "joinGroup: Ann is already a member of group 'red'"),
    ("await leaveGroup(bot, 'blue')", "leaveGroup: Ann is not a member of group 'blue' (members: Cal, Dee)"),
    ("await formGroup(bot, 'red')", "formGroup: a group named 'red' exists already"),
    ("await formGroup(bot, 'gold', 1.5)", "share for formGroup must be a fraction of rewards in [0, 1], got 1.5"),
    ("await joinGroup(bot, 3)", "group for joinGroup must be a group's name (a non-empty string)"),
])
def test_a_call_that_cannot_change_membership_fails_with_a_clear_message(program: str, message: str) -> None:
    results, events = _play({"Ann": f"async function main(bot) {{ {program}; }}"})
    assert not results["Ann"].success and message in results["Ann"].error
    assert not [e for e in events if e.kind.startswith("group_")]


def test_a_group_formed_during_play_shares_from_its_forming_on() -> None:
    spec = load_world(WORLD)
    sim = Simulation(spec, seed=0)

    async def bo(api):
        assert await api.change_group("form", "pair", 0.5) == ["Bo"]
        await api.send_signal("formed")
        await api.mine_block("pumpkin", 2)

    async def dee(api):
        await api.wait_signal("pair formed", 60, "Bo")
        assert await api.change_group("join", "pair") == ["Bo", "Dee"]

    asyncio.run(sim.run({"Bo": bo, "Dee": dee}))
    sim.finish()
    events = sim.state.log.events
    [form] = [e for e in events if e.kind == "group_form"]
    assert form.agent == "Bo" and form.data == {"group": "pair", "share": 0.5, "members": ["Bo"]}
    picked = [e.time for e in events if e.kind == "inventory" and e.agent == "Bo"]
    join = next(e for e in events if e.kind == "group_join").time
    assert join < picked[0]  # both pumpkins picked while Dee was a member: half of each pooled, split in two
    # pair moves 0.5 from Bo to Dee; red (Ann, Bo: all pooled), which Bo never left, moves 1 from Bo to Ann
    assert group_sharing(spec, events) == pytest.approx({"Ann": 1.0, "Bo": -1.5, "Cal": 0.0, "Dee": 0.5})


def test_spells_of_a_group_that_never_changes_are_its_declaration() -> None:
    spec = load_world(WORLD)
    assert [(s.group, s.start, s.end, s.members) for s in spells(spec.groups, [], 120.0)] == [
        ("red", 0.0, 120.0, ("Ann", "Bo")), ("blue", 0.0, 120.0, ("Cal", "Dee"))]
    state = Membership(spec.groups, spec.players)
    with pytest.raises(MembershipError, match="no group named 'green'"):
        state.leave("Ann", "green")


LIVE_SCRIPT = """
const { primitives, groupTable } = require(%(groups)s)
const journal = []
const world = { groups: groupTable([{ name: 'red', members: ['Ann', 'Bo'], share: 1 }, { name: 'blue', members: ['Cal', 'Dee'], share: 1 }]),
  record: (agent, kind, data) => journal.push({ agent, kind, data }) }
const ctx = { bot: { username: 'Ann' }, world }
const tryCall = async (name, ...args) => { try { return await primitives[name](ctx, ...args) } catch (e) { return 'Error: ' + e.message } }
;(async () => {
  const out = [await tryCall('joinGroup', 'green'), await tryCall('leaveGroup', 'red'), await tryCall('joinGroup', 'blue'),
               await tryCall('leaveGroup', 'red'), await tryCall('formGroup', 'gold', 1.5)]
  console.log(JSON.stringify({ out, journal }))
})()
"""


def test_the_live_body_checks_and_records_membership_as_the_simulator_does() -> None:
    import json
    import subprocess

    from blockpact.bridge.runtime import JS_DIR, node_binary

    groups = json.dumps(str(JS_DIR / "mineflayer" / "primitives" / "groups.js"))
    done = subprocess.run([node_binary(), "-e", LIVE_SCRIPT % {"groups": groups}], capture_output=True, text=True,
                          timeout=60, check=True)
    got = json.loads(done.stdout)
    assert got["out"][1:3] == [["Bo"], ["Cal", "Dee", "Ann"]]
    assert got["journal"] == [{"agent": "Ann", "kind": "group_leave", "data": {"group": "red", "members": ["Bo"]}},
                              {"agent": "Ann", "kind": "group_join", "data": {"group": "blue", "members": ["Cal", "Dee", "Ann"]}}]
    state = Membership(load_world(WORLD).groups, ["Ann", "Bo", "Cal", "Dee"])
    expected = []
    for call in (lambda: state.join("Ann", "green"), lambda: state.leave("Ann", "red"), lambda: state.join("Ann", "blue"),
                 lambda: state.leave("Ann", "red"), lambda: state.form("Ann", "gold", 1.5, 10.0)):
        try:
            expected.append(call()["members"])
        except MembershipError as exc:
            expected.append(str(exc))
    prefixes = ["joinGroup", "", "", "leaveGroup", "formGroup"]
    assert got["out"] == [f"Error: {p}: {e}" if isinstance(e, str) else e for p, e in zip(prefixes, expected)]


def test_membership_over_time_in_metrics_json_and_the_report(moved) -> None:
    from types import SimpleNamespace

    import jinja2

    from blockpact.experiments.outputs.groups_metrics import groups_metrics
    from blockpact.experiments.outputs.report import TEMPLATES

    _, events = moved
    spec = load_world(WORLD)
    final = SimpleNamespace(rewards={"Ann": 2.0, "Bo": 3.0, "Cal": 1.0, "Dee": 1.0}, events=events)
    seed = SimpleNamespace(seed=0, final=final, contract=None)
    run = SimpleNamespace(config=SimpleNamespace(conditions=[SimpleNamespace(name="none")]), of_condition=lambda name: [seed])
    metrics = groups_metrics(run, spec)
    [entry] = metrics["conditions"]["none"]["seeds"]
    assert [(c["player"], c["change"], c["group"], c["members"]) for c in entry["membership_changes"]] == [
        ("Ann", "leave", "red", ["Bo"]), ("Ann", "join", "blue", ["Cal", "Dee", "Ann"])]
    assert [s["members"] for s in entry["groups"]["blue"]["membership"]] == [["Cal", "Dee"], ["Cal", "Dee", "Ann"]]
    summary = metrics["conditions"]["none"]["groups"]
    assert summary["red"]["changes"] == 1 and summary["blue"]["members"] == ["Cal", "Dee", "Ann"]
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    html = env.get_template("groups.html.j2").render(groups=metrics)
    assert "Membership over time, none seed 0" in html and "Ann left red (Bo)" in html and "Ann joined blue (Cal, Dee, Ann)" in html


def test_shared_observation_follows_membership(moved) -> None:
    import dataclasses

    from blockpact.agents.observation import share_group_observations
    from blockpact.worlds.membership import membership_at

    _, events = moved
    spec = load_world(WORLD)
    groups = tuple(dataclasses.replace(g, shared_observation=True) for g in spec.groups)
    seen = {p: {"position": spec.players[p].spawn, "held": None, "inventory": {}, "chests": {}} for p in spec.players}
    before = share_group_observations(seen, membership_at(groups, events, spec.players, 1.0).standing(1.0), 1.0)
    after = share_group_observations(seen, membership_at(groups, events, spec.players, 100.0).standing(100.0), 100.0)
    assert set(before["Ann"]["group"]) == {"Bo"} and set(after["Ann"]["group"]) == {"Cal", "Dee"}
    assert not after["Bo"].get("group") and set(after["Cal"]["group"]) == {"Dee", "Ann"}


def test_the_action_prompt_lists_the_group_calls_only_in_a_world_with_groups() -> None:
    from blockpact.skills.reference import GROUP_PRIMITIVES, primitive_reference

    full, plain = primitive_reference(), primitive_reference(GROUP_PRIMITIVES)
    assert "joinGroup(bot, group)" in full and "formGroup(bot, group, share = 1)" in full
    assert "joinGroup" not in plain and "sendSignal(bot" in plain
