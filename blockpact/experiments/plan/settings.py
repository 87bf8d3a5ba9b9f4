"""The run defaults in run.toml (package data), read once into typed settings."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from blockpact.settings import bounds, load_settings

RUN_TOML = Path(__file__).with_name("run.toml")


@dataclass(frozen=True)
class RunDefaults:
    backend: Literal["sim", "minecraft"]
    agents: Literal["scripted", "llm"]
    conditions: tuple[str, ...]  # run when --contract is not given
    seeds: int = bounds(ge=1)
    episodes: int = bounds(ge=1)
    out_base: str


@dataclass(frozen=True)
class PlotSettings:
    width: float = bounds(gt=0)  # inches per panel
    height: float = bounds(gt=0)
    band_alpha: float = bounds(ge=0, le=1)


@dataclass(frozen=True)
class PreflightSettings:
    timeout_seconds: float = bounds(gt=0)


@dataclass(frozen=True)
class ReportSettings:
    label_scripted: str
    label_llm: str


@dataclass(frozen=True)
class EpisodeSettings:
    budget_margin_seconds: float = bounds(ge=0)
    handover_chat_lines: int = bounds(ge=0)


@dataclass(frozen=True)
class JudgeChoice:
    apply_llm_judge: bool


@dataclass(frozen=True)
class LLMRequests:
    seed_requests: bool


@dataclass(frozen=True)
class RunSettings:
    """`run.toml`'s schema."""

    run: RunDefaults
    plots: PlotSettings
    preflight: PreflightSettings
    report: ReportSettings
    episode: EpisodeSettings
    judge: JudgeChoice
    llm: LLMRequests


@cache
def run_settings() -> RunSettings:
    return load_settings(RUN_TOML, RunSettings)

