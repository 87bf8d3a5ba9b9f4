"""The built-in dilemma suite: worlds of distinct shapes with declared reference points, played by populations of
agents as the units of a sweep, and scored on a leaderboard (0 = all-greedy welfare, 1 = the optimum)."""
