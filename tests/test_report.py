"""report.html shows what agents said and judges decided, escaped; the progress display stays quiet off a terminal."""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from blockpact.agents.negotiation import NegotiationTurn, negotiate
from blockpact.cli import main

from blockpact.experiments.play.progress import RunProgress
from blockpact.experiments.play.protocol import EpisodeInput, EpisodeLog, EpisodeOutcome, Participants
from blockpact.experiments.plan.run_plan import RunPlan, ConditionSpec
from blockpact.experiments.log.records import read_run
from blockpact.experiments.log.rundir import RunDir
from blockpact.experiments.play.runner import run_plan
from blockpact.experiments.play.scripted import scripted_participants
from blockpact.worlds.events import Event
from blockpact.worlds.world_files import load_world

ATTACK = '<script>alert("pwned")</script>'


@dataclass
class Turn:
    round: int
    player: str
    thinking: str
    message: str
    proposal: str | None
    accept: bool
    raw: str


@dataclass
class Result:
    contract: str | None
    accepted_round: int | None
    turns: list[Turn]
    proposed_by: str | None = "Gizmo"
    proposed_round: int | None = 1
    accepted_by: tuple[str, ...] = ("Glitch",)
    seating: tuple[str, ...] = ("Gizmo", "Glitch")


class HostileNegotiation:
    """Negotiators whose words carry markup and whose thinking must stay folded away."""

    scripted = False

    async def negotiate(self, spec, seed: int) -> Result:
        proposal = f"1. Gizmo mines all iron_ore.\n2. {ATTACK}"
        return Result(proposal, 2, [
            Turn(1, "Gizmo", "I secretly want all the diamonds", f"Deal? {ATTACK}", proposal, False, ""),
            Turn(2, "Glitch", "", "Fine.", None, True, ""),
        ])


class JudgedEngine:
    """The scripted engine (whose formal judge settles the contract), plus what the LLM-side parts will add:
    chat, a failed program, a critic's critique and an LLM judge."""

    def __init__(self) -> None:
        self.inner = scripted_participants().engine

    async def play(self, episode: EpisodeInput, log: EpisodeLog) -> EpisodeOutcome:
        outcome = await self.inner.play(episode, log)
        if episode.contract is None:
            return outcome
        log.world(Event(299.0, "Glitch", "chat", {"message": f"gg {ATTACK}", "source": "program"}))
        log.program_result({"player": "Glitch", "success": False, "error": f"TypeError: x is undefined {ATTACK}",
                            "error_line": 3, "stack": "at line 3", "chat": [], "logs": [], "duration": 2.0,
                            "timed_out": False, "observation": {"position": [0, 0, 0]}},
                           code="async function f(bot) { x.y; }")
        log.critique("Gizmo", "critic", f"Mine faster {ATTACK}")
        log.judgment("llm", {"Gizmo": -6, "Glitch": 6}, {"Glitch": f"kept the deal {ATTACK}"}, "Glitch was owed 6")
        return outcome


def _hostile_run(tmp_path: Path) -> RunDir:
    plan = RunPlan(load_world("double_vein"), "sim", "llm",
                   [ConditionSpec("none", "none"), ConditionSpec("negotiate", "negotiate")], [0], 1)
    return run_plan(plan, tmp_path / "r", participants=Participants(JudgedEngine(), HostileNegotiation())).run_dir


def test_agent_text_is_escaped_everywhere(tmp_path: Path) -> None:
    html = _hostile_run(tmp_path).report.read_text()
    assert "<script" not in html.lower()
    escaped = ATTACK.replace("<", "&lt;").replace(">", "&gt;").replace('"', "&#34;")
    # negotiation message, proposal and contract, chat line, program error, critique, judge critique
    assert html.count(escaped) >= 7


def test_report_shows_negotiation_judges_and_program_errors(tmp_path: Path) -> None:
    html = _hostile_run(tmp_path).report.read_text()
    assert "agents: LLM" in html and "agents: scripted" not in html
    # hidden thinking only inside a collapsed <details>
    thinking = html.index("I secretly want all the diamonds")
    assert html.rfind("<details>", 0, thinking) > html.rfind("</details>", 0, thinking)
    assert "<details open" not in html
    # formal vs LLM judge, with the difference
    # the contract has no transfer clause, so the formal judge moves nothing; the LLM judge moved 6
    row = re.search(r"<tr><td>Gizmo</td><td class=\"num\">\+0</td><td class=\"num\">-6</td><td class=\"num\">-6</td></tr>", html)
    assert row, "formal vs LLM comparison row missing"
    assert "formal judge</b>" in html and "Glitch was owed 6" in html and "[accept]" in html
    assert "Program error (Glitch, line 3)" in html and "async function f(bot) { x.y; }" in html
    assert "proposed by Gizmo, accepted by Glitch (round 2; 2 players seated: each spoke at most once)" in html


def test_the_contract_event_says_who_proposed_and_who_accepted(tmp_path: Path) -> None:
    run = read_run(_hostile_run(tmp_path).events)
    seeds = {s.condition: s for s in run.seeds}
    negotiated, none = seeds["negotiate"], seeds["none"]
    assert (negotiated.contract_source, negotiated.accepted_round) == ("negotiated", 2)
    assert (negotiated.proposed_by, negotiated.accepted_by) == ("Gizmo", ["Glitch"])
    assert (none.proposed_by, none.accepted_by) == (None, [])


class Scripted:
    """A negotiator (the real Negotiator protocol) replying from a script: a contract text proposes it,
    "accept" accepts, "say" only talks (which rejects the standing proposal)."""

    def __init__(self, player: str, *script: str) -> None:
        self.player, self.script = player, list(script)

    async def reply(self, history, round, rounds=None, seating=None) -> NegotiationTurn:  # noqa: A002
        word = self.script.pop(0) if self.script else "say"
        accept, proposal = word == "accept", word if word not in ("accept", "say") else None
        return NegotiationTurn(round, self.player, "", word, proposal, accept, word, source="scripted")


class SeatedNegotiation:
    """Three players seated Cy, Ann, Bo (not by name): Cy proposes, Ann rejects by talking, Bo proposes again,
    Cy and Ann accept in rounds 4 and 5, the second time around the table."""

    async def negotiate(self, spec, seed: int):
        return await negotiate([Scripted("Cy", "1. Cy gives all melon_slice to Ann.", "accept"), Scripted("Ann", "say", "accept"),
                                Scripted("Bo", "1. Ann gives all melon_slice to Bo.")], 4)  # 6 rounds


def _seated_run(tmp_path: Path) -> RunDir:
    plan = RunPlan(load_world(Path(__file__).parent / "worlds" / "three_way_split.toml"), "sim", "scripted",
                   [ConditionSpec("negotiate", "negotiate")], [0], 1)
    return run_plan(plan, tmp_path / "r", participants=Participants(scripted_participants().engine, SeatedNegotiation())).run_dir


def test_the_accepted_round_is_the_reply_that_adopted_and_the_report_says_the_lap(tmp_path: Path) -> None:
    """`accepted_round` counts replies, as every turn's round does (the paper's rounds with two players): here 5 with
    3 seated. The log records the seating; the report says how many times each player had spoken by then."""
    run_dir = _seated_run(tmp_path)
    (contract,) = [json.loads(line)["data"] for line in run_dir.events.read_text().splitlines() if '"kind": "contract"' in line]
    assert (contract["accepted_round"], contract["proposed_round"], contract["seating"]) == (5, 3, ["Cy", "Ann", "Bo"])
    (seed,) = read_run(run_dir.events).seeds
    assert [t.round for t in seed.turns] == [1, 2, 3, 4, 5] and seed.accepted_lap == 2
    line = "proposed by Bo, accepted by Cy, Ann (round 5; 3 players seated: each spoke at most twice)"
    assert line in run_dir.report.read_text()

    # an older log has no seating: it is read as the order in which players first spoke, and reports the same
    lines = [json.loads(line) for line in run_dir.events.read_text().splitlines()]
    for event in lines:
        if event["kind"] == "contract":
            del event["data"]["seating"]
    run_dir.events.write_text("".join(json.dumps(e) + "\n" for e in lines))
    assert main(["report", str(run_dir.root)]) == 0
    (seed,) = read_run(run_dir.events).seeds
    assert (seed.seating, seed.seated, seed.accepted_round, seed.accepted_lap) == ([], ["Cy", "Ann", "Bo"], 5, 2)
    assert line in run_dir.report.read_text()


def test_progress_is_silent_when_output_is_not_a_terminal(monkeypatch) -> None:
    """The whole command's piped output is checked by test_cli.py::test_console_script_runs_the_main_job."""
    # JSPyBridge sets FORCE_COLOR in os.environ when the Node runtime starts (an earlier test's run
    # started it in this process), and rich takes any FORCE_COLOR for a terminal.
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    sink = io.StringIO()
    progress = RunProgress(Console(file=sink), total_episodes=2)
    assert not progress.enabled
    terminal = RunProgress(Console(file=io.StringIO(), force_terminal=True), total_episodes=2)
    assert terminal.enabled
