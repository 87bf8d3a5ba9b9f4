"""blockpact: LLM-driven agents that organize, negotiate and keep agreements in Minecraft-style worlds."""

__version__ = "0.1.0"
