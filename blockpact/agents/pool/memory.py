"""The in-process pool: every agent is a task in this Python process, so delivery is a queue put."""

from __future__ import annotations

from blockpact.agents.pool.core import MessagePool


class InProcessPool(MessagePool):
    """The default backend. Publishing delivers at once to every matching subscription."""
