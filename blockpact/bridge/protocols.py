"""The contracts every backend keeps: a `World` (one episode of a world spec) and its `Body`s (one player's
way to act), and the `ProgramResult` a body reports. The episode engine, the organizations and the tools
use nothing else, so a new backend is one folder plus a green run of `blockpact.conformance` (see
docs/backends.md). Two backends keep them: the grid simulator (`bridge/sim/`) and a Minecraft server
(`bridge/live/`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from blockpact.worlds.events import Event, Listener
    from blockpact.worlds.spec.schema import WorldSpec
    from blockpact.worlds.state import WorldState


# Why a program failed (ProgramResult.failure), for callers that sort failures:
FAILURE_KINDS = (
    "program",  # the program's own error (an exception, a syntax error, misuse of a primitive)
    "budget",  # a time budget ran out: simulated time, computing time (simulator) or wall time (live)
    "limit",  # it broke a resource limit, named in ProgramResult.limit (memory, message size, calls, chat)
    "stalled",  # it awaited something that can never happen (no primitive pending, nothing to run)
    "cancelled",  # the caller stopped it (episode over, the run stopped, the bot left or lost its connection)
    "sandbox",  # the sandbox worker could not start or died for a reason of its own
    "bridge",  # the Node runtime or the Python-Node bridge broke (it is restarted for the next program)
)


@dataclass
class ProgramResult:
    """The outcome of one program run, in the form the critic, the judge and the CLI read."""

    player: str
    success: bool
    error: str | None
    error_line: int | None
    stack: str | None
    chat: list[str] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)
    # per line of `chat`: "program" (its own bot.chat) or "primitive" (a primitive's feedback); empty where the
    # backend cannot tell (see `shown_chat`)
    chat_sources: list[str] = field(default_factory=list)
    observation: dict[str, Any] = field(default_factory=dict)
    duration: float = 0.0
    timed_out: bool = False
    failure: str | None = None  # one of FAILURE_KINDS when success is False
    limit: str | None = None  # the limit it broke: "budget", "memoryMb", "maxMessageBytes", "maxPendingCalls", ...

    def to_json(self) -> dict[str, Any]:
        """The fields as plain data, copied (not dataclasses.asdict: it deep-copies every leaf, and an observation
        lists every player in view, so with 256 players the results of one round took seconds to copy)."""
        return {f.name: _copied(getattr(self, f.name)) for f in fields(self)}


def _copied(value: Any) -> Any:
    """A copy of JSON-like data: containers are copied, leaves (str, numbers, None) are immutable and shared."""
    if isinstance(value, dict):
        return {k: _copied(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copied(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_copied(v) for v in value)
    return value


def shown_chat(result: ProgramResult, speaker: str | None = None) -> list[str]:
    """`result.chat` as agents are shown it: a primitive's feedback marked apart from what the program said, so
    that a program's own line ("I did the recipe for stick") cannot pass for feedback. With `speaker`, in the chat
    log's form ("Gizmo: hello", "Gizmo (feedback): No item named x"), else "said: ..." and "feedback: ..."."""
    known = len(result.chat_sources) == len(result.chat)
    lines = []
    for i, line in enumerate(result.chat):
        feedback = known and result.chat_sources[i] == "primitive"
        if speaker is not None:
            lines.append(f"{speaker}{' (feedback)' if feedback else ''}: {line}")
        else:
            lines.append(f"{'feedback' if feedback else 'said'}: {line}" if known else line)
    return lines


# A program lost to Node, the bridge or the sandbox says nothing about its agent: whoever scores it must fail instead.
INFRASTRUCTURE_FAILURES = ("bridge", "sandbox")


def lost_programs(results: Mapping[str, ProgramResult]) -> str | None:
    """Why programs of `results` were lost to the infrastructure ("P1's program: bridge: ..."), or None if none was."""
    lost = [r for _, r in sorted(results.items()) if r.failure in INFRASTRUCTURE_FAILURES]
    return "; ".join(f"{r.player}'s program: {r.failure}: {r.error}" for r in lost) or None


class Body(Protocol):
    """One player's body: runs a program (JavaScript calling the primitives of skills/primitives.toml) to
    its end and says how it went; primitives' soft failures are chat lines in `ProgramResult.chat`."""

    player: str

    async def run(self, source: str, *, skills: Sequence[str] = (), budget: float | None = None) -> ProgramResult:
        """Run `source` (with `skills`' code in scope); `budget` in the backend's seconds (simulated or wall)."""
        ...

    def observe(self) -> dict[str, Any]:
        """What the player sees now: position, inventory, held, health, time, nearby_blocks,
        nearby_entities, chests (the keys of the action prompt's observation)."""
        ...

    async def close(self) -> None: ...


class World(Protocol):
    """One episode of `spec` on a backend. Time (`now`) is episode seconds: simulated on the simulator, wall
    seconds since the programs started live. Everything that happens is an `Event` (kinds in
    experiments/log/EVENTS.md, `world` rows); the judge, metrics and referees read only these."""

    spec: WorldSpec

    @property
    def now(self) -> float:
        """Episode seconds so far; never goes back."""
        ...

    @property
    def events(self) -> Sequence[Event]:
        """Every event of the episode so far, in order (an `episode_start` first)."""
        ...

    @property
    def state(self) -> WorldState:
        """The world as this side knows it (the simulator's state; live: the mirror the world master keeps)."""
        ...

    def emit(self, agent: str | None, kind: str, **data: Any) -> Event:
        """Record an event of the caller's (e.g. the task a player was given) at `now`."""
        ...

    def listen(self, listener: Listener) -> None:
        """Call `listener` with every later event, as it happens."""
        ...

    async def observe(self, player: str) -> dict[str, Any]:
        """What `player` sees now (Body.observe's keys), also before any program ran."""
        ...

    def body(self, player: str) -> Body: ...

    async def run_programs(self, programs: Mapping[str, str], *, skills: Mapping[str, Sequence[str]] | None = None,
                           until: float | None = None, budget: float | None = None,
                           trusted: Collection[str] = ()) -> dict[str, ProgramResult]:
        """Every player's program starts together; returns a result per player when all have finished or the
        episode end / `until` is reached (unfinished ones are stopped: `timed_out`). `trusted`: players whose
        programs the project wrote (scripted players), which a backend may run packed together (the simulator packs
        them into shared sandbox workers); any other program is untrusted and runs where it can be stopped on its own
        (docs/limits.md). The outcome does not depend on it."""
        ...

    def finish(self) -> Event:
        """The `episode_end` event with the final snapshot (idempotent: the same event again)."""
        ...

    async def close(self) -> None:
        """Release bodies, bots and servers this world started (idempotent)."""
        ...


class AgentWorld(Protocol):
    """What an organization episode uses of a world whose players are asynchronous agents (each a controller
    that runs programs, sleeps and waits for messages): `SimWorld` and, live, `LiveAgents`."""

    stopped: str | None  # why `stop` ended the agents, if it did

    @property
    def now(self) -> float: ...

    @property
    def state(self) -> WorldState: ...

    def listen(self, listener: Listener) -> None: ...

    async def run_agents(self, controllers: Mapping[str, Callable[[Any], Awaitable[Any]]]) -> dict[str, Any]: ...

    def wake(self, agents: Sequence[str]) -> None: ...

    def stop(self, reason: str) -> None: ...

    async def close(self) -> None: ...
