"""The `institution` section of metrics.json, from events.jsonl alone: the rules of the meetings, the contract in
force in each episode, every proposal with each player's vote and the result, and per condition how many
proposals were made and adopted and how each player voted; with elections, the recalls, elections, leaders and their
direction (experiments/outputs/office_metrics.py). None for a run without an institution."""

from __future__ import annotations

from typing import Any

from blockpact.experiments.outputs.office_metrics import office_seed, office_summary
from blockpact.experiments.log.records import RunRecord, SeedRecord


def _meetings(seed: SeedRecord) -> list[dict[str, Any]]:
    meetings: list[dict[str, Any]] = []
    proposals: dict[int, dict[str, Any]] = {}
    for kind, d in seed.meetings:
        if kind == "meeting_start":
            proposals = {}
            meetings.append({"after_episode": d.get("after_episode"), "for_episode": d.get("for_episode"),
                             "contract_before": d.get("contract"), "proposals": [], "adopted": [], "contract": None,
                             "last_episode": d.get("last_episode"), "failures": []})
        elif not meetings:
            continue  # a fragment without its start (a torn log): nothing to attach it to
        elif kind == "meeting_turn" and d.get("error"):  # an LLM member's turn out of format: no proposal, abstained
            meetings[-1]["failures"].append({"player": d["player"], "error": d["error"], "raw": d.get("raw")})
        elif kind == "proposal":
            entry = {"proposal": d["proposal"], "player": d["player"], "text": d.get("text"),
                     "reason": d.get("reason"), "scripted": bool(d.get("scripted")), "in_order": bool(d.get("in_order")),
                     "problem": d.get("problem"), "votes": {}, "passed": False, "result": None}
            proposals[d["proposal"]] = entry
            meetings[-1]["proposals"].append(entry)
        elif kind == "vote" and d.get("proposal") in proposals:
            proposals[d["proposal"]]["votes"][d["player"]] = d["vote"]
        elif kind == "vote_result" and d.get("proposal") in proposals:
            entry = proposals[d["proposal"]]
            entry["passed"] = bool(d.get("passed"))
            entry["result"] = {k: d.get(k) for k in ("yes", "no", "abstain", "total", "needed", "vetoed_by")}
        elif kind == "meeting_end":
            meetings[-1].update(adopted=list(d.get("adopted") or []), contract=d.get("contract"))
    return meetings


def _seed(seed: SeedRecord, rules: dict[str, Any]) -> dict[str, Any]:
    meetings = _meetings(seed)
    adopted_for = {m["for_episode"]: m["adopted"] for m in meetings}
    episodes = [{"episode": ep.episode, "contract": ep.contract, "amended": bool(adopted_for.get(ep.episode))}
                for ep in seed.episodes]
    office = {"office": office_seed(seed, rules)} if rules.get("elect") else {}
    return {"seed": seed.seed, "status": seed.status, "rules_in_force": episodes, "meetings": meetings, **office}


def _summary(seeds: list[dict[str, Any]]) -> dict[str, Any]:
    proposals = [p for s in seeds for m in s["meetings"] for p in m["proposals"]]
    by_player: dict[str, dict[str, int]] = {}
    for p in proposals:
        for player, vote in p["votes"].items():
            counts = by_player.setdefault(player, {"yes": 0, "no": 0, "abstain": 0})
            counts[vote] = counts.get(vote, 0) + 1
    return {"meetings": sum(len(s["meetings"]) for s in seeds), "proposals": len(proposals),
            "voted": sum(p["result"] is not None for p in proposals), "adopted": sum(p["passed"] for p in proposals),
            "out_of_order": sum(not p["in_order"] for p in proposals), "votes_by_player": by_player,
            "member_failures": sum(len(m["failures"]) for s in seeds for m in s["meetings"]),
            "seeds_amended": sum(any(m["adopted"] for m in s["meetings"]) for s in seeds),
            **({"office": office_summary(seeds)} if seeds and all("office" in s for s in seeds) else {})}


def institution_section(run: RunRecord) -> dict[str, Any] | None:
    rules = (run.config.scenario or {}).get("institution") or next(  # else a world's own, as its meetings said
        (d.get("rules") for s in run.seeds for kind, d in s.meetings if kind == "meeting_start"), None)
    if not rules:
        return None
    conditions = {}
    for condition in run.config.conditions:
        seeds = [_seed(s, rules) for s in run.of_condition(condition.name)]
        conditions[condition.name] = {**_summary(seeds), "seeds": seeds}
    return {"rules": rules, "scripted": all(str(k).startswith("scripted") for k in (run.config.population or {}).values()),
            "conditions": conditions}
