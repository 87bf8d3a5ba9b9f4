"""Leaders, elections and recalls in metrics.json's `institution` section, from events.jsonl alone.

Per seed: every recall vote and election (each player's vote or ballot and the result), the leader in office in
each episode, and the leader's direction: the organization measures of `blockpact org run` (a leader's commands,
and whether the workers carried them out) read on a contract run, where what a leader commands is the clauses it
put in force (its proposals adopted at a meeting) and whether each other player followed them is the formal
judge's score of those clauses in the episodes it led. Per condition the same summed.
"""

from __future__ import annotations

from typing import Any

from blockpact.experiments.log.records import SeedRecord
from blockpact.judge.contract import split_clauses


def _events(seed: SeedRecord, rules: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]],
                                                               dict[int, str | None], dict[int, set[str]]]:
    recalls: list[dict[str, Any]] = []
    elections: list[dict[str, Any]] = []
    leader_for: dict[int, str | None] = {0: rules.get("leader")}
    proposals: dict[int, dict[str, Any]] = {}
    adopted_by: dict[int, set[str]] = {}  # for_episode -> clause texts the leader in office put in force then
    for kind, d in seed.meetings:
        if kind == "recall":
            recalls.append({"for_episode": d.get("for_episode"), "leader": d.get("leader"),
                            "breaches": list(d.get("breaches") or []), "votes": {}, "passed": False, "result": None})
        elif kind == "recall_vote" and recalls:
            recalls[-1]["votes"][d["player"]] = d["vote"]
        elif kind == "recall_result" and recalls:
            recalls[-1]["passed"] = bool(d.get("passed"))
            recalls[-1]["result"] = {k: d.get(k) for k in ("yes", "no", "abstain", "total", "needed", "vetoed_by")}
        elif kind == "election":
            elections.append({"for_episode": d.get("for_episode"), "why": d.get("why"), "incumbent": d.get("incumbent"),
                              "candidates": list(d.get("candidates") or []), "ballots": {}, "elected": None,
                              "votes": {}, "needed": None, "leader": None})
        elif kind == "ballot" and elections:
            elections[-1]["ballots"][d["player"]] = d.get("candidate")
        elif kind == "election_result" and elections:
            elections[-1].update({k: d.get(k) for k in ("elected", "votes", "needed", "leader", "re_elected")})
        elif kind == "meeting_start":
            proposals = {}
        elif kind == "proposal":
            proposals[d["proposal"]] = d
        elif kind == "vote_result" and d.get("passed") and d.get("proposal") in proposals:
            p = proposals[d["proposal"]]
            adopted_by.setdefault(int(d["for_episode"]), set()).update(
                f"{p['player']}\0{c}" for c in p.get("clauses") or [])
        elif kind == "meeting_end":
            leader_for[int(d["for_episode"])] = d.get("leader", rules.get("leader"))
    return recalls, elections, leader_for, adopted_by


def _direction(seed: SeedRecord, leaders: list[str | None], adopted_by: dict[int, set[str]]) -> dict[str, Any]:
    """Per leader: episodes led, the clauses it put in force (commands) and how each other player kept them."""
    out: dict[str, dict[str, Any]] = {}
    put: set[str] = set()  # "player\0clause" adopted so far in the seed
    for ep, leader in zip(seed.episodes, leaders, strict=False):
        put |= adopted_by.get(ep.episode, set())
        if leader is None:
            continue
        row = out.setdefault(leader, {"episodes_led": 0, "commands": 0, "followed": {}, "broken_by_leader": 0})
        row["episodes_led"] += 1
        texts = split_clauses(ep.contract) if ep.contract else []
        mine = [n for n, t in enumerate(texts, 1) if f"{leader}\0{t}" in put]
        row["commands"] += len(mine)
        formal = next((j for j in ep.judgments if j.source == "formal"), None)
        scores = {int(c.get("clause", 0)): c for c in (formal.clauses if formal else [])}
        for player in sorted(ep.rewards or {}):
            broken = [n for n in mine if player in (scores.get(n, {}).get("broken_by") or [])]
            if player == leader:
                row["broken_by_leader"] += len(broken)
                continue
            kept = row["followed"].setdefault(player, {"kept": 0, "of": 0})
            kept["kept"] += len(mine) - len(broken)
            kept["of"] += len(mine)
    for row in out.values():
        of = sum(f["of"] for f in row["followed"].values())
        row["followed_rate"] = round(sum(f["kept"] for f in row["followed"].values()) / of, 4) if of else None
    return out


def office_seed(seed: SeedRecord, rules: dict[str, Any]) -> dict[str, Any]:
    """A seed's recalls, elections, the leader of each episode and each leader's direction."""
    recalls, elections, leader_for, adopted_by = _events(seed, rules)
    leaders: list[str | None] = []
    current = leader_for.get(0)
    for ep in seed.episodes:
        current = leader_for.get(ep.episode, current)
        leaders.append(current)
    return {"recalls": recalls, "elections": elections,
            "leaders": [{"episode": ep.episode, "leader": leader} for ep, leader in zip(seed.episodes, leaders)],
            "direction": _direction(seed, leaders, adopted_by)}


def office_summary(seeds: list[dict[str, Any]]) -> dict[str, Any]:
    recalls = [r for s in seeds for r in s["office"]["recalls"]]
    elections = [e for s in seeds for e in s["office"]["elections"]]
    direction: dict[str, dict[str, Any]] = {}
    for s in seeds:
        for leader, row in s["office"]["direction"].items():
            total = direction.setdefault(leader, {"episodes_led": 0, "commands": 0, "kept": 0, "of": 0,
                                                  "broken_by_leader": 0})
            for key in ("episodes_led", "commands", "broken_by_leader"):
                total[key] += row[key]
            total["kept"] += sum(f["kept"] for f in row["followed"].values())
            total["of"] += sum(f["of"] for f in row["followed"].values())
    for row in direction.values():
        row["followed_rate"] = round(row["kept"] / row["of"], 4) if row["of"] else None
    return {"recalls": len(recalls), "recalls_passed": sum(r["passed"] for r in recalls), "elections": len(elections),
            "leaders_elected": sorted({e["elected"] for e in elections if e.get("elected")}), "direction": direction}
