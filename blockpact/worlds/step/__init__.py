"""The step-level multi-agent API: a PettingZoo `ParallelEnv` (and its batched form) over one numba
kernel."""
