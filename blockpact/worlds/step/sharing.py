"""The world's reward-sharing groups in the step API, as the simulator's outcome counts them (judge/groups.py).

A group (AdaSociety) pools `share` of what each member earns while it stands and splits the pool equally: each
member's reward becomes r + share x (mean of the members' r - r), summed over the groups it is in, each from the
rewards before any sharing (zero-sum within a group). The simulator counts what was earned in (start, end] of
each group; a step's reward is earned at the step's end, so a step counts for a group when its end falls in
(start, end] (end None: the episode's end, the last step included).

The groups are cut into spells of fixed members as the judge cuts them (worlds/membership.py); the step API
has no action that joins or leaves a group, so here each group has one spell, its declared members.
"""

from __future__ import annotations

import math

import numpy as np

from blockpact.worlds.membership import spells
from blockpact.worlds.spec.schema import WorldSpec

EPS = 1e-9


class GroupSharing:
    def __init__(self, spec: WorldSpec, players: list[str], step_seconds: float) -> None:
        self.step_seconds = step_seconds
        share = {g.name: float(g.share) for g in spec.groups}
        self.groups = [(np.array([players.index(m) for m in s.members], dtype=np.int64), share[s.group], float(s.start),
                        float(s.end)) for s in spells(spec.groups, (), math.inf) if len(s.members) > 1]

    def apply(self, rewards: np.ndarray, t: int) -> np.ndarray:
        """The (B, N) rewards of step number `t` after every group standing at its end shared them."""
        if not self.groups:
            return rewards
        when = (t + 1) * self.step_seconds
        out = rewards.copy()
        for members, share, start, end in self.groups:
            if start + EPS < when <= end + EPS:
                own = rewards[:, members]
                out[:, members] += share * (own.mean(axis=1, keepdims=True) - own)
        return out
