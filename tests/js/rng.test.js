'use strict'
// The server plugin's port of the rules' counter-based stream (blockpact/worlds/rules/rng.py). The words below
// were printed by rng.stream_word; tests/test_rng_parity.py compares many more with Python directly.
const { describe, it } = require('node:test')
const assert = require('node:assert/strict')
const { DROPS, LOOT, streamWord, stream, unit } = require('../../blockpact/bridge/js/server/plugin/rng')
const { dropRules } = require('../../blockpact/bridge/js/server/plugin/drops')
const { itemTools } = require('../../blockpact/bridge/js/server/plugin/items')

const FROM_PYTHON = [
  ['0', DROPS, 0, '9634262543301150103'],
  ['0', DROPS, 1, '9021329786197634839'],
  ['7', LOOT, 3, '6224729137188538984'],
  ['123456789012', 0, 39, '3071685285459817946'],
  ['4611686018427400249', DROPS, 5, '11186689943467804125']
]

describe('counter-based stream', () => {
  it('gives the words of the Python stream', () => {
    for (const [seed, purpose, n, expected] of FROM_PYTHON) {
      assert.equal(streamWord(seed, purpose, n).toString(), expected, `(${seed}, ${purpose}, ${n})`)
    }
  })

  it('numbers its draws from 0, for a seed given as a number or a string', () => {
    const draws = stream(7, LOOT)
    const got = [0, 1, 2, 3].map(() => draws.next())
    assert.deepEqual(got, [0, 1, 2, 3].map(n => unit(streamWord('7', LOOT, n))))
    assert.ok(got.every(u => u >= 0 && u < 1))
  })
})

describe('resetDrops', () => {
  it('forgets an earlier world\'s tables and restarts both streams', () => {
    const registry = require('minecraft-data')('1.20.4')
    const { gravel, birch_leaves: leaves } = registry.blocksByName
    const fresh = dropRules({ registry }, itemTools(registry), 3)
    const reused = dropRules({ registry }, itemTools(registry), 99)
    reused.setDrops('gravel', [{ item: 'flint', counts: [9], weights: [1] }])
    for (let i = 0; i < 5; i++) reused.dropsFor(gravel, null)
    for (let i = 0; i < 5; i++) reused.dropsFor(leaves, null)
    reused.reset('3')
    const digs = (drops, block, n) => Array.from({ length: n }, () => drops.dropsFor(block, null))
    assert.deepEqual(digs(reused, leaves, 30), digs(fresh, leaves, 30)) // minecraft-data's chance loot, on (3, LOOT)
    assert.deepEqual(digs(reused, gravel, 3), digs(fresh, gravel, 3)) // minecraft-data's table for gravel again
    const table = [{ item: 'flint', counts: [0, 1, 2, 5], weights: [0.4, 0.3, 0.2, 0.1] }]
    for (const drops of [fresh, reused]) drops.setDrops('gravel', table)
    assert.deepEqual(digs(reused, gravel, 30), digs(fresh, gravel, 30)) // the table, on (3, DROPS)
  })
})
