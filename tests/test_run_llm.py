"""`blockpact run --agents llm` end to end against the local OpenAI-compatible stub: the real openai
client over HTTP, the real prompts, parsers and validators, JS programs on the simulator."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from blockpact.llm import read_transcript
from blockpact.agents.testing.openai_stub import OpenAIStub, Script, StubReply
from blockpact.agents.testing.protocol_responder import ProtocolResponder
from blockpact.cli import main
from blockpact.experiments.plan.preflight import is_check_request
from blockpact.experiments.log.records import read_run
from blockpact.worlds.world_files import load_world
from test_compare import short_cleanup

KEY = "sk-test-do-not-leak-7f3a9c"
LLM_ENV = ("OPENAI_BASE_URL", "OPENAI_MODEL", "OPENAI_API_KEY", "BLOCKPACT_LLM_CONFIG")


@pytest.fixture(scope="module")
def llm_env() -> Iterator[pytest.MonkeyPatch]:
    """Only the stub's key in the environment: a developer's own endpoint or key never enters a test."""
    with pytest.MonkeyPatch.context() as mp:
        for name in LLM_ENV:
            mp.delenv(name, raising=False)
        mp.setenv("OPENAI_API_KEY", KEY)
        yield mp


def run_against(stub: OpenAIStub, world: str, out: Path, *flags: str, cache: Path | None = None) -> int:
    caching = ["--llm-cache-dir", str(cache)] if cache else ["--no-llm-cache"]
    return main(["run", world, "--agents", "llm", "--out", str(out), "--llm-base-url", stub.base_url,
                 "--llm-model", "stub-model", *caching, *flags])


def llm_run(world: str, out: Path, *flags: str) -> tuple[int, OpenAIStub]:
    with OpenAIStub(responder=ProtocolResponder(load_world(world)), api_key=KEY) as stub:
        return run_against(stub, world, out, *flags), stub


@pytest.fixture(scope="module")
def double_vein_llm(llm_env, tmp_path_factory) -> tuple[Path, OpenAIStub]:
    out = tmp_path_factory.mktemp("llm") / "dv"
    code, stub = llm_run("double_vein", out, "--seeds", "2")
    assert code == 0
    return out, stub


def test_llm_run_completes_with_the_paper_result(double_vein_llm) -> None:
    out, _ = double_vein_llm
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["agents"] == "llm" and metrics["status"] == "complete"
    c = metrics["conditions"]
    assert c["negotiate"]["welfare"]["mean"] == 78 and c["negotiate"]["gini"]["mean"] <= 0.06
    assert c["none"]["welfare"]["mean"] < 78 and c["none"]["gini"]["mean"] > c["negotiate"]["gini"]["mean"]
    run = read_run(out / "events.jsonl")
    for seed in run.seeds:
        assert not seed.errors and all(t.scripted is False for t in seed.turns)
        for episode in seed.episodes:
            assert {p.source for p in episode.programs} == {"llm"}
            assert all(p.code and p.code.lstrip().startswith("//") for p in episode.programs)


def test_transcripts_hold_every_role_and_never_the_key(double_vein_llm) -> None:
    out, stub = double_vein_llm
    records = read_transcript(out / "transcripts" / "llm.jsonl")
    # one episode per seed: no critic, skill description or reflection (nothing would read them)
    assert {r["role"] for r in records} == {"negotiator", "action", "judge"}
    work = [r for r in stub.chat_requests if not is_check_request(r.body)]  # all but the pre-flight check
    assert len(records) == len(work) == len(stub.chat_requests) - 1  # every HTTP call, none cached
    for path in out.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path
    sent = [{k.lower(): v for k, v in r.headers.items()}.get("authorization") for r in stub.chat_requests]
    assert sent and set(sent) == {f"Bearer {KEY}"}  # the key went where it belongs, and only there


def test_llm_judge_json_is_validated_and_compared_with_the_formal_judge(double_vein_llm) -> None:
    out, _ = double_vein_llm
    run = read_run(out / "events.jsonl")
    judged = [ep for s in run.of_condition("negotiate") for ep in s.episodes]
    for episode in judged:
        by_source = {j.source: j for j in episode.judgments}
        assert set(by_source) == {"formal", "llm"}
        llm = by_source["llm"]
        # the stub's first answer is not zero-sum: rejected with the reason, then answered again
        assert llm.valid and len(llm.problems) == 1 and "add up to" in llm.problems[0]
        assert llm.transfers == by_source["formal"].transfers == {"Gizmo": -9.0, "Glitch": 9.0}
    judges = json.loads((out / "metrics.json").read_text())["conditions"]["negotiate"]["judges"]
    assert judges == {"compared": 2, "disagreed": 0, "llm_invalid": 0}
    html = (out / "report.html").read_text()
    assert "agents: LLM" in html and "difference (LLM − formal)" in html and "failed validation" in html


def test_cleanup_llm_run_completes_with_both_conditions(llm_env, tmp_path: Path) -> None:
    """On cleanup in 300 s episodes, not 600: what is checked does not depend on their length (measured: welfare
    none 48, negotiate 585 at 300 s; 48 and 1110 at 600 s), and each simulated second costs CPU."""
    out = tmp_path / "cleanup"
    code, _ = llm_run(str(short_cleanup(tmp_path / "cleanup.toml", 300)), out, "--seeds", "1")
    assert code == 0
    c = json.loads((out / "metrics.json").read_text())["conditions"]
    assert c["negotiate"]["welfare"]["mean"] > c["none"]["welfare"]["mean"]
    assert all(c[name]["gini"]["mean"] is not None for name in ("none", "negotiate"))
    (run,) = c["negotiate"]["runs"]
    assert run["contract"] and run["episodes"][0]["judge_disagreement"] is not None
    # programs that play until the episode ends are not program errors
    assert all(e["program_errors"] == 0 for r in c["none"]["runs"] + c["negotiate"]["runs"] for e in r["episodes"])


def test_the_second_episode_prompt_carries_the_first_judge_critique(llm_env, tmp_path: Path) -> None:
    out = tmp_path / "two"
    code, stub = llm_run("double_vein", out, "--seeds", "1", "--contract", "negotiate", "--episodes", "2")
    assert code == 0
    actions = [r.body for r in stub.chat_requests if r.body["messages"][0]["content"].endswith("You play as Gizmo.")]
    assert len(actions) == 2
    first, second = (a["messages"][-1]["content"] for a in actions)
    critique = "(stub) Gizmo is judged on the transfer clauses only."
    assert "Critique (judge): None." in first and "Your last program:\nNone yet." in first
    assert "What you observe:\nPosition: (5, 64, 9)" in first and "Time: 0 s elapsed of 300 s; 300 s left" in first
    assert f"Critique (judge): {critique}" in second and "async function playByContract(bot)" in second
    (seed,) = read_run(out / "events.jsonl").seeds
    assert [ep.episode for ep in seed.episodes] == [0, 1] and all(ep.finished for ep in seed.episodes)
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    starts = [e for e in events if e["kind"] == "episode_start"]
    assert starts[1]["data"]["handover"]["Gizmo"]["judge_critique"] == critique
    # the skill written in episode 0 is in the library and offered again in episode 1
    assert (out / "skills" / "negotiate" / "seed-0" / "Gizmo" / "playByContract.json").is_file()
    assert "// playByContract:" in actions[1]["messages"][0]["content"]


def test_llm_agents_without_an_endpoint_is_a_clear_error(llm_env, tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    out = tmp_path / "none"
    assert main(["run", "double_vein", "--agents", "llm", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "--agents llm needs an LLM endpoint" in err and "OPENAI_BASE_URL" in err and "blockpact llm check" in err
    assert "Traceback" not in err and not out.exists()


def test_seeds_are_separate_samples_and_a_rerun_comes_from_the_cache(llm_env, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    flags = ("--seeds", "2", "--contract", "negotiate")
    with OpenAIStub(responder=ProtocolResponder(load_world("double_vein")), api_key=KEY) as stub:
        assert run_against(stub, "double_vein", tmp_path / "a", *flags, cache=cache) == 0
        sent = len(stub.chat_requests)
        work = [r for r in stub.chat_requests if not is_check_request(r.body)]
        assert {r.body["seed"] for r in work} == {0, 1}  # the run's seed in every request
        assert run_against(stub, "double_vein", tmp_path / "b", *flags, cache=cache) == 0
        new = stub.chat_requests[sent:]
        assert len(new) == 1 and is_check_request(new[0].body)  # the re-run asked nothing but the pre-flight check
    metrics = [json.loads((tmp_path / d / "metrics.json").read_text())["conditions"] for d in ("a", "b")]
    assert metrics[0] == metrics[1]
    cached = read_transcript(tmp_path / "b" / "transcripts" / "llm.jsonl")
    assert cached and all(r["cached"] for r in cached)


def test_a_player_without_a_program_is_an_agent_error_and_the_unit_completes(llm_env, tmp_path: Path, capsys) -> None:
    """Glitch's model never writes code: what the agent did wrong is an outcome, counted per player and
    kind in metrics.json, the summary and the report; the seed completes and the run exits 0."""
    plays = ProtocolResponder(load_world("double_vein"))

    def responder(request: dict) -> Script:
        system = request["messages"][0]["content"]
        if system.endswith("You play as Glitch."):
            return "Explain: I would rather not.\nPlan:\n1) Wait.\nCode:\n(none)"
        return plays(request)

    out = tmp_path / "lazy"
    with OpenAIStub(responder=responder, api_key=KEY) as stub:
        assert run_against(stub, "double_vein", out, "--seeds", "1", "--contract", "negotiate") == 0
    (seed,) = read_run(out / "events.jsonl").seeds
    (episode,) = seed.episodes
    assert seed.status == "completed" and episode.finished
    glitch = next(p for p in episode.programs if p.player == "Glitch")
    assert glitch.code is None and glitch.error.startswith("no runnable program in 3 replies; last problem: ")
    metrics = json.loads((out / "metrics.json").read_text())["conditions"]["negotiate"]
    assert metrics["agent_errors"]["by_player"] == {"Glitch": {"no_program": 1}}
    first = metrics["agent_errors"]["first"]["no_program"]  # the player and "no program" said once each
    assert first.startswith("Glitch: no runnable program in 3 replies")
    assert first.count("Glitch") == 1 and first.count("program") == 1
    assert metrics["runs"][0]["episodes"][0]["program_errors"] == 1 and metrics["seeds_finished"] == 1
    summary = capsys.readouterr().out  # the errors column (rich may wrap it)
    assert "1 (Glitch:" in summary and "no_program 1)" in summary
    html = (out / "report.html").read_text()
    assert "Program error (Glitch): no runnable program in 3 replies" in html and "Glitch: no_program 1" in html


def test_a_judge_whose_endpoint_fails_fails_the_unit_with_cause_endpoint(llm_env, tmp_path: Path, capsys) -> None:
    """The judge's endpoint answers 500 every time: no answer after retries is not a judgment, so the
    seed is failed (cause endpoint) with no welfare, and the run exits 3 naming the cause."""
    plays = ProtocolResponder(load_world("double_vein"))

    def responder(request: dict) -> Script:
        if request["messages"][0]["content"].startswith("You are the judge"):
            return StubReply.server_error()
        return plays(request)

    config = tmp_path / "llm.toml"
    config.write_text("[retry]\nmax_retries = 0\n")
    out = tmp_path / "faulty"
    with OpenAIStub(responder=responder, api_key=KEY) as stub:
        code = run_against(stub, "double_vein", out, "--seeds", "1", "--contract", "negotiate", "--llm-config", str(config))
    assert code == 3
    err = capsys.readouterr().err
    assert "1 of 1 condition-seed units did not complete: 1 endpoint (LLMUnavailable" in err and "500" in err
    (seed,) = read_run(out / "events.jsonl").seeds
    assert seed.status == "failed" and seed.cause == "endpoint"
    metrics = json.loads((out / "metrics.json").read_text())
    negotiate = metrics["conditions"]["negotiate"]
    assert negotiate["runs"] == [] and negotiate["welfare"]["mean"] is None and negotiate["gini"]["mean"] is None
    assert negotiate["failures"]["endpoint"]["count"] == 1 and "500" in negotiate["failures"]["endpoint"]["first_message"]
    assert metrics["status"] == "complete" and metrics["all_completed"] is False
    html = (out / "report.html").read_text()
    assert "1 unit(s) failed, cause endpoint" in html and "Seed failed (cause endpoint)" in html
