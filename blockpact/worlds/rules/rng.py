"""Counter-based random numbers for the step-level API.

Every draw is a hash of (episode key, step, stream, index) rather than the next number of a stateful
generator, so copy b of a batched env draws exactly what a single env with the same seed draws,
whatever the other copies do. The functions are compiled scalar operations on uint64 words for the
step kernel (`step/kernel.py`); all arithmetic wraps modulo 2**64.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_STREAM = np.uint64(0x9E3779B1)
_ONE = np.uint64(1)
_S11, _S27, _S29, _S30, _S31 = (np.uint64(s) for s in (11, 27, 29, 30, 31))
_UNIT = 2.0**-53
_SCALE = 2.0**53


@njit(cache=True)
def mix(x: np.uint64) -> np.uint64:
    """splitmix64's finaliser: a bijection on uint64 that scatters nearby inputs."""
    x = x ^ (x >> _S30)
    x = x * _M1
    x = x ^ (x >> _S27)
    x = x * _M2
    return x ^ (x >> _S31)


@njit(cache=True)
def episode_key(seed: int, episode: int) -> np.uint64:
    """The key of episode number `episode` of the seed sequence `seed`."""
    return mix(mix(np.uint64(seed) * _GOLDEN + _ONE) ^ (np.uint64(episode) * _GOLDEN))


@njit(cache=True)
def stream_base(key: np.uint64, step: int, stream: int) -> np.uint64:
    """The fully mixed word of draw stream `stream` at step `step`, from which its indexed words derive."""
    return mix(key ^ (np.uint64(step * 0x10001 + stream) * _STREAM))


@njit(cache=True)
def spread(index: int) -> np.uint64:
    """What index `index` of a stream mixes in (tabulated once per env: see `spread_table`)."""
    return mix(np.uint64(index + 1) * _GOLDEN)


@njit(cache=True)
def spread_table(n: int) -> np.ndarray:
    out = np.empty(n, dtype=np.uint64)
    for i in range(n):
        out[i] = spread(i)
    return out


@njit(cache=True)
def word(base: np.uint64, spread_i: np.uint64) -> np.uint64:
    """Word `i` of a stream: only a multiply and a shift on top of the stream's mixed base (the high
    bits, which `below` and `unit` read, depend on every input bit)."""
    x = (base ^ spread_i) * _M1
    return x ^ (x >> _S29)


@njit(cache=True)
def unit(w: np.uint64) -> float:
    """The word read as a float uniform in [0, 1)."""
    return float(w >> _S11) * _UNIT


@njit(cache=True)
def below(w: np.uint64, probability: float) -> bool:
    """Whether the word, read as a uniform in [0, 1), falls below `probability`."""
    return float(w >> _S11) < probability * _SCALE
