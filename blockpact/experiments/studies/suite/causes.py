"""What a population failed at on a world, counted from its units' own records, so that a low score on the
leaderboard comes with its causes: LLM replies it could not read, programs that threw or timed out, LLM calls and
seeds that failed, negotiations with no proposal or no contract adopted, clauses left in free text or broken."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from blockpact.experiments.log.records import SeedRecord

# kind -> how the leaderboard names it, in the order it lists them (agent error kinds as metrics.json counts them)
LABELS = {
    "negotiation_format": "negotiation turns out of format",
    "no_program": "no runnable program",
    "program_error": "programs that threw",
    "program_timeout": "programs timed out",
    "critic_unusable": "critic verdicts unusable",
    "judgment_invalid": "judgments invalid",
    "no_proposal": "seeds without a proposal",
    "no_agreement": "seeds without a contract adopted",
    "free_text": "clauses in free text",
    "broken": "clauses broken",
}


def seed_causes(seeds: Iterable[SeedRecord]) -> dict[str, int]:
    """From the unit's seed records (a failed seed included): the LLM calls that failed, by the error's type, and
    the seeds that failed, by cause. The agents' errors and the agreement are counted by `unit_score`."""
    out: dict[str, int] = {}
    for s in seeds:
        for call in s.llm_calls:
            if call.get("error"):
                kind = f"llm_call_failed:{str(call['error']).split(':', 1)[0].strip() or 'error'}"
                out[kind] = out.get(kind, 0) + 1
        if s.status == "failed":
            out[f"seed_failed:{s.cause}"] = out.get(f"seed_failed:{s.cause}", 0) + 1
    return out


def agreement_causes(seed: SeedRecord, proposals: int, clauses: int, formal: int, broken: int) -> dict[str, int]:
    """A negotiating seed's shortfalls: no proposal, no contract adopted, free-text and broken clauses."""
    out = {}
    if seed.contract_source == "no_agreement":
        out["no_agreement"] = 1
        if proposals == 0:
            out["no_proposal"] = 1
    if clauses - formal:
        out["free_text"] = clauses - formal
    if broken:
        out["broken"] = broken
    return out


def add(into: dict[str, int], counts: Mapping[str, int]) -> dict[str, int]:
    for kind, n in counts.items():
        into[kind] = into.get(kind, 0) + n
    return into


def label(kind: str) -> str:
    if kind.startswith("llm_call_failed:"):
        return f"LLM calls failed ({kind.split(':', 1)[1]})"
    if kind.startswith("seed_failed:"):
        return f"seeds failed ({kind.split(':', 1)[1]})"
    return LABELS.get(kind, kind.replace("_", " "))


def failed_at(counts: Mapping[str, int]) -> str | None:
    """`programs that threw 3; seeds failed (endpoint) 1`: every cause counted, in a fixed order; None when none."""
    order = list(LABELS)

    def key(kind: str) -> tuple[int, str]:
        if kind.startswith("seed_failed:"):
            return (-2, kind)
        if kind.startswith("llm_call_failed:"):
            return (-1, kind)
        return (order.index(kind) if kind in order else len(order), kind)

    return "; ".join(f"{label(k)} {counts[k]}" for k in sorted(counts, key=key) if counts[k]) or None
