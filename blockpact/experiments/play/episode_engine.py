"""One episode: every player's action agent writes a program, all programs run together on a world
(a SimWorld by default, JavaScript in the SES sandbox; a LiveWorld for --backend minecraft), the judges
settle the contract, and, when another episode of the seed follows, the critic reviews each run knowing how
the episode ended and each LLM player writes its lessons; what each player learnt is handed to the next
episode.

Who the players are (scripted or LLM) is a `Cast`; the engine is the same for both, so scripted
and LLM runs differ only in who writes the programs, critiques and judgments.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from blockpact.agents.action import ActionAgent, Proposal
from blockpact.agents.action_context import ActionContext
from blockpact.agents.critic import CriticProtocol
from blockpact.agents.observation import share_group_observations
from blockpact.agents.reflection import Recollection, ReflectionError, Reflector
from blockpact.agents.voyager_loop import LoopEvent, SkillDescriber, VoyagerLoop
from blockpact.bridge.protocols import World, lost_programs
from blockpact.bridge.sim import SimWorld
from blockpact.experiments.play.failures import UnitFailure
from blockpact.experiments.play.judging import Judges, Settlement, settle
from blockpact.experiments.play.recap import recap
from blockpact.experiments.play.protocol import EpisodeInput, EpisodeLog, EpisodeOutcome, Handover
from blockpact.experiments.plan.settings import run_settings
from blockpact.plain_text import plain_line
from blockpact.prompt_files import prompt_template
from blockpact.worlds.events import Event
from blockpact.worlds.membership import membership_at
from blockpact.worlds.spec.schema import WorldSpec

if TYPE_CHECKING:
    from blockpact.bridge.protocols import ProgramResult
    from blockpact.skills.library import SkillLibrary


@dataclass(frozen=True)
class Minds:
    """Who thinks for the players in one episode: action agents, the critic, the judges."""

    agents: Mapping[str, ActionAgent]
    critic: CriticProtocol
    judges: Judges
    libraries: Mapping[str, SkillLibrary] = field(default_factory=dict)  # where successful programs are kept
    describer: SkillDescriber | None = None
    reflectors: Mapping[str, Reflector] = field(default_factory=dict)  # the players who reflect after an episode


PROMPTS = Path(__file__).with_name("prompts")  # the task the action agents are given
Cast = Callable[[EpisodeInput], Minds]  # the minds of an episode (scripted or LLM)
WorldFactory = Callable[[WorldSpec, int], World]  # (spec, seed) -> a world of any backend


def task_for(episode: EpisodeInput) -> str:
    return prompt_template(PROMPTS, "task" if episode.contract is None else "task_contract").substitute().strip()


def chat_lines(events: list[Event]) -> tuple[str, ...]:
    """The chat log agents read: one line per message (a newline in one cannot forge another's attribution), a
    primitive's feedback marked apart from what the player said."""
    return tuple(
        f"[{e.time:.1f} s] {e.agent}{' (feedback)' if e.data.get('source') == 'primitive' else ''}: {plain_line(str(e.data.get('message', '')))}"
        for e in events if e.kind == "chat" and e.agent
    )


def _context(episode: EpisodeInput, player: str, task: str, observation: Mapping[str, Any]) -> ActionContext:
    spec = episode.spec
    handover = episode.handover.get(player, Handover())
    return ActionContext(
        player=player,
        world=spec,
        task=task,
        contract=episode.contract,
        inventory=dict(spec.players[player].inventory),
        others_inventories={p: dict(s.inventory) for p, s in sorted(spec.players.items()) if p != player},
        observation=observation,
        chat_log=handover.chat_log,
        last_code=handover.last_code,
        last_error=handover.last_error,
        critic_critique=handover.critic_critique,
        judge_critique=handover.judge_critique,
        last_outcome=handover.outcome,
        lessons=handover.lessons,
    )


def _world_for(factory: WorldFactory, episode: EpisodeInput) -> World:
    """`factory(spec, seed)`; a factory whose worlds say lines to the user about their episode (the live backend's
    LiveWorlds: a seed that ran slowed) is asked for the condition's worlds, so that a line names both."""
    for_condition = getattr(factory, "for_condition", None)
    return (for_condition(episode.condition) if for_condition is not None else factory)(episode.spec, episode.seed)


NO_PROGRAM = "no runnable program (the action agent gave no reason)"


def _no_program(player: str, reason: str | None) -> dict[str, object]:
    """A program_result for a player whose action agent wrote no runnable program (nothing ran). The error is the
    agent's reason as it gave it ("no runnable program in 3 replies; last problem: ..."): the result names the
    player, and the report and metrics.json put the player before it, so it is not said again here."""
    return {"player": player, "success": False, "error": reason or NO_PROGRAM,
            "error_line": None, "stack": None, "chat": [], "logs": [], "duration": 0.0, "timed_out": False}


# World events that show a player acting; a program that ran the whole episode without one made no progress.
PROGRESS_KINDS = frozenset({"move", "inventory", "block", "chest", "craft", "smelt", "signal", "chat"})


def made_progress(events: list[Event], player: str) -> bool:
    return any(e.agent == player and e.kind in PROGRESS_KINDS for e in events)


class _Runs:
    """The programs' results as run, and as the agents see them: in this protocol a program plays the
    whole episode, so one still running when the episode ends has finished its job (no error to fix,
    and the critic judges what it achieved), unless its bot made no progress at all the whole time (a
    hung bot or a program stuck waiting): that one stays `timed out`, and the critic sees so. The log
    keeps the run as it was."""

    def __init__(self, episode_seconds: float) -> None:
        self.episode_seconds = episode_seconds
        self.original: dict[str, ProgramResult] = {}
        self.ended_with_episode: set[str] = set()
        self.rejected: dict[str, list[LoopEvent]] = {}  # proposal_failed events, with the rejected replies

    def note(self, event: LoopEvent) -> None:
        if event.kind == "proposal_failed":
            self.rejected.setdefault(event.player, []).append(event)

    def record(self, results: Mapping[str, ProgramResult], events: list[Event]) -> dict[str, ProgramResult]:
        seen = {}
        for player, result in results.items():
            self.original[player] = result
            if (result.timed_out and result.observation.get("time", 0.0) >= self.episode_seconds
                    and made_progress(events, player)):
                self.ended_with_episode.add(player)
                result = dataclasses.replace(result, success=True, error=None, error_line=None, stack=None,
                                             timed_out=False, failure=None, limit=None)
            seen[player] = result
        return seen


@dataclass
class _Round:
    """The episode's programs: each player's loop and context, its proposal (or why it has none), its result."""

    loops: dict[str, VoyagerLoop]
    contexts: dict[str, ActionContext]
    proposals: dict[str, Proposal | str]
    results: dict[str, ProgramResult]
    runs: _Runs


class WorldEpisodeEngine:
    """Plays episodes on the worlds `world_factory` makes (the grid simulator unless told otherwise; any
    `World` of bridge/protocols.py); one instance serves every condition and seed of a run."""

    def __init__(self, cast: Cast, world_factory: WorldFactory = SimWorld) -> None:
        self.cast = cast
        self.world_factory = world_factory
        settings = run_settings().episode
        self.budget_margin = settings.budget_margin_seconds
        self.handover_chat_lines = settings.handover_chat_lines

    async def play(self, episode: EpisodeInput, log: EpisodeLog) -> EpisodeOutcome:
        spec = episode.spec
        world = _world_for(self.world_factory, episode)
        try:
            log.follow(world.events, world.listen)
            task = task_for(episode)
            for player in sorted(spec.players):
                world.emit(player, "task", task=task)  # the judge's observables read the tasks here
            minds = self.cast(episode)
            played = await self._play_programs(episode, minds, world, task)
            world.finish()
            self._log_programs(played, log)
            events = list(world.events)
            settlement = await settle(spec, episode.contract, events, log, minds.judges)
            chat = chat_lines(events)[-self.handover_chat_lines:]
            handover = await self._learn(episode, minds, played, settlement, chat, log)
            return EpisodeOutcome(settlement.rewards, settlement.inventory_rewards, settlement.transfers, handover,
                                  world.now, settlement.applied, replayed_from=getattr(world, "replayed", None))
        finally:
            await world.close()

    async def _play_programs(self, episode: EpisodeInput, minds: Minds, world: World, task: str) -> _Round:
        """Every player proposes (concurrently), then all programs run together on the world."""
        spec = episode.spec
        players = sorted(spec.players)
        runs = _Runs(spec.episode_seconds)
        loops = {p: VoyagerLoop(minds.agents[p], minds.critic, library=minds.libraries.get(p), describer=minds.describer,
                                attempts=1, on_event=runs.note) for p in players}
        groups = membership_at(spec.groups, list(world.events), players, world.now).standing(world.now)  # members now
        observations = share_group_observations({p: await world.observe(p) for p in players}, groups, world.now)
        contexts = {p: _context(episode, p, task, observations[p]) for p in players}
        proposed = await asyncio.gather(*(loops[p].propose(contexts[p], 1) for p in players))
        proposals: dict[str, Proposal | str] = dict(zip(players, proposed))
        running = {p: pr for p, pr in proposals.items() if not isinstance(pr, str)}
        results: dict[str, ProgramResult] = {}
        if running:
            ran = await world.run_programs({p: pr.code for p, pr in running.items()},
                                           skills={p: pr.skills for p, pr in running.items()},
                                           budget=spec.episode_seconds + self.budget_margin,
                                           trusted=trusted_players(running))
            results = runs.record(ran, list(world.events))
            _fail_on_broken_infrastructure(ran)
        return _Round(loops, contexts, proposals, results, runs)

    @staticmethod
    def _log_programs(played: _Round, log: EpisodeLog) -> None:
        """Each program's result as it ran (before the judge: a unit that fails later keeps them)."""
        for player, proposal in sorted(played.proposals.items()):
            if isinstance(proposal, str):
                replies = [r for e in played.runs.rejected.get(player, []) for r in e.data.get("replies", [])]
                log.program_result(_no_program(player, proposal), code=None, source="llm", replies=replies)
                continue
            log.program_result(played.runs.original[player].to_json(), code=proposal.code, source=proposal.label,
                               explain=proposal.explain, plan=proposal.plan, function_name=proposal.function_name,
                               stopped_by_episode_end=player in played.runs.ended_with_episode)

    async def _learn(self, episode: EpisodeInput, minds: Minds, played: _Round, settlement: Settlement,
                     chat: tuple[str, ...], log: EpisodeLog) -> dict[str, Handover]:
        """What each player takes into the next episode. The critic (with how the episode ended) and the
        player's reflection are asked only when a next episode reads them: in the last one they feed nothing."""
        handover = {}
        for player, proposal in sorted(played.proposals.items()):
            earlier = episode.handover.get(player, Handover())
            outcome = recap(player, episode.contract, settlement.clauses, settlement.inventories.get(player, {}),
                            settlement.inventory_rewards, settlement.transfers, settlement.rewards)
            ctx = played.contexts[player]
            if isinstance(proposal, str):
                last_code, last_error, critique = None, proposal or NO_PROGRAM, None
            elif episode.followed:
                attempt, ctx = await played.loops[player].review(ctx, proposal, played.results[player], 1, outcome)
                verdict = attempt.critique
                log.verdict(player, verdict.success, verdict.critique, verdict.reasoning, verdict.source)
                if verdict.critique:
                    log.critique(player, "critic", verdict.critique, success=verdict.success)
                last_code, last_error, critique = proposal.code, ctx.last_error, verdict.critique or None
            else:
                result = played.results[player]
                last_code, last_error, critique = proposal.code, None if result.success else result.error, None
            lessons = tuple(earlier.lessons)
            reflector = minds.reflectors.get(player)
            if episode.followed and reflector is not None:
                lessons = await self._reflect(reflector, Recollection(
                    player, episode.contract, last_code, outcome,
                    critique or ("none: " + last_error if last_error else "the critic found nothing to change"),
                    chat, lessons, meetings=episode.meetings), log)
            handover[player] = Handover(last_code=last_code, last_error=last_error, critic_critique=critique,
                                        judge_critique=settlement.critiques.get(player) or None, chat_log=chat,
                                        outcome=outcome, lessons=lessons)
        return handover

    @staticmethod
    async def _reflect(reflector: Reflector, recollection: Recollection, log: EpisodeLog) -> tuple[str, ...]:
        """The player's new lessons; a reflection with none keeps its earlier ones (logged with the replies)."""
        try:
            lessons = tuple(await reflector.reflect(recollection))
        except ReflectionError as exc:
            log.reflection(recollection.player, list(recollection.lessons), error=str(exc), replies=exc.replies)
            return tuple(recollection.lessons)
        log.reflection(recollection.player, list(lessons))
        return lessons


def trusted_players(proposals: Mapping[str, Proposal]) -> frozenset[str]:
    """The players whose program is the project's own: scripted, loading no library skills (a backend may pack them)."""
    return frozenset(p for p, proposal in proposals.items() if proposal.scripted and not proposal.skills)


def _fail_on_broken_infrastructure(results: dict[str, ProgramResult]) -> None:
    """The unit fails with cause bridge (failures.py) instead of scoring a lost program as its agent's outcome."""
    lost = lost_programs(results)
    if lost is not None:
        raise UnitFailure("bridge", lost)
