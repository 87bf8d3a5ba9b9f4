"""A foreign OpenAI-compatible server that misbehaves, through the real `openai` client over HTTP: an
outage is a failed unit (cause endpoint) with no welfare, never an outcome scored as zero; the run's
exit status says so; the pre-flight check stops a run whose endpoint cannot serve it before anything
is written; a server that recovers gives completed units; `blockpact resume` redoes failed units."""

from __future__ import annotations

import dataclasses
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from blockpact.agents.testing.openai_stub import OpenAIStub, Script, StubReply
from blockpact.agents.testing.protocol_responder import ProtocolResponder
from blockpact.cli import main
from blockpact.experiments.play.exit_codes import UNITS_FAILED
from blockpact.experiments.plan.preflight import is_check_request
from blockpact.experiments.log.records import read_run
from blockpact.worlds.world_files import load_world

LLM_ENV = ("OPENAI_BASE_URL", "OPENAI_MODEL", "OPENAI_API_KEY", "BLOCKPACT_LLM_CONFIG")
# Short time-outs and one quick retry, so a stalled server costs a second, not minutes.
FAST = """[endpoint]
timeout_seconds = 0.5
[retry]
max_retries = 1
backoff_initial_seconds = 0.01
backoff_max_seconds = 0.01
retry_after_max_seconds = 0.01
"""
FAULTS = {
    "429": StubReply.rate_limited("0"),
    "500": StubReply.server_error(),
    "stall": StubReply.slow(3.0),
    "malformed": StubReply.malformed(),
}


@pytest.fixture(autouse=True)
def no_llm_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in LLM_ENV:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def fast(tmp_path: Path) -> Path:
    path = tmp_path / "fast.toml"
    path.write_text(FAST)
    return path


def run_llm(base_url: str, out: Path, config: Path, *flags: str) -> int:
    return main(["run", "double_vein", "--agents", "llm", "--out", str(out), "--llm-base-url", base_url,
                 "--llm-model", "stub-model", "--no-llm-cache", "--llm-config", str(config), *flags])


def after_check(fault: StubReply) -> object:
    """A server that passes the pre-flight check, then answers every request of the run with `fault`."""
    def responder(request: dict) -> Script:
        return "OK" if is_check_request(request) else fault
    return responder


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_server_failing_mid_run_fails_every_seed_with_cause_endpoint(fault: str, fast: Path, tmp_path: Path,
                                                                       capsys) -> None:
    out = tmp_path / fault
    with OpenAIStub(responder=after_check(FAULTS[fault])) as stub:
        code = run_llm(stub.base_url, out, fast, "--seeds", "2", "--contract", "none")
    assert code == UNITS_FAILED
    err_lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("blockpact: ")]
    assert len(err_lines) == 1 and "2 of 2 condition-seed units did not complete: 2 endpoint" in err_lines[0]
    seeds = read_run(out / "events.jsonl").seeds
    assert [(s.seed, s.status, s.cause) for s in seeds] == [(0, "failed", "endpoint"), (1, "failed", "endpoint")]
    metrics = json.loads((out / "metrics.json").read_text())
    none = metrics["conditions"]["none"]
    assert none["runs"] == [] and none["outcomes"] == [] and none["seeds_finished"] == 0
    assert none["welfare"]["mean"] is None and none["gini"]["mean"] is None  # no "welfare 0.00, Gini 0.000"
    assert none["failures"]["endpoint"]["count"] == 2 and none["failures"]["endpoint"]["seeds"] == [0, 1]
    assert none["units"] == {"completed": 0, "failed": 2, "interrupted": 0, "not_started": 0}
    assert metrics["all_completed"] is False
    html = (out / "report.html").read_text()
    assert "2 unit(s) failed, cause endpoint" in html and "failed (endpoint)" in html


def test_failure_messages_name_what_the_server_did(fast: Path, tmp_path: Path) -> None:
    expected = {"429": "429", "500": "500", "stall": "no answer from", "malformed": "malformed"}
    for fault, words in expected.items():
        with OpenAIStub(responder=after_check(FAULTS[fault])) as stub:
            run_llm(stub.base_url, tmp_path / fault, fast, "--seeds", "1", "--contract", "none")
        message = json.loads((tmp_path / fault / "metrics.json").read_text())["conditions"]["none"]["failures"]["endpoint"]["first_message"]
        assert words in message, (fault, message)


@pytest.mark.parametrize("fault", ["429", "500", "stall", "malformed"])
def test_an_endpoint_that_always_fails_stops_the_run_before_any_unit(fault: str, fast: Path, tmp_path: Path,
                                                                     capsys) -> None:
    out = tmp_path / "never"
    with OpenAIStub(responder=lambda request: FAULTS[fault]) as stub:
        assert run_llm(stub.base_url, out, fast) == 1
        assert len(stub.chat_requests) <= 2  # one check (and its retry), not one failure per unit
    err = capsys.readouterr().err
    assert "cannot serve this run, nothing was run" in err and "blockpact llm check" in err and "Traceback" not in err
    assert not out.exists()


def test_nothing_listening_stops_the_run_with_a_clear_message(fast: Path, tmp_path: Path, capsys) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = tmp_path / "unreachable"
    assert run_llm(f"http://127.0.0.1:{port}/v1", out, fast) == 1
    err = capsys.readouterr().err
    assert f"127.0.0.1:{port}" in err and "LLMUnreachable" in err and "Traceback" not in err
    assert not out.exists()


def test_a_model_the_endpoint_does_not_offer_stops_the_run(fast: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "nomodel"
    with OpenAIStub(models=["llama-3"]) as stub:
        assert run_llm(stub.base_url, out, fast) == 1
        assert stub.chat_requests == []
    err = capsys.readouterr().err
    assert "has no model 'stub-model'" in err and "offered: llama-3" in err
    assert not out.exists()


@pytest.fixture
def protocol() -> Iterator[ProtocolResponder]:
    yield ProtocolResponder(load_world("double_vein"))


def test_a_server_that_recovers_after_a_few_429s_gives_completed_seeds(protocol: ProtocolResponder, tmp_path: Path,
                                                                       capsys) -> None:
    config = tmp_path / "patient.toml"
    # Only the 429s are the point: a real answer is not held to FAST's 0.5 s (a busy machine's stub is slower).
    config.write_text(FAST.replace("max_retries = 1", "max_retries = 3").replace("timeout_seconds = 0.5", "timeout_seconds = 30"))
    calls = {"n": 0}

    def responder(request: dict) -> Script:
        calls["n"] += 1
        if 3 <= calls["n"] <= 5:  # three 429s in a row, in the middle of the run
            return StubReply.rate_limited("0")
        return protocol(request)

    out = tmp_path / "recovers"
    with OpenAIStub(responder=responder) as stub:
        assert run_llm(stub.base_url, out, config, "--seeds", "1") == 0
    assert calls["n"] > 5
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["all_completed"] is True
    assert all(c["units"]["completed"] == 1 and not c["failures"] for c in metrics["conditions"].values())
    assert metrics["conditions"]["negotiate"]["welfare"]["mean"] == 78
    assert "did not complete" not in capsys.readouterr().err


def test_resume_redoes_the_units_an_outage_failed(protocol: ProtocolResponder, fast: Path, tmp_path: Path) -> None:
    out = tmp_path / "outage"
    with OpenAIStub(responder=after_check(StubReply.server_error())) as stub:
        assert run_llm(stub.base_url, out, fast, "--seeds", "1", "--contract", "none") == UNITS_FAILED
    with OpenAIStub(responder=protocol, port=stub.port) as healthy:  # the same endpoint, working again
        assert main(["resume", str(out)]) == 0
        assert healthy.chat_requests
    run = read_run(out / "events.jsonl")
    assert [(s.seed, s.status) for s in run.seeds] == [(0, "completed")]
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["all_completed"] and metrics["conditions"]["none"]["welfare"]["n"] == 1


# -- each role: a bad body now and then is re-asked; bad bodies only are the endpoint's failure ---------------

def _with_client(stub: OpenAIStub, use):
    import asyncio

    from blockpact.llm.client import LLMClient
    from blockpact.agents.testing.llm_settings import stub_settings

    async def go():
        async with LLMClient(stub_settings(stub, max_retries=0)) as client:
            return await use(client)

    return asyncio.run(go())


PROGRAM = "Explain: mine.\nPlan:\n1) Mine.\nCode:\n```javascript\nasync function mineIron(bot) {\n  await mineBlock(bot, \"iron_ore\", 1);\n}\n```"


def test_the_action_agent_re_asks_after_a_bad_body_and_fails_on_bad_bodies_only() -> None:
    from blockpact.agents.action import LLMActionAgent
    from blockpact.agents.action_context import ActionContext
    from blockpact.llm.errors import LLMBadReply

    spec = load_world("double_vein")
    ctx = ActionContext(player="Gizmo", world=spec, task="Mine iron.")
    with OpenAIStub([StubReply.malformed(), PROGRAM]) as stub:
        proposal = _with_client(stub, lambda c: LLMActionAgent(c, "Gizmo", spec).propose(ctx))
    assert proposal.function_name == "mineIron"
    with OpenAIStub(responder=lambda r: StubReply.malformed()) as stub:
        with pytest.raises(LLMBadReply, match="malformed"):
            _with_client(stub, lambda c: LLMActionAgent(c, "Gizmo", spec).propose(ctx))
        assert len(stub.chat_requests) == 3  # every extraction attempt, then the endpoint's failure


def test_the_critic_negotiator_and_judge_fail_on_bad_bodies_only() -> None:
    from blockpact.agents.critic import Critic
    from blockpact.llm.errors import LLMBadReply
    from blockpact.agents.negotiation import LLMNegotiator
    from blockpact.bridge.protocols import ProgramResult
    from blockpact.judge.contract import parse_contract
    from blockpact.judge.llm_judge import LLMJudge
    from blockpact.judge.observables import observables_from_events
    from blockpact.worlds.sim.simulator import Simulation

    spec = load_world("double_vein")
    result = ProgramResult(player="Gizmo", success=True, error=None, error_line=None, stack=None, chat=[],
                           observation={"inventory": {}, "time": 1.0}, duration=1.0)
    sim = Simulation(spec, seed=0)
    sim.finish()
    obs = observables_from_events(spec, sim.state.log.events)
    contract = parse_contract("1. At the end of the scenario Gizmo transfers 5 emeralds to Glitch.", sorted(spec.players))
    roles = {
        "critic": lambda c: Critic(c).critique("Mine iron.", result),
        "negotiator": lambda c: LLMNegotiator(c, "Gizmo", spec).reply([], 1),
        "judge": lambda c: LLMJudge(c).judge(contract, obs),
    }
    for role, use in roles.items():
        with OpenAIStub(responder=lambda r: StubReply.malformed()) as stub:
            with pytest.raises(LLMBadReply):
                _with_client(stub, use)
            assert len(stub.chat_requests) == 3, role  # re-asked as for an unusable reply, then failed
    with OpenAIStub([StubReply.malformed(), '{"reasoning": "ok", "success": true, "critique": ""}']) as stub:
        assert _with_client(stub, roles["critic"]).success is True
    with OpenAIStub([StubReply.malformed(), "[thinking] t [message] m [contract]\n1. Gizmo mines all iron_ore.\n[contract end]"]) as stub:
        turn = _with_client(stub, roles["negotiator"])
    assert turn.proposal and turn.error is None


def test_a_server_that_goes_away_mid_run_fails_the_seeds_with_cause_endpoint(fast: Path, tmp_path: Path) -> None:
    import threading

    holder: dict[str, OpenAIStub] = {}

    def responder(request: dict) -> Script:
        if is_check_request(request):
            return "OK"
        threading.Thread(target=holder["stub"].stop, daemon=True).start()  # the server goes away
        return StubReply.slow(5.0)

    out = tmp_path / "gone"
    with OpenAIStub(responder=responder) as stub:
        holder["stub"] = stub
        assert run_llm(stub.base_url, out, fast, "--seeds", "2", "--contract", "none") == UNITS_FAILED
    seeds = read_run(out / "events.jsonl").seeds
    assert [(s.status, s.cause) for s in seeds] == [("failed", "endpoint")] * 2
    message = json.loads((out / "metrics.json").read_text())["conditions"]["none"]["failures"]["endpoint"]["first_message"]
    assert "cannot connect" in message or "no answer" in message, message


def test_resume_with_a_longer_call_bound_finishes_units_a_slow_endpoint_failed(protocol: ProtocolResponder, fast: Path,
                                                                               tmp_path: Path, capsys) -> None:
    """A local model answering in 40-260 s against the 120 s default: the units failed (cause
    endpoint), and resume, reading the bound back from the log, could never finish them. `--llm-timeout` can."""
    def slow(request: dict) -> Script:
        reply = protocol(request)
        if is_check_request(request):
            return reply
        return StubReply(content=reply, delay_s=1.0) if isinstance(reply, str) else dataclasses.replace(reply, delay_s=1.0)

    out = tmp_path / "slow"
    with OpenAIStub(responder=slow) as stub:  # FAST: 0.5 s a call
        assert run_llm(stub.base_url, out, fast, "--seeds", "1", "--contract", "none") == UNITS_FAILED
        assert read_run(out / "events.jsonl").seeds[0].cause == "endpoint"
        assert "run status: <span class=\"status-complete\">complete</span> <span class=\"status-failed\">(not every" \
            in (out / "report.html").read_text()  # it ran to its end, and its one unit failed
        for wrong in ("0", "inf"):
            assert main(["resume", str(out), "--llm-timeout", wrong]) == 1
            assert "expected a number of seconds > 0" in capsys.readouterr().err
        assert main(["resume", str(out), "--llm-timeout", "0.6"]) == UNITS_FAILED  # still shorter than an answer
        assert main(["resume", str(out)]) == UNITS_FAILED  # the last bound given holds (a review: it went back)
        assert "LLM calls may take 0.6 s each, as the last resume" in capsys.readouterr().err
        assert main(["resume", str(out), "--llm-timeout", "30"]) == 0
    assert "(1 seed)" in capsys.readouterr().out  # one seed's spread is unknown: not "± 0.00"
    assert "(not every" not in (out / "report.html").read_text()
    run = read_run(out / "events.jsonl")
    assert [(s.seed, s.status) for s in run.seeds] == [(0, "completed")]
    resumed = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines() if '"run_resumed"' in line]
    assert [e["data"]["llm_timeout_s"] for e in resumed] == [0.6, 0.6, 30.0]
