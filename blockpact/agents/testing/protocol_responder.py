"""A responder for `OpenAIStub` that plays every blockpact role, so a whole `blockpact run --agents llm`
runs offline over real HTTP through the real openai client, prompts and parsers.

It tells the roles apart by their system prompts (the template files' opening words) and answers
in each role's protocol, deterministically, with the scripted players' logic behind it:

- negotiator: proposes the world's social-optimum contract, accepts a proposal from the round before;
- action: Explain / Plan / Code with the JavaScript of the scripted greedy player (no contract) or
  cooperative player (the contract in the prompt);
- critic: JSON verdict (success when the inventory after the program holds something);
- skill: a one-line description;
- reflection: two lessons, one naming the reward the episode's outcome gave the player;
- member (a meeting of an institution): with no quota in force and no proposal open, proposes the same quota for
  each player on the first renewable block, the share of its regrowth (cap less cap / factor) per period; votes
  yes on every open proposal; votes to recall a leader (the question is put when the judge found it in breach) and
  elects the candidate with the fewest clauses broken, then the most emeralds, then the first listed;
- judge: JSON transfers computed from the case (fixed, proportional and per-unit clauses), after a
  first answer whose transfers do not add up to zero, so the judge's validation and retry run too.

Anything else gets the stub's echo. Every reply says it comes from the stub.
"""

from __future__ import annotations

import json
import re
from typing import Any

from blockpact.agents.negotiation_plan import social_optimum_clauses
from blockpact.agents.scripted import ScriptedCooperativeAgent, ScriptedGreedyAgent
from blockpact.agents.testing.stub_replies import Script, echo_last_user_message
from blockpact.judge.clauses import FixedTransfer, PerUnitTransfer, ProportionalTransfer
from blockpact.judge.contract import parse_contract, render_contract
from blockpact.worlds.spec.schema import GrowRule, WorldSpec

_NEGOTIATOR = re.compile(r"^You are (\w+), a player in a Minecraft scenario")
_ACTION = re.compile(r"^You are a player in a Minecraft world\. You act by writing JavaScript.*^You play as (\w+)\.$",
                     re.DOTALL | re.MULTILINE)
_CRITIC = "You assess the progress of a player"
_SKILL = "You describe JavaScript programs"
_JUDGE = "You are the judge of a contract"
_REFLECTION = "You play a Minecraft scenario several times in a row"
_MEMBER = re.compile(r"^You are (\w+), a member of the meeting")


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    return content if isinstance(content, str) else ""


def _section(text: str, title: str, next_title: str) -> str:
    match = re.search(rf"^{re.escape(title)}\n(.*?)\n\n{re.escape(next_title)}", text, re.DOTALL | re.MULTILINE)
    return match.group(1) if match else ""


def _player_lines(block: str) -> dict[str, str]:
    """`- Gizmo: 12 raw_iron, 1 stone_pickaxe` lines as {player: rest}."""
    return {m.group(1): m.group(2) for m in re.finditer(r"^- (\w+): (.*)$", block, re.MULTILINE)}


def _counts(text: str) -> dict[str, int]:
    return {item: int(n) for n, item in re.findall(r"(\d+) (\w+)", text)}


def _values(text: str) -> dict[str, float]:
    return {item: float(v) for item, v in re.findall(r"(\w+) (-?\d+(?:\.\d+)?)", text)}


class ProtocolResponder:
    """`OpenAIStub(responder=ProtocolResponder(spec))`."""

    def __init__(self, spec: WorldSpec) -> None:
        self.spec = spec
        self.players = sorted(spec.players)
        self.contract = render_contract(social_optimum_clauses(spec), world=spec.name)

    def __call__(self, request: dict[str, Any]) -> Script:
        messages = request.get("messages", [])
        system = _text(messages[0]) if messages and messages[0].get("role") == "system" else ""
        users = [_text(m) for m in messages if m.get("role") == "user"]
        answered = any(m.get("role") == "assistant" for m in messages)
        if match := _NEGOTIATOR.match(system):
            return self.negotiate(match.group(1), users[-1])
        if match := _ACTION.match(system):
            return self.act(match.group(1), users[0])
        if system.startswith(_CRITIC):
            return self.criticise(users[-1])
        if system.startswith(_SKILL):
            name = re.search(r"The main function is `(\w+)`", users[-1])
            return f"(stub) Plays the scenario as {name.group(1) if name else 'the program'} does."
        if system.startswith(_REFLECTION):
            return self.reflect(users[0])
        if match := _MEMBER.match(system):
            return self.meet(match.group(1), users[0])
        if system.startswith(_JUDGE):
            return self.judge(users[0], first_attempt=not answered)
        return echo_last_user_message(request)

    def negotiate(self, player: str, turn: str) -> str:
        if "You may [accept]" in turn:
            return "[thinking] (stub) The proposal is the split I would make.\n[message] (stub) Agreed.\n[accept]"
        return (f"[thinking] (stub) {player} proposes the split that maximises welfare.\n"
                f"[message] (stub) Let us split the work this way.\n[contract]\n{self.contract}\n[contract end]")

    def act(self, player: str, prompt: str) -> str:
        match = re.search(r"^Contract: (.*?)\n\nYour inventory:", prompt, re.DOTALL | re.MULTILINE)
        contract = match.group(1).strip() if match else "No contract."
        if contract == "No contract.":
            proposal = ScriptedGreedyAgent(player, self.spec).proposal()
        else:
            parsed = parse_contract(contract, self.players, spec=self.spec)
            proposal = ScriptedCooperativeAgent(player, self.spec, parsed).proposal()
        return f"Explain: (stub) {proposal.explain}\nPlan:\n{proposal.plan}\nCode:\n```javascript\n{proposal.code}\n```"

    def criticise(self, prompt: str) -> str:
        match = re.search(r"^Inventory: (.*)$", prompt, re.MULTILINE)
        holds = bool(match) and match.group(1).strip() != "empty"
        verdict = {
            "reasoning": "(stub) The inventory after the program " + ("holds items." if holds else "is empty."),
            "success": holds,
            "critique": "" if holds else "(stub) Collect something worth emeralds to you.",
        }
        return json.dumps(verdict)

    def reflect(self, prompt: str) -> str:
        player = re.search(r"^You are (\w+)\.", prompt, re.MULTILINE)
        reward = re.search(r"your reward: ([-\d.]+)", prompt, re.IGNORECASE)
        name = player.group(1) if player else "I"
        return (f"- (stub) {name} ended the episode with a reward of {reward.group(1) if reward else 'unknown'}.\n"
                "- (stub) Keep every clause of the contract that names me.")

    def meet(self, player: str, turn: str) -> str:
        first = turn.splitlines()[0] if turn else ""
        if "a vote to recall the leader" in first:
            return f"[thinking] (stub) {player} recalls a leader the judge found in breach.\n[recall] yes"
        if "the election of the leader" in first:
            listed = re.search(r"^Vote for one candidate \(([^)]*)\)", turn, re.MULTILINE)
            candidates = listed.group(1).split(", ") if listed else []
            records = {m.group(1): (int(m.group(2)), -float(m.group(3))) for m in
                       re.finditer(r"^  (\w+): (\d+) broken, (-?[\d.]+) emeralds", turn, re.MULTILINE)}
            best = min(candidates, key=lambda c: records.get(c, (0, 0.0)), default="abstain")
            return f"[thinking] (stub) {player} elects the candidate with the best record.\n[elect] {best}"
        open_numbers = re.findall(r"^Proposal (\d+), by \w+:$", turn, re.MULTILINE)
        in_force = _section(turn, "The contract in force:", "Open proposals (vote on each):")
        grow = next((r for r in self.spec.rules if isinstance(r, GrowRule) and r.cap and r.factor > 1), None)
        votes = "".join(f"\n[vote {n}] yes" for n in open_numbers)
        if open_numbers or "at most" in in_force or grow is None or "Propose a change" not in turn:
            return f"[thinking] (stub) {player} votes for every limit.\n[proposal] none{votes}"
        share = int((grow.cap - grow.cap / grow.factor) // len(self.players))
        return (f"[thinking] (stub) {player} proposes a quota that lets the {grow.block} regrow.\n[proposal]\n"
                f"1. Each player mines at most {share} {grow.block} every {grow.every:g} seconds.\n[proposal end]")

    def judge(self, case: str, *, first_attempt: bool) -> str:
        contract = parse_contract(_section(case, "Contract:", "Tasks:"), self.players, spec=self.spec)
        values = {p: _values(v) for p, v in _player_lines(_section(case, "Item values (emeralds per item; an emerald is worth 1 to everyone):", "Chat log:")).items()}
        inventories = {p: _counts(v) for p, v in _player_lines(_section(case, "Final inventories:", "Chests at the end:")).items()}
        collected = {p: _counts(v) for p, v in _player_lines(_section(case, "Collected during the scenario (by digging or picking up):", "Final inventories:")).items()}
        transfers = {p: 0.0 for p in self.players}
        applied = []
        for n, clause in enumerate(contract.clauses, 1):
            match clause:
                case FixedTransfer(payer, payee, amount):
                    pass
                case ProportionalTransfer(payer, payee, fraction, item):
                    amount = fraction * values.get(payer, {}).get(item, 0.0) * inventories.get(payer, {}).get(item, 0)
                case PerUnitTransfer(payer, payee, rate, item):
                    amount = rate * collected.get(payer, {}).get(item, 0)
                case _:
                    continue
            transfers[payer] -= amount
            transfers[payee] += amount
            applied.append(f"clause {n}: {payer} pays {payee} {amount:g}")
        if first_attempt and applied:
            payer = next(p for p in self.players if transfers[p] < 0) if any(v < 0 for v in transfers.values()) else self.players[0]
            transfers = {**transfers, payer: 0.0}  # forgot the payer's side: not zero-sum
        critiques = {p: f"(stub) {p} is judged on the transfer clauses only." for p in self.players}
        reasoning = "(stub) " + ("; ".join(applied) if applied else "no clause states an explicit transfer")
        return json.dumps({"reasoning": reasoning, "transfers": transfers, "critiques": critiques})
