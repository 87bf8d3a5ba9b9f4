"""Counter-based random numbers for the step-level API.

Every draw is a hash of (episode key, step, stream, index) rather than the next number of a stateful
generator, so copy b of a batched env draws exactly what a single env with the same seed draws,
whatever the other copies do, and a whole batch is drawn with a few numpy operations.
"""

from __future__ import annotations

from functools import cache

import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_UNIT = 2.0**-53


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: a bijection on uint64 that scatters nearby inputs."""
    with np.errstate(over="ignore"):
        x = x ^ (x >> np.uint64(30))
        x = x * _M1
        x = x ^ (x >> np.uint64(27))
        x = x * _M2
        return x ^ (x >> np.uint64(31))


def episode_keys(seeds: np.ndarray, episodes: np.ndarray) -> np.ndarray:
    """One key per copy for the episode numbered `episodes` of the seed sequence `seeds`."""
    s = np.asarray(seeds, dtype=np.int64).astype(np.uint64)
    e = np.asarray(episodes, dtype=np.int64).astype(np.uint64)
    with np.errstate(over="ignore"):
        return _mix(_mix(s * _GOLDEN + np.uint64(1)) ^ (e * _GOLDEN))


def bits(keys: np.ndarray, step: int, stream: int, n: int) -> np.ndarray:
    """(B, n) random uint64 words for draw stream `stream` at step `step`.

    The per-copy word is fully mixed; the per-index words only get a multiply and a shift (their high
    bits, the ones `below` and `uniforms` read, depend on every input bit), which halves the cost.
    """
    with np.errstate(over="ignore"):
        base = _mix(keys ^ np.uint64((step * 0x10001 + stream) * 0x9E3779B1 & 0xFFFFFFFFFFFFFFFF))
        x = (base[:, None] ^ _spread(n)) * _M1
        return x ^ (x >> np.uint64(29))


@cache
def _spread(n: int) -> np.ndarray:
    return _mix(np.arange(1, n + 1, dtype=np.uint64) * _GOLDEN)


def uniforms(keys: np.ndarray, step: int, stream: int, n: int) -> np.ndarray:
    """(B, n) floats uniform in [0, 1)."""
    return (bits(keys, step, stream, n) >> np.uint64(11)) * _UNIT


def below(words: np.ndarray, probability: np.ndarray | float) -> np.ndarray:
    """Whether each word, read as a uniform in [0, 1), falls below `probability` (per copy: shape (B, 1))."""
    return (words >> np.uint64(11)) < np.asarray(probability) * 2.0**53
