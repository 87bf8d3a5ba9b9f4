"""The cap on primitive feedback a player's programs may cause (AgentAPI._say): each line is kept in the event log
and shown to agents, and one call may say a line per name it is given (30,000 bogus chest items took the host past
1.7 GB). Past a cap no line is kept and the program ends, naming the cap."""

from __future__ import annotations

from blockpact.worlds.sim.primitives import PrimitiveError


class FeedbackCapped(PrimitiveError):
    """A program made the primitives say more feedback than the host keeps for it."""

    def __init__(self, message: str, limit: str) -> None:
        super().__init__(message)
        self.limit = limit


class FeedbackCap:
    """Feedback lines a player's primitives may say, per program and per episode."""

    def __init__(self, per_program: int, per_episode: int) -> None:
        self.per_program = per_program
        self.per_episode = per_episode
        self.program_lines = 0
        self.episode_lines = 0

    def start_program(self) -> None:
        self.program_lines = 0

    def count(self) -> None:
        """Count one line about to be said; FeedbackCapped when it is one too many."""
        if self.program_lines >= self.per_program:
            raise FeedbackCapped(f"too much primitive feedback: over {self.per_program} lines in one program "
                                 "(limit maxFeedbackLines)", "maxFeedbackLines")
        if self.episode_lines >= self.per_episode:
            raise FeedbackCapped(f"too much primitive feedback: over {self.per_episode} lines from this player's "
                                 "programs in one episode (limit maxEpisodeFeedbackLines)", "maxEpisodeFeedbackLines")
        self.program_lines += 1
        self.episode_lines += 1
