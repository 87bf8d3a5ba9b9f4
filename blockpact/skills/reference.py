"""The action API as data (from primitives.toml) and the prompt reference generated from it."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from string import Template
from typing import Any, Literal

from blockpact.settings import load_settings

SKILLS_DIR = Path(__file__).resolve().parent
PRIMITIVES_FILE = SKILLS_DIR / "primitives.toml"
REFERENCE_TEMPLATE = SKILLS_DIR / "templates" / "primitive_reference.md"


@dataclass(frozen=True)
class Primitive:
    name: str
    signature: str
    params: tuple[str, ...]
    defaults: dict[str, Any]
    doc: str
    returns: str
    feedback: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()


@dataclass(frozen=True)
class BotMember:
    path: str  # "entity.position", "findBlock"
    kind: str  # "get" | "query" | "call" | "chat"
    signature: str
    doc: str = field(default="")

    @property
    def runner_spec(self) -> str:
        """How the sandbox runner's `queries` option names it ("findBlock()" for methods)."""
        return f"{self.path}()" if self.kind == "query" else self.path


@dataclass(frozen=True)
class PrimitiveEntry:
    """[primitives.NAME]: one primitive as primitives.toml describes it."""

    signature: str
    params: tuple[str, ...]
    doc: str
    returns: str
    defaults: dict[str, str | int | float | bool] = field(default_factory=dict)
    feedback: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()


@dataclass(frozen=True)
class BotEntry:
    """[bot.PATH]: a member of `bot` a program may use."""

    kind: Literal["get", "query", "call", "chat"]
    signature: str
    doc: str


@dataclass(frozen=True)
class LimitEntry:
    """[limits.NAME]: one of the sandbox runner's limits."""

    value: int
    doc: str


@dataclass(frozen=True)
class PrimitivesFile:
    """primitives.toml's schema."""

    primitives: dict[str, PrimitiveEntry]
    bot: dict[str, BotEntry]
    limits: dict[str, LimitEntry]


@cache
def _file() -> PrimitivesFile:
    return load_settings(PRIMITIVES_FILE, PrimitivesFile)


@cache
def primitives() -> dict[str, Primitive]:
    return {
        name: Primitive(name, e.signature, e.params, dict(e.defaults), " ".join(e.doc.split()), e.returns, e.feedback, e.errors)
        for name, e in _file().primitives.items()
    }


@cache
def bot_members() -> dict[str, BotMember]:
    return {path: BotMember(path, e.kind, e.signature, " ".join(e.doc.split())) for path, e in _file().bot.items()}


HOST_LIMITS = frozenset({"maxFeedbackLines", "maxEpisodeFeedbackLines"})  # kept by the bodies (sim, live), not the sandbox


@cache
def sandbox_limits() -> dict[str, int]:
    """primitives.toml [limits]: the sandbox runner's configuration keys and values."""
    limits = {name: entry for name, entry in _file().limits.items() if name not in HOST_LIMITS}
    return {name: entry.value for name, entry in limits.items() if name != "maxDepth"} | {"maxReturnDepth": limits["maxDepth"].value}


def host_limit(name: str) -> int:
    """primitives.toml [limits.NAME] of a limit the simulated body keeps itself (HOST_LIMITS)."""
    return _file().limits[name].value


def runner_queries() -> list[str]:
    """The synchronous bot members, in the sandbox runner's `queries` notation (bot.chat is built in)."""
    return [m.runner_spec for m in bot_members().values() if m.kind in ("get", "query")]


def runner_bot_calls() -> list[str]:
    """The awaited bot methods, as the sandbox runner's `botCalls` (host calls named "bot.<path>")."""
    return [m.path for m in bot_members().values() if m.kind == "call"]


# Shown only to players of a world that declares groups: elsewhere they would lengthen every prompt for a call
# the task never needs (a program may still call them: formGroup works in any world).
GROUP_PRIMITIVES = ("joinGroup", "leaveGroup", "formGroup")


def primitive_reference(without: Collection[str] = ()) -> str:
    """The part of a prompt that tells the model which primitives (all but `without`) and bot members it may use."""
    prims = "\n".join(f"- `{p.signature}`: {p.doc} Returns {p.returns}." for p in primitives().values() if p.name not in without)
    members = bot_members().values()
    return Template(REFERENCE_TEMPLATE.read_text()).substitute(
        primitives=prims,
        bot_members=_listing(m for m in members if m.kind != "call"),
        bot_calls=_listing(m for m in members if m.kind == "call"),
    )


def _listing(members: Iterable[BotMember]) -> str:
    return "\n".join(f"- `{m.signature}`: {m.doc}" for m in members)
