"""A private briefing per player: in the world file next to the shared description, read only by its player."""

from __future__ import annotations

from pathlib import Path

from blockpact.agents.action_context import ActionContext
from blockpact.agents.action_prompts import action_messages
from blockpact.agents.negotiation import LLMNegotiator
from blockpact.cli import main
from blockpact.worlds.world_files import load_world, validate_world

SECRET = "You are the smith. Only you know the vein grows back slowly."


def briefed_world(tmp_path: Path) -> Path:
    path = tmp_path / "quarry.toml"
    assert main(["world", "new", "quarry", "--out", str(path)]) == 0
    text = path.read_text().replace(f'# briefing = "{SECRET}"', f'briefing = "{SECRET}"')
    path.write_text(text)
    return path


def test_only_the_briefed_player_reads_the_briefing(tmp_path: Path) -> None:
    spec = load_world(briefed_world(tmp_path))
    assert spec.players["Ben"].briefing == SECRET and spec.players["Ada"].briefing == ""
    assert SECRET in spec.description_for("Ben") and spec.description.strip() in spec.description_for("Ben")
    assert SECRET not in spec.description_for("Ada") and SECRET not in spec.description
    assert SECRET in LLMNegotiator(None, "Ben", spec).system_prompt(3)  # type: ignore[arg-type]
    assert SECRET not in LLMNegotiator(None, "Ada", spec).system_prompt(3)  # type: ignore[arg-type]
    ben = action_messages(ActionContext(player="Ben", world=spec, task="Mine."), "", [], 5)
    ada = action_messages(ActionContext(player="Ada", world=spec, task="Mine."), "", [], 5)
    assert SECRET in ben[1]["content"] and SECRET not in ada[1]["content"]


def test_a_briefing_must_be_text(tmp_path: Path) -> None:
    path = briefed_world(tmp_path)
    path.write_text(path.read_text().replace(f'briefing = "{SECRET}"', "briefing = 3"))
    [problem] = validate_world(path)
    assert problem.path == "players.Ben.briefing" and "expected the text only this player reads" in problem.message
