"""The studies wing: many runs at once: study files and sweeps (study, sweep, sweep_backends), comparisons of runs
(compare) and the built-in dilemma suite (suite/). It imports every other wing."""
