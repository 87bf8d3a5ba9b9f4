"""Typed records of a run, rebuilt from events.jsonl alone (metrics, plots and the report read these)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from blockpact.experiments.plan.run_plan import ConditionSpec
from blockpact.experiments.log.run_events import RunEvent, RunLogError, read_events
from blockpact.worlds.events import Event


@dataclass
class RunConfig:
    world: str
    world_path: str | None
    world_source: str | None
    backend: str
    agents: str  # "scripted" | "llm"
    conditions: list[ConditionSpec]
    seeds: list[int]
    episodes: int
    players: list[str]
    values: dict[str, dict[str, float]]  # player -> item -> emeralds
    versions: dict[str, Any]
    llm: dict[str, Any] | None = None  # LLM settings without the key (llm_record), None for scripted runs
    live: dict[str, Any] | None = None  # live server options, None on the simulator
    population: dict[str, str] | None = None  # scenario runs: who filled each player slot
    judge: dict[str, Any] | None = None  # scenario runs: {"llm": model or None, "apply_llm": bool}
    scenario: dict[str, Any] | None = None  # scenario runs: {"name", "path", "text"}
    world_warnings: list[str] = field(default_factory=list)  # `FILE:LINE: key: warning`, said before the run


@dataclass
class NegotiationTurnRecord:
    round: int
    player: str
    thinking: str
    message: str
    proposal: str | None
    accept: bool
    scripted: bool
    error: str | None  # why the turn counted as a pass (reply not in the format)
    reading: list[str] = field(default_factory=list)  # the proposal clause by clause, as every player saw it
    revisions: int = 0  # versions the proposer revised within its turn after seeing the reading


@dataclass
class ProgramRecord:
    player: str
    success: bool
    error: str | None
    error_line: int | None
    stack: str | None
    chat: list[str]
    duration: float | None
    timed_out: bool
    code: str | None
    source: str | None = None  # who wrote the program: "scripted" | "llm"
    explain: str = ""  # the action agent's explanation (a scripted player lists the clauses it cannot follow)
    stopped_by_episode_end: bool = False  # still running when the episode ended: not an error
    critic_source: str | None = None  # the critic's verdict came from: "execution" | "llm" | "scripted" | "error"

    @property
    def failed(self) -> bool:
        return not self.success and not self.stopped_by_episode_end

    @property
    def error_kind(self) -> str | None:
        """What the agent did wrong in this run (an outcome, not a failed unit), or None."""
        if self.code is None:
            return "no_program"
        if self.timed_out and not self.stopped_by_episode_end:
            return "program_timeout"
        if self.failed:
            return "program_error"
        return None


@dataclass
class CritiqueRecord:
    player: str
    source: str  # "critic" | "judge"
    text: str


@dataclass
class VerdictRecord:
    """The critic's verdict on one player's program (asked only when another episode follows)."""

    player: str
    success: bool
    critique: str
    reasoning: str
    source: str  # "execution" | "llm" | "scripted" | "human" | "error"


@dataclass
class JudgmentRecord:
    source: str  # "formal" | "llm"
    transfers: dict[str, float]
    critiques: dict[str, str]
    reasoning: str
    valid: bool = True
    error: str | None = None  # why an LLM judgment is invalid
    problems: list[str] = field(default_factory=list)  # why rejected LLM replies failed validation
    clauses: list[dict[str, Any]] = field(default_factory=list)  # the formal judge's score of each clause


@dataclass
class EpisodeRecord:
    episode: int
    world_seed: int | None = None
    contract: str | None = None  # the contract in force (an institution's meetings may amend it between episodes)
    events: list[Event] = field(default_factory=list)
    programs: list[ProgramRecord] = field(default_factory=list)
    critiques: list[CritiqueRecord] = field(default_factory=list)
    verdicts: list[VerdictRecord] = field(default_factory=list)
    reflections: dict[str, list[str]] = field(default_factory=dict)  # player -> the lessons it wrote
    judgments: list[JudgmentRecord] = field(default_factory=list)
    transfers: dict[str, float] = field(default_factory=dict)
    rewards: dict[str, float] | None = None  # after transfers; None while unfinished
    inventory_rewards: dict[str, float] | None = None
    sim_seconds: float | None = None

    @property
    def finished(self) -> bool:
        return self.rewards is not None


@dataclass
class SeedRecord:
    condition: str
    seed: int
    turns: list[NegotiationTurnRecord] = field(default_factory=list)
    contract: str | None = None
    contract_source: str | None = None  # "none" | "given" | "negotiated" | "no_agreement"
    accepted_round: int | None = None  # the round of the accept that adopted the negotiated contract
    proposed_by: str | None = None  # who proposed it (older logs: not recorded)
    accepted_by: list[str] = field(default_factory=list)  # who accepted it, in turn order (older logs: empty)
    seating: list[str] = field(default_factory=list)  # who negotiated, in speaking order (older logs: empty)
    episodes: list[EpisodeRecord] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    causes: list[str] = field(default_factory=list)  # the failure cause of each error (failures.CAUSES)
    finished: bool = False  # its seed_end is in the log (completed or failed)
    llm_calls: list[dict[str, Any]] = field(default_factory=list)  # `llm_call` events' data, in order
    end_status: str | None = None  # seed_end's status: "completed" | "failed" (older logs: "ok" | "error")
    meetings: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # institution events: (kind, data)

    @property
    def seated(self) -> list[str]:
        """Who negotiated, in speaking order: the recorded seating; for older logs, the order in which players
        first spoke (every seated player has spoken by the time a contract is adopted)."""
        return self.seating or list(dict.fromkeys(t.player for t in self.turns))

    @property
    def accepted_lap(self) -> int | None:
        """How many times around the table the adopting accept came (a round is one reply): 1 when it came
        before anybody spoke a second time (rounds 1..N with N seated), 2 in rounds N+1..2N, ..."""
        seated = len(self.seated)
        if self.accepted_round is None or seated == 0:
            return None
        return -(-self.accepted_round // seated)

    @property
    def status(self) -> str:
        """completed | failed | interrupted (started, never ended: the run stopped inside it)."""
        if not self.finished:
            return "interrupted"
        return "failed" if self.errors or self.end_status in ("failed", "error") else "completed"

    @property
    def completed(self) -> bool:
        return self.status == "completed"

    @property
    def cause(self) -> str | None:
        """The failure cause (of the first error), None unless failed."""
        if self.status != "failed":
            return None
        return self.causes[0] if self.causes else "internal"

    def episode(self, index: int) -> EpisodeRecord:
        for e in self.episodes:
            if e.episode == index:
                return e
        record = EpisodeRecord(index)
        self.episodes.append(record)
        return record

    @property
    def final(self) -> EpisodeRecord | None:
        """The last finished episode: the one a seed's outcome is measured on."""
        done = [e for e in self.episodes if e.finished]
        return done[-1] if done else None


@dataclass
class ResumeRecord:
    """One `blockpact resume` of the run: what it redid and what it threw away."""

    after_seq: int  # the last event kept from before the resume
    units: list[tuple[str, int]]  # (condition, seed) run by the resume, each from its start
    superseded: list[tuple[str, int]]  # of those, the ones with partial events before the resume (ignored)
    dropped_line: str | None  # a torn last line cut off the log
    llm_timeout_s: float | None = None  # `resume --llm-timeout`: each LLM call's bound from this resume on


@dataclass
class RunRecord:
    config: RunConfig
    seeds: list[SeedRecord]
    status: str  # "complete" | "interrupted" | "incomplete" (no run_end: killed or still running)
    warnings: list[str]
    started: float
    ended: float | None
    resumes: list[ResumeRecord] = field(default_factory=list)
    not_run: list[dict[str, Any]] = field(default_factory=list)  # units the run never started: condition, seed, reason

    def of_condition(self, name: str) -> list[SeedRecord]:
        return [s for s in self.seeds if s.condition == name]

    @property
    def scripted(self) -> bool:
        return self.config.agents == "scripted"


def _config(event: RunEvent) -> RunConfig:
    d = event.data
    return RunConfig(
        world=d["world"],
        world_path=d.get("world_path"),
        world_source=d.get("world_source"),
        backend=d["backend"],
        agents=d["agents"],
        conditions=[ConditionSpec(c["name"], c["contract_mode"], c.get("contract_text")) for c in d["conditions"]],
        seeds=list(d["seeds"]),
        episodes=int(d["episodes"]),
        players=list(d["players"]),
        values={p: {k: float(v) for k, v in vs.items()} for p, vs in d["values"].items()},
        versions=dict(d.get("versions", {})),
        llm=d.get("llm"),
        live=d.get("live"),
        population=d.get("population"),
        judge=d.get("judge"),
        scenario=d.get("scenario"),
        world_warnings=[str(w) for w in d.get("world_warnings") or []],
    )


def _units(items: Any) -> list[tuple[str, int]]:
    return [(u["condition"], int(u["seed"])) for u in items]


class _Builder:
    def __init__(self, config: RunConfig, started: float) -> None:
        self.config = config
        self.started = started
        self.seeds: dict[tuple[str, int], SeedRecord] = {}
        self.status = "incomplete"
        self.ended: float | None = None
        self.unknown: set[str] = set()
        self.resumes: list[ResumeRecord] = []
        self.not_run: dict[tuple[str | None, int | None], str] = {}

    def seed(self, e: RunEvent) -> SeedRecord:
        if e.coords.condition is None or e.coords.seed is None:
            raise RunLogError(f"events.jsonl: seq {e.seq}: {e.kind} event without condition and seed")
        key = (e.coords.condition, e.coords.seed)
        if key not in self.seeds:
            self.seeds[key] = SeedRecord(*key)
        return self.seeds[key]

    def episode(self, e: RunEvent) -> EpisodeRecord:
        if e.coords.episode is None:
            raise RunLogError(f"events.jsonl: seq {e.seq}: {e.kind} event without an episode")
        return self.seed(e).episode(e.coords.episode)

    def add(self, e: RunEvent) -> None:
        d = e.data
        match e.kind:
            case "seed_start":
                self.seed(e)
            case "negotiation_turn":
                self.seed(e).turns.append(NegotiationTurnRecord(
                    int(d["round"]), d["player"], d.get("thinking") or "", d.get("message") or "",
                    d.get("proposal"), bool(d.get("accept")), bool(d.get("scripted")), d.get("error"),
                    list(d.get("reading") or []), len(d.get("revisions") or [])))
            case "contract":
                s = self.seed(e)
                s.contract, s.contract_source, s.accepted_round = d.get("text"), d.get("source"), d.get("accepted_round")
                s.proposed_by, s.accepted_by = d.get("proposed_by"), list(d.get("accepted_by") or [])
                s.seating = list(d.get("seating") or [])
            case "episode_start":
                self.episode(e).world_seed, self.episode(e).contract = d.get("world_seed"), d.get("contract")
            case ("meeting_start" | "meeting_turn" | "proposal" | "vote" | "vote_result" | "meeting_end" | "recall"
                  | "recall_vote" | "recall_result" | "election" | "ballot" | "election_result"):
                self.seed(e).meetings.append((e.kind, dict(d)))
            case "world":
                w = d["event"]
                self.episode(e).events.append(Event(float(w["time"]), w.get("agent"), w["kind"], dict(w.get("data", {}))))
            case "program_result":
                self.episode(e).programs.append(ProgramRecord(
                    d["player"], bool(d["success"]), d.get("error"), d.get("error_line"), d.get("stack"),
                    list(d.get("chat", [])), d.get("duration"), bool(d.get("timed_out")), d.get("code"),
                    d.get("source"), d.get("explain") or "", bool(d.get("stopped_by_episode_end")),
                    (d.get("critic") or {}).get("source")))  # logs written before the verdict event
            case "verdict":
                episode = self.episode(e)
                episode.verdicts.append(VerdictRecord(d["player"], bool(d["success"]), d.get("critique") or "",
                                                      d.get("reasoning") or "", d.get("source") or ""))
                for program in episode.programs:
                    if program.player == d["player"]:
                        program.critic_source = d.get("source")
            case "reflection":
                self.episode(e).reflections[d["player"]] = list(d.get("lessons") or [])
            case "critique":
                self.episode(e).critiques.append(CritiqueRecord(d["player"], d["source"], d["text"]))
            case "judgment":
                self.episode(e).judgments.append(JudgmentRecord(
                    d["source"], {p: float(v) for p, v in d.get("transfers", {}).items()}, dict(d.get("critiques", {})),
                    d.get("reasoning") or "", bool(d.get("valid", True)), d.get("error"), list(d.get("problems", [])),
                    list(d.get("clauses", []))))
            case "transfers":
                self.episode(e).transfers = {p: float(v) for p, v in d["transfers"].items()}
            case "episode_end":
                ep = self.episode(e)
                ep.rewards = {p: float(v) for p, v in d["rewards"].items()}
                ep.inventory_rewards = {p: float(v) for p, v in d.get("inventory_rewards", d["rewards"]).items()}
                ep.transfers = {p: float(v) for p, v in d.get("transfers", ep.transfers).items()}
                ep.sim_seconds = d.get("sim_seconds")
            case "seed_error":
                s = self.seed(e)
                s.errors.append(d["error"])
                s.causes.append(d.get("cause") or "internal")
            case "llm_call":
                self.seed(e).llm_calls.append({**d, "episode": e.coords.episode})
            case "unit_not_run":  # never started: no seed record (it has no status), listed on the run
                self.not_run[(e.coords.condition, e.coords.seed)] = d.get("reason") or "not run"
            case "seed_end":
                s = self.seed(e)
                s.finished, s.end_status = True, d.get("status")
            case "run_end":
                self.status, self.ended = d.get("status", "complete"), e.wall
            case "run_resumed":
                self.resumed(e)
            case "run_start":
                raise RunLogError(f"events.jsonl: seq {e.seq}: a second run_start (two runs in one log)")
            case _:
                self.unknown.add(e.kind)

    def resumed(self, e: RunEvent) -> None:
        """A resume redoes its units from their start: their partial events so far no longer count."""
        d = e.data
        resume = ResumeRecord(int(d["after_seq"]), _units(d["units"]), _units(d["superseded"]),
                              (d.get("dropped_line") or {}).get("text"),
                              float(d["llm_timeout_s"]) if d.get("llm_timeout_s") is not None else None)
        for key in resume.superseded:
            self.seeds.pop(key, None)
        for key in resume.units:
            self.not_run.pop(key, None)
        self.resumes.append(resume)
        self.status, self.ended = "incomplete", None


def build_run(events: list[RunEvent], warnings: list[str] | None = None) -> RunRecord:
    if not events or events[0].kind != "run_start":
        raise RunLogError("events.jsonl: the first event is not run_start")
    builder = _Builder(_config(events[0]), events[0].wall)
    for event in events[1:]:
        builder.add(event)
    notes = list(warnings or [])
    if builder.unknown:
        notes.append(f"events of unknown kinds were ignored: {', '.join(sorted(builder.unknown))}")
    if builder.status == "incomplete":
        notes.append("the log has no run_end event: the run was stopped abruptly or is still running")
    order = {c.name: i for i, c in enumerate(builder.config.conditions)}
    seeds = sorted(builder.seeds.values(), key=lambda s: (order.get(s.condition, len(order)), s.condition, s.seed))
    for s in seeds:
        s.episodes.sort(key=lambda ep: ep.episode)
    not_run = [{"condition": c, "seed": s, "reason": r} for (c, s), r in builder.not_run.items()]
    return RunRecord(builder.config, seeds, builder.status, notes, builder.started, builder.ended, builder.resumes,
                     not_run)


def read_run(events_path: Path) -> RunRecord:
    read = read_events(events_path)
    return build_run(read.events, read.warnings)
