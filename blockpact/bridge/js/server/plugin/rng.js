'use strict'
// The rules' counter-based random stream (blockpact/worlds/rules/rng.py) in 64-bit BigInt arithmetic:
// draw n of the stream (seed, purpose) is the same word here as in the simulator, so the server's drops
// for an episode's seed are the simulator's for the same digs. tests/test_rng_parity.py checks the words.

const MASK = (1n << 64n) - 1n
const GOLDEN = 0x9E3779B97F4A7C15n
const M1 = 0xBF58476D1CE4E5B9n
const M2 = 0x94D049BB133111EBn
const STREAM = 0x9E3779B1n

// rng.py's purpose DROPS: the stream number of a drop table's draws (the dynamics rules' stay below it).
const DROPS = 1 << 20

const u64 = (x) => x & MASK

// splitmix64's finaliser.
function mix (x) {
  x ^= x >> 30n
  x = u64(x * M1)
  x ^= x >> 27n
  x = u64(x * M2)
  return x ^ (x >> 31n)
}

function episodeKey (seed, episode) {
  return mix(mix(u64(u64(BigInt(seed)) * GOLDEN + 1n)) ^ u64(BigInt(episode) * GOLDEN))
}

function streamBase (key, step, stream) {
  return mix(key ^ u64(u64(BigInt(step) * 0x10001n + BigInt(stream)) * STREAM))
}

function spread (index) {
  return mix(u64(BigInt(index + 1) * GOLDEN))
}

function word (base, spreadI) {
  const x = u64((base ^ spreadI) * M1)
  return x ^ (x >> 29n)
}

// Draw n of the stream (seed, purpose) as a BigInt word; seed is an integer or its decimal string.
function streamWord (seed, purpose, n) {
  return word(streamBase(episodeKey(seed, 0), 0, purpose), spread(n))
}

// The word as a float uniform in [0, 1).
function unit (w) {
  return Number(w >> 11n) * 2 ** -53
}

// The stream (seed, purpose) from draw 0 on: next() is the next uniform in [0, 1).
function stream (seed, purpose) {
  const base = streamBase(episodeKey(seed, 0), 0, purpose)
  let n = 0
  return { next: () => unit(word(base, spread(n++))) }
}

module.exports = { DROPS, streamWord, unit, stream }
