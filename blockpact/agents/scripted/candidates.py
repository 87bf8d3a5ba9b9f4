"""The contracts the scripted negotiator's search tries, built from what the world file says, for any number of players.

Each candidate holds the clauses that change what players do; the search adds the settlement (equal shares, or
transfers that leave nobody below its outside option) after playing it. The families:
- division of labour: each valued block to the player expecting most from it, with the tools that takes: a free
  chest tool is taken, a tool in another player's chest or inventory is lent (deposited, then turn-taking clauses
  hand it down a chain of borrowers and back to its owner, whose own turn, when it needs the tool, is the last);
- making a tool nobody has: the recipe tree (every level, a table or furnace placed) is planned on what all players
  and free chests hold together; the others deposit what the crafter lacks, the crafter crafts and mines the block;
- cleaning what the world's rules need kept low: 0, 1 or 2 cleaners;
- quotas for renewed resources, what regrows in one period: each player's share, one total for all players (split
  by the players without rounding every share down), or one total per group of the world; each also until the last
  period only, when all but what keeps the resource alive may be taken (GovSim's optimum, short of the collapse);
- gifts: an item to the player who values it most.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections import Counter
from dataclasses import dataclass

from blockpact.agents.scripted.world_facts import WorldFacts
from blockpact.judge.clauses import (
    Assignment, Clause, Craft, Deposit, ForEach, Give, Quota, TotalQuota, TurnTaking, Window,
)
from blockpact.worlds.spec.schema import GrowRule, RegrowRule, Vec, WorldSpec


QUOTA_PERIOD = 60.0  # seconds, for regrow rules (a grow rule's own period is used for it)
REGROW_FRACTION = 0.5  # of a regrowing stock, per QUOTA_PERIOD, over all players
MAX_CANDIDATES = 64  # the simplest first when the families multiply past it


@dataclass(frozen=True)
class Candidate:
    name: str  # what it tries, for the negotiator's message and the report
    clauses: tuple[Clause, ...]


Option = tuple[str, list[Clause]]


def _free_chest(spec: WorldSpec, player: str, pos: Vec) -> bool:
    return spec.chests[pos].owner in (None, "shared", player)


def _values(facts: WorldFacts, players: list[str]) -> dict[str, dict[str, float]]:
    return {p: facts.block_values(p) for p in players}


def _assigned(facts: WorldFacts, players: list[str]) -> dict[str, list[str]]:
    values = _values(facts, players)
    out: dict[str, list[str]] = {p: [] for p in players}
    for block in sorted(facts.block_counts | Counter(facts.renewing_blocks)):
        if any(values[p].get(block, 0) > 0 for p in players):
            out[max(players, key=lambda p: (values[p].get(block, 0), -players.index(p)))].append(block)
    return out


def _chest_for(spec: WorldSpec, player: str) -> Vec | None:
    """The chest a player lends into: its own, else one nobody owns, else a shared one."""
    ranked = sorted(spec.chests, key=lambda pos: ({player: 0, None: 1, "shared": 2}.get(spec.chests[pos].owner, 3), pos))
    return ranked[0] if ranked and spec.chests[ranked[0]].owner in (player, None, "shared") else None


def _lend(spec: WorldSpec, tool: str, borrowers: list[str], owner: str, chest: Vec | None) -> list[Clause]:
    """A chain of turns: each borrower takes the tool, uses it, returns it and signals the next; the last the owner."""
    clauses: list[Clause] = []
    if chest is not None and spec.players[owner].inventory.get(tool):
        clauses.append(Deposit(owner, tool, 1, spec.chests[chest].name))
    chain = [*borrowers, owner]
    clauses += [TurnTaking(a, tool, b, True) for a, b in zip(chain, chain[1:])]
    return clauses


def _tool_clauses(spec: WorldSpec, facts: WorldFacts, assigned: dict[str, list[str]]) -> list[Clause] | None:
    """Takes and lending chains that give each player a tool for its assigned blocks (None: some cannot have one)."""
    players = sorted(spec.players)
    taken: dict[str, list[str]] = {}  # a tool of a free chest -> who use it, in turn (the first takes it first)
    clauses: list[Clause] = []
    borrowers: dict[tuple[str, str], list[str]] = {}  # (tool, owner) -> players in turn
    for p in players:
        needing = [b for b in assigned[p] if facts.needs_tool(b)]
        if not needing or all(any(facts.harvests(t, b) for t in spec.players[p].inventory) for b in needing):
            continue
        options = [o for o in facts.tool_options(needing, prefer_weakest=True) if _free_chest(spec, p, o.chest)
                   and all(facts.harvests(o.item, b) for b in needing)]
        free = [o for o in options if o.item not in taken]
        if free:
            taken[free[0].item] = [p]
            continue
        if options:  # every tool that would do is another's: it is passed on in turn (a relay)
            taken[options[0].item].append(p)
            continue
        owned = [(o.item, spec.chests[o.chest].owner) for o in facts.tool_options(needing, prefer_weakest=True)
                 if not _free_chest(spec, p, o.chest)]
        held = [(t, q) for q in players if q != p for t in sorted(spec.players[q].inventory)
                if t in facts.tools() and all(facts.harvests(t, b) for b in needing)]
        lenders = [x for x in owned + held if all(facts.harvests(x[0], b) for b in needing)]
        if not lenders:
            return None
        borrowers.setdefault(lenders[0], []).append(p)  # type: ignore[arg-type]
    lent_back = {(tool, owner) for tool, owner in borrowers}
    for tool, users in sorted(taken.items()):
        if len(users) == 1 and (tool, users[0]) in lent_back:
            continue  # the owner's turn is the chain's last; "the owner takes the tool" would read as only the owner may
        if len(users) == 1:
            clauses.append(Assignment(users[0], "take", tool))
        else:
            clauses += [TurnTaking(a, tool, b, True) for a, b in zip(users, users[1:])]
    for (tool, owner), chain in sorted(borrowers.items()):
        in_chest = facts.chest_with(tool)
        chest = in_chest or _chest_for(spec, owner)
        if chest is None:
            return None
        clauses += _lend(spec, tool, chain, owner, None if in_chest else chest)
    return clauses


def _division(spec: WorldSpec, facts: WorldFacts, players: list[str]) -> list[Option]:
    values = _values(facts, players)
    blocks = sorted({b for p in players for b in values[p]})
    if all(len({values[p].get(b, 0) for p in players}) == 1 for b in blocks):
        return []  # every player values every block alike: an assignment only idles players
    assigned = _assigned(facts, players)
    tools = _tool_clauses(spec, facts, assigned)
    if tools is None:
        return []
    clauses: list[Clause] = [Assignment(p, "mine", b) for p in players for b in assigned[p]]
    lent = any(isinstance(c, TurnTaking) for c in tools)
    return [("each block to whoever values it most" + (", the tool lent in turn" if lent else ""), clauses + tools)]


def _making(spec: WorldSpec, facts: WorldFacts, players: list[str]) -> list[Option]:
    """For each valued block only a tool nobody has harvests: the pooled materials and the crafter."""
    have_tools = {t for p in players for t in spec.players[p].inventory} | {t.item for t in facts.chest_tools()}
    valued = sorted({b for p in players for b in facts.block_values(p)})
    pooled: Counter[str] = Counter()
    holders: dict[str, Counter[str]] = {p: Counter(spec.players[p].inventory) for p in players}
    for p in players:
        pooled.update(spec.players[p].inventory)
    free_chest_items = Counter()
    for pos, chest in sorted(spec.chests.items()):
        if chest.owner in (None, "shared"):
            free_chest_items.update(chest.items)
    pooled.update(free_chest_items)
    out: list[Option] = []
    for block in valued:
        if not facts.needs_tool(block) or any(facts.harvests(t, block) for t in have_tools):
            continue
        tools = sorted((t for t in facts.tools() if facts.harvests(t, block)), key=lambda t: (facts.capability(t), t))
        for tool in tools:
            plan = facts.planner.plan(tool, 1, pooled, table=facts.on_map("crafting_table"), furnace=facts.on_map("furnace"))
            if plan is None:
                continue
            used = Counter(plan.used)
            crafter = max(players, key=lambda p: (sum(min(holders[p][i], n) for i, n in used.items()), -players.index(p)))
            chest = _chest_for(spec, crafter)
            need = Counter({i: n - min(holders[crafter][i], n) - min(free_chest_items[i], n) for i, n in used.items()})
            if +need and chest is None:
                continue  # no chest to pool into
            clauses: list[Clause] = []
            for giver in players:
                if giver == crafter:
                    continue
                for item in sorted(+need):
                    give = min(holders[giver][item], need[item])
                    if give > 0:
                        need[item] -= give
                        clauses.append(Deposit(giver, item, give, spec.chests[chest].name))  # type: ignore[index]
            clauses += [Craft(crafter, tool, 1), Assignment(crafter, "mine", block)]
            steps = len(plan.steps)
            article = "an" if tool[0] in "aeiou" else "a"
            out.append((f"pooled materials for {crafter} to make {article} {tool} ({steps} step{'s' if steps != 1 else ''}) and mine {block}",
                         clauses))
            have_tools.add(tool)
            break
    return [("", [])] + ([("; ".join(n for n, _ in out), [c for _, cs in out for c in cs])] if out else [])


def _sustainable(spec: WorldSpec, facts: WorldFacts, valued: set[str]) -> list[tuple[str, int, float]]:
    """(block, most blocks all players may take per period without shrinking the stock, period) per renewed resource."""
    out = []
    for rule in spec.rules:
        if rule.block not in valued:
            continue
        stock = facts.block_counts.get(rule.block, 0)
        if isinstance(rule, GrowRule) and rule.factor > 1:
            cap = rule.cap if rule.cap is not None else stock
            out.append((rule.block, cap - math.ceil(cap / rule.factor), rule.every))
        elif isinstance(rule, RegrowRule):
            out.append((rule.block, int(stock * REGROW_FRACTION), QUOTA_PERIOD))
    return out


def _quota_options(spec: WorldSpec, facts: WorldFacts, players: list[str]) -> list[Option]:
    valued = {b for p in players for b in facts.block_values(p)}
    takes = [t for t in _sustainable(spec, facts, valued) if t[1] > 0]
    if not takes:
        return [("", [])]
    n = len(players)
    each = [(b, take // n, period) for b, take, period in takes if take // n > 0]
    options: list[Option] = [("no quota", [])]
    if each:
        options.append((", ".join(f"at most {q} {b} each every {p:g} s" for b, q, p in each),
                        [ForEach("each player", tuple(Quota(x, "mine", b, q, "at_most", p) for x in players)) for b, q, p in each]))
    if any(take % n for _, take, _ in takes):
        options.append((", ".join(f"all players together at most {t} {b} every {p:g} s" for b, t, p in takes),
                        [TotalQuota(tuple(players), "mine", b, t, "at_most", p) for b, t, p in takes]))
    groups = [g for g in spec.groups if len(g.members) > 1]
    if groups and sum(len(g.members) for g in groups) == n:
        clauses: list[Clause] = []
        for b, take, period in takes:
            shares = [take * len(g.members) // n for g in groups]
            for i in range(take - sum(shares)):
                shares[i % len(groups)] += 1
            clauses += [TotalQuota(tuple(sorted(g.members)), "mine", b, s, "at_most", period) for g, s in zip(groups, shares) if s > 0]
        options.append(("a total per group: " + ", ".join(g.name for g in groups), clauses))
    # GovSim's optimum: what regrows each period, and in the last one (nothing grows after it) all that is left but
    # what keeps the resource from collapsing (the survival measures count a collapse in the last seconds too)
    last = [_last_period(spec, players, rule) for rule in spec.rules if rule.block in {b for b, _, _ in takes}]
    if all(c is not None for c in last) and last:
        options += [(f"{name}, the rest in the last period", [*(_until_last(spec, c) for c in clauses), *last])  # type: ignore[misc]
                    for name, clauses in options[1:]]
    return options


def _last_period(spec: WorldSpec, players: list[str], rule: object) -> Clause | None:
    """All players together, in the last period of a grow rule, take its capacity less what keeps it alive."""
    if not isinstance(rule, GrowRule) or rule.cap is None:
        return None
    own = [c for c in rule.when if c.block == rule.block and c.region == rule.region and c.op in (">=", ">")]
    alive = max([c.count + (c.op == ">") for c in own] + [1])  # below this it collapses (a grow rule at 0)
    start = rule.every * (math.ceil(spec.episode_seconds / rule.every - 1e-9) - 1)
    if start <= 0 or rule.cap <= alive:
        return None
    return TotalQuota(tuple(players), "mine", rule.block, rule.cap - alive, "at_most", rule.every, window=Window(start, None))


def _until_last(spec: WorldSpec, clause: Clause) -> Clause:
    """`clause` in force until its last period starts (the contract language's time windows)."""
    if isinstance(clause, ForEach):
        return ForEach(clause.quantifier, tuple(_until_last(spec, p) for p in clause.parts))  # type: ignore[misc]
    period = getattr(clause, "period", None) or spec.episode_seconds
    last = period * (math.ceil(spec.episode_seconds / period - 1e-9) - 1)
    return dataclasses.replace(clause, window=Window(0.0, last)) if last > 0 else clause  # type: ignore[type-var]


def _cleaning_options(players: list[str], kept_low: list[str]) -> list[Option]:
    if not kept_low:
        return [("", [])]
    out = []
    for k in range(min(2, len(players) - 1) + 1):
        cleaners = players[len(players) - k:]
        out.append((f"{k} cleaner{'s' if k != 1 else ''}" + (f" ({', '.join(cleaners)})" if k else ""),
                    [Assignment(c, "mine", b) for c in cleaners for b in kept_low]))
    return out


def _gifts(spec: WorldSpec, players: list[str]) -> list[Option]:
    items = sorted({i for p in players for i in spec.players[p].values})
    clauses: list[Clause] = []
    for item in items:
        values = {p: spec.value(p, item) for p in players}
        if len(set(values.values())) < 2:
            continue
        best = max(players, key=lambda p: (values[p], -players.index(p)))
        clauses += [Give(p, best, item, None) for p in players if p != best]
    return [("", [])] + ([("gifts to whoever values most", clauses)] if clauses else [])


def _merge(parts: list[list[Clause]]) -> tuple[Clause, ...]:
    """The clauses of several families; a later family's assignment of a block replaces an earlier one's."""
    out: list[Clause] = []
    for clauses in parts:
        targets = {(c.verb, c.target) for c in clauses if isinstance(c, Assignment)}
        out = [c for c in out if not (isinstance(c, Assignment) and (c.verb, c.target) in targets)]
        out += [c for c in clauses if c not in out]
    return tuple(out)


def candidates(spec: WorldSpec) -> list[Candidate]:
    from blockpact.agents.negotiation_plan import kept_low_blocks

    facts = WorldFacts(spec)
    players = sorted(spec.players)
    families = [
        [("", [])] + _division(spec, facts, players),
        _cleaning_options(players, kept_low_blocks(spec)),
        _quota_options(spec, facts, players),
        _making(spec, facts, players),
        _gifts(spec, players),
    ]
    out: list[Candidate] = []
    for combo in itertools.product(*families):
        name = "; ".join(n for n, _ in combo if n) or "no clause but the settlement"
        out.append(Candidate(name, _merge([c for _, c in combo])))
    out.sort(key=lambda c: len(c.clauses))  # simplest first: the search keeps the first of equally good candidates
    return out[:MAX_CANDIDATES]
