"""LLM runs say who played and what it cost (metrics.json `llm`, the summary, the report's "LLM calls"),
and `--llm-budget` stops a run cleanly: the real openai client against the local stub over HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from blockpact.llm import Budget
from blockpact.cli.llm import CHECK_PROMPT
from blockpact.agents.testing.openai_stub import OpenAIStub
from blockpact.agents.testing.protocol_responder import ProtocolResponder
from blockpact.agents.testing.stub_quirks import ServerQuirks
from blockpact.cli import main
from blockpact.errors import UserError
from blockpact.experiments.outputs.llm_accounting import EXIT_STOPPED
from blockpact.experiments.log.records import read_run
from blockpact.worlds.world_files import load_world

LLM_ENV = ("OPENAI_BASE_URL", "OPENAI_MODEL", "OPENAI_API_KEY", "BLOCKPACT_LLM_CONFIG")
ROLES = {"negotiator", "action", "critic", "skill", "reflection", "judge"}  # two episodes: every role is asked


@pytest.fixture(autouse=True)
def llm_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in LLM_ENV:
        monkeypatch.delenv(name, raising=False)


def run(stub: OpenAIStub, out: Path, *flags: str, cache: Path | None = None) -> int:
    caching = ["--llm-cache-dir", str(cache)] if cache else ["--no-llm-cache"]
    return main(["run", "double_vein", "--agents", "llm", "--out", str(out), "--llm-base-url", stub.base_url,
                 "--llm-model", "stub-model", *caching, *flags])


def agent_requests(server: OpenAIStub) -> list:
    """Chat requests of the agents (not a pre-flight check of the endpoint, which asks `CHECK_PROMPT`)."""
    return [r for r in server.chat_requests if r.body["messages"][-1]["content"] != CHECK_PROMPT]


def stub(**quirks: object) -> OpenAIStub:
    return OpenAIStub(responder=ProtocolResponder(load_world("double_vein")), quirks=ServerQuirks(**quirks))


@pytest.fixture(scope="module")
def accounted(tmp_path_factory) -> Iterator[tuple[Path, OpenAIStub, str]]:
    out = tmp_path_factory.mktemp("acct") / "run"
    config = out.parent / "llm.toml"
    config.write_text('[prices."stub-model"]\nprompt_per_million = 1000.0\ncompletion_per_million = 2000.0\n')
    with pytest.MonkeyPatch.context() as mp:
        for name in LLM_ENV:
            mp.delenv(name, raising=False)
        with stub() as server:
            code = run(server, out, "--seeds", "1", "--episodes", "2", "--llm-config", str(config))
    assert code == 0
    yield out, server, config.read_text()


def test_metrics_name_the_model_and_endpoint_and_count_every_call_per_role(accounted) -> None:
    out, server, _ = accounted
    llm = json.loads((out / "metrics.json").read_text())["llm"]
    assert llm["endpoint"] == server.base_url and llm["model"] == "stub-model"
    assert set(llm["roles"]) == ROLES
    bodies = agent_requests(server)
    assert llm["total"]["calls"] == len(bodies) and llm["total"]["cached_calls"] == 0
    for role, totals in llm["roles"].items():
        assert totals["models"] == ["stub-model"] and totals["endpoints"] == [server.base_url]
        assert totals["prompt_tokens"] > 0 and not totals["tokens_estimated"]
    # the stub's usage (a word count) summed; cost from the price table
    total = llm["total"]
    assert total["prompt_tokens"] == sum(r["prompt_tokens"] for r in llm["roles"].values())
    expected = (total["prompt_tokens"] * 1000 + total["completion_tokens"] * 2000) / 1e6
    assert total["cost_usd"] == pytest.approx(expected)
    assert llm["budget"] is None
    assert set(llm["models"]) == {"stub-model"} and llm["models"]["stub-model"]["calls"] == total["calls"]


def test_every_call_is_an_event_of_its_unit(accounted) -> None:
    out, server, _ = accounted
    run_record = read_run(out / "events.jsonl")
    calls = {(s.condition, c["role"]) for s in run_record.seeds for c in s.llm_calls}
    assert ("negotiate", "negotiator") in calls and ("none", "negotiator") not in calls
    assert sum(len(s.llm_calls) for s in run_record.seeds) == len(agent_requests(server))
    assert {c["episode"] for s in run_record.seeds for c in s.llm_calls if c["role"] != "negotiator"} == {0, 1}
    assert all(c["episode"] == 0 for s in run_record.seeds for c in s.llm_calls
               if c["role"] in ("critic", "skill", "reflection"))  # not asked in the last episode
    text = (out / "events.jsonl").read_text()
    assert '"kind": "llm_call"' in text and "Value of items to you" not in text.split('"llm_call"')[1][:2000]


def test_the_report_has_an_llm_calls_section(accounted) -> None:
    out, server, _ = accounted
    html = (out / "report.html").read_text()
    assert "<h2>LLM calls</h2>" in html and f"at <strong>{server.base_url}</strong>" in html
    for role in ROLES:
        assert f"<td>{role}</td><td>stub-model</td>" in html
    assert 'class="total"' in html


def test_the_summary_prints_calls_and_tokens_per_role(accounted, capsys) -> None:
    out, server, _ = accounted
    assert main(["report", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "LLM calls: stub-model" in printed and server.base_url in printed
    assert all(role in printed for role in ("negotiator", "action", "critic", "reflection", "judge")) and "total" in printed


def test_tokens_the_server_did_not_report_are_estimated_and_marked(tmp_path: Path, capsys) -> None:
    with stub(report_usage=False) as server:
        assert run(server, tmp_path / "est", "--seeds", "1", "--contract", "none") == 0
    printed = capsys.readouterr().out
    llm = json.loads((tmp_path / "est" / "metrics.json").read_text())["llm"]
    assert llm["total"]["tokens_estimated"] and llm["total"]["estimated_calls"] == llm["total"]["calls"]
    assert "~" in printed and "estimated" in printed
    assert "were estimated" in (tmp_path / "est" / "report.html").read_text()


def test_a_rerun_on_another_port_sends_nothing(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with stub() as first:
        assert run(first, tmp_path / "a", "--seeds", "1", cache=cache) == 0
    with stub() as second:
        assert second.port != first.port
        assert run(second, tmp_path / "b", "--seeds", "1", cache=cache) == 0
        assert agent_requests(second) == []
    llm = json.loads((tmp_path / "b" / "metrics.json").read_text())["llm"]
    assert llm["total"]["cached_calls"] == llm["total"]["calls"] > 0 and llm["total"]["cost_usd"] == 0


def test_a_token_budget_stops_the_run_and_says_which_units_did_not_run(tmp_path: Path, capsys) -> None:
    out = tmp_path / "budget"
    with stub() as server:
        code = run(server, out, "--seeds", "2", "--llm-budget", "3k")
        sent = len(agent_requests(server))
    err = capsys.readouterr().err
    assert code == EXIT_STOPPED and "LLM budget of 3,000 tokens is spent" in err
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["status"] == "stopped"
    budget = metrics["llm"]["budget"]
    assert budget["spent"] and budget["unit"] == "tokens" and budget["amount"] == 3000
    not_run = {(u["condition"], u["seed"]) for u in budget["units_not_run"]}
    assert ("negotiate", 0) in not_run and ("negotiate", 1) in not_run
    # the unit in progress when it ran out failed with the reason; no further request was sent
    failed = [s for s in read_run(out / "events.jsonl").seeds if s.errors]
    assert failed and "LLMBudgetSpent" in failed[0].errors[0]
    assert metrics["llm"]["total"]["calls"] - metrics["llm"]["total"]["failed_calls"] == sent
    assert "Units not run" in (out / "report.html").read_text()


@pytest.mark.parametrize(
    ("text", "budget"),
    [("200000", Budget(200000, "tokens")), ("200k tokens", Budget(200000, "tokens")), ("$1.50", Budget(1.5, "usd")),
     ("0.25usd", Budget(0.25, "usd")), ("2M", Budget(2e6, "tokens"))],
)
def test_budgets_are_read_in_tokens_or_dollars(text: str, budget: Budget) -> None:
    assert Budget.parse(text) == budget


@pytest.mark.parametrize("text", ["lots", "-5", "0", "1.5 euros"])
def test_a_budget_that_is_no_amount_is_refused(text: str) -> None:
    with pytest.raises(UserError, match="--llm-budget"):
        Budget.parse(text)


def test_a_dollar_budget_without_prices_is_refused_before_anything_runs(tmp_path: Path, capsys) -> None:
    with stub() as server:
        assert run(server, tmp_path / "usd", "--llm-budget", "$1") == 1
        assert server.chat_requests == []
    assert "no price for stub-model" in capsys.readouterr().err and not (tmp_path / "usd").exists()
