"""Scripted baseline players: deterministic JS programs generated from the world spec (no LLM).

They implement the `ActionAgent` protocol, so the same loop, bodies and runners serve them and
the LLM agents; their proposals carry `scripted=True` and every output says "scripted".
"""

from blockpact.agents.scripted.cooperative import ScriptedCooperativeAgent
from blockpact.agents.scripted.greedy import ScriptedGreedyAgent

__all__ = ["ScriptedCooperativeAgent", "ScriptedGreedyAgent"]
