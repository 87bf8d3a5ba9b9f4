"""Every proposal is read before it stands: the negotiator prompt lists the clause forms made from the
clause kinds themselves (so it cannot drift from the parser); an LLM proposer is shown, clause by clause,
what is formal and why not, revises within its turn (at most `revisions` times, each recorded), and the
other players see the reading. Against the local OpenAI-compatible stub (the real HTTP protocol)."""

from __future__ import annotations

import asyncio
import json
import typing
from pathlib import Path

import pytest

from blockpact.agents.negotiation import LLMNegotiator, load_negotiation_settings, negotiate
from blockpact.agents.testing.llm_settings import stub_settings
from blockpact.agents.testing.openai_stub import OpenAIStub
from blockpact.judge import clauses as clause_module
from blockpact.judge.contract import parse_contract
from blockpact.judge.contract_forms import contract_forms
from blockpact.llm import LLMClient
from blockpact.worlds.world_files import BUILTIN_DIR, load_world

LANGUAGE = Path(__file__).parent / "worlds" / "contract_language.toml"
LOOSE = "1. Gizmo mines all iron_ore.\n2. Glitch keeps away from the iron, more or less."
FORMAL = "1. Gizmo mines all iron_ore.\n2. Glitch does not mine iron_ore."


def propose(contract: str, message: str = "My offer.") -> str:
    return f"[thinking] plan\n[message] {message}\n[contract]\n{contract}\n[contract end]"


ACCEPT = "[thinking] fine\n[message] Agreed.\n[accept]"


def run(stub: OpenAIStub, spec, players=("Gizmo", "Glitch"), rounds: int = 4):
    async def go():
        async with LLMClient(stub_settings(stub)) as client:
            return await negotiate([LLMNegotiator(client, p, spec) for p in players], rounds)

    return asyncio.run(go())


def test_the_prompt_lists_a_form_of_every_clause_kind_and_each_parses_back() -> None:
    spec = load_world(LANGUAGE)
    forms = contract_forms(spec, "Ann")
    kinds = set()
    for _, sentence in forms:
        [clause] = parse_contract(f"1. {sentence}", sorted(spec.players), spec=spec).clauses
        assert clause.formal, (sentence, clause.why)
        kinds |= {type(p).__name__ for p in clause_module.parts(clause)} | {type(clause).__name__}
    every = {t.__name__ for t in typing.get_args(clause_module.Clause)} - {"FreeText", "ForEach", "Craft"}
    assert every <= kinds, f"clause kinds with no form in the prompt: {sorted(every - kinds)}"
    system = LLMNegotiator(None, "Ann", spec).system_prompt(4)  # type: ignore[arg-type]
    for _, sentence in forms:
        assert sentence in system
    assert "at most 2" in system and "free text: nobody enforces it" in system


def test_a_free_text_proposal_is_read_back_revised_in_the_turn_and_the_others_see_the_reading() -> None:
    spec = load_world(BUILTIN_DIR / "double_vein.toml")
    with OpenAIStub([propose(LOOSE), propose(FORMAL, "Revised."), ACCEPT]) as stub:
        result = run(stub, spec)
        requests = [r.body["messages"] for r in stub.chat_requests]
    assert result.contract == FORMAL and result.accepted_round == 2
    first = result.turns[0]
    assert first.proposal == FORMAL and first.message == "Revised."
    assert [r["proposal"] for r in first.revisions] == [LOOSE]
    assert first.revisions[0]["reading"][1].startswith("2. free text, not enforced (not in the controlled form:")
    assert first.reading == ["1. formal (assignment): Gizmo mines all iron_ore.",
                             "2. formal (exclusion): Glitch does not mine iron_ore."]
    shown = requests[1][-1]["content"]  # the reading, sent back to the proposer within its turn
    assert "The judge reads your proposal clause by clause" in shown and "1 of 2 clauses are free text" in shown
    assert "You may revise 1 more time(s)" in shown
    other = json.dumps(requests[2])  # Glitch's turn: the standing proposal with its reading
    assert "The judge reads it: 1. formal (assignment)" in other and "keeps away" not in other


def test_revisions_are_bounded_and_a_proposal_that_stays_loose_stands_with_its_reading() -> None:
    spec = load_world(BUILTIN_DIR / "double_vein.toml")
    revisions = load_negotiation_settings().negotiation.revisions
    assert revisions == 2
    with OpenAIStub([propose(LOOSE)] * (1 + revisions) + [ACCEPT]) as stub:
        result = run(stub, spec)
        count = len(stub.chat_requests)
    assert count == 1 + revisions + 1  # two revisions asked for, then Glitch's turn
    first = result.turns[0]
    assert first.proposal == LOOSE and len(first.revisions) == revisions
    assert any("free text, not enforced" in line for line in first.reading)
    assert result.contract == LOOSE  # it was accepted as it stood: the reading said what is not enforced


def test_a_formal_proposal_is_not_sent_back_and_the_event_log_keeps_reading_and_revisions(tmp_path: Path) -> None:
    spec = load_world(BUILTIN_DIR / "double_vein.toml")
    with OpenAIStub([propose(FORMAL), ACCEPT]) as stub:
        result = run(stub, spec)
        assert len(stub.chat_requests) == 2
    from blockpact.experiments.play.protocol import _turn_data

    data = _turn_data(result.turns[0])
    assert data["reading"] == result.turns[0].reading and data["revisions"] == []


@pytest.mark.parametrize("world", ["double_vein", "commons", "cleanup", "cleanup_mp", "forest"])
def test_every_builtin_world_prompt_shows_forms_in_its_own_names(world: str) -> None:
    spec = load_world(BUILTIN_DIR / f"{world}.toml")
    player = sorted(spec.players)[0]
    forms = contract_forms(spec, player)
    assert len(forms) >= 15
    assert all(any(p in s for p in spec.players) or s.startswith("Whoever") for _, s in forms)
    kept_blocks = set(spec.blocks.values()) | {r.block for r in spec.rules}
    for _, sentence in forms:  # every block named is one of this world's
        assert all(w.rstrip(".,") in kept_blocks for w in sentence.split() if w.rstrip(".,").endswith(("_ore", "_block", "_log")))


def test_a_run_records_the_reading_and_the_revision_and_the_report_shows_them(tmp_path: Path, monkeypatch) -> None:
    """`blockpact run --agents llm` over HTTP: the first proposal has a free-text clause; shown the reading,
    the proposer (the protocol responder) revises to the formal optimum, which is accepted and played."""
    from blockpact.agents.testing.protocol_responder import ProtocolResponder
    from blockpact.cli import main

    for name in ("OPENAI_BASE_URL", "OPENAI_MODEL", "BLOCKPACT_LLM_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-reading")
    spec = load_world(BUILTIN_DIR / "double_vein.toml")
    protocol = ProtocolResponder(spec)
    loose = f"{protocol.contract}\n9. Both players are nice to each other."
    first: list[bool] = []

    def responder(request):
        system = request["messages"][0]["content"]
        if system.startswith("You are Gizmo, a player") and not first:
            first.append(True)
            return propose(loose.replace("9.", f"{len(protocol.contract.splitlines()) + 1}."))
        return protocol(request)

    out = tmp_path / "run"
    with OpenAIStub(responder=responder, api_key="sk-test-reading") as stub:
        code = main(["run", "double_vein", "--agents", "llm", "--out", str(out), "--llm-base-url", stub.base_url,
                     "--llm-model", "stub-model", "--no-llm-cache", "--seeds", "1", "--contract", "negotiate"])
    assert code == 0
    turns = [json.loads(line)["data"] for line in (out / "events.jsonl").read_text().splitlines()
             if json.loads(line)["kind"] == "negotiation_turn"]
    gizmo = turns[0]
    assert gizmo["player"] == "Gizmo" and gizmo["proposal"] == protocol.contract
    [earlier] = gizmo["revisions"]
    assert "nice to each other" in earlier["proposal"] and any("free text, not enforced" in r for r in earlier["reading"])
    assert all(" formal (" in line for line in gizmo["reading"])
    assert turns[1]["accept"]
    html = (out / "report.html").read_text()
    assert "revised 1 time(s) in the turn" in html and "how the judge reads it" in html
