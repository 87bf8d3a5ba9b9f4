'use strict'
// The server plugin's port of the rules' counter-based stream (blockpact/worlds/rules/rng.py). The words below
// were printed by rng.stream_word; tests/test_rng_parity.py compares many more with Python directly.
const { describe, it } = require('node:test')
const assert = require('node:assert/strict')
const { DROPS, streamWord, stream, unit } = require('../../blockpact/bridge/js/server/plugin/rng')
const { dropRules } = require('../../blockpact/bridge/js/server/plugin/drops')
const { itemTools } = require('../../blockpact/bridge/js/server/plugin/items')

const FROM_PYTHON = [
  ['0', DROPS, 0, '9634262543301150103'],
  ['0', DROPS, 1, '9021329786197634839'],
  ['7', DROPS + 1, 3, '6224729137188538984'],
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
    const draws = stream(7, DROPS)
    const got = [0, 1, 2, 3].map(() => draws.next())
    assert.deepEqual(got, [0, 1, 2, 3].map(n => unit(streamWord('7', DROPS, n))))
    assert.ok(got.every(u => u >= 0 && u < 1))
  })
})

describe('resetDrops', () => {
  it('forgets an earlier world\'s tables and restarts the stream', () => {
    const registry = require('minecraft-data')('1.20.4')
    const gravel = registry.blocksByName.gravel
    const fresh = dropRules({ registry }, itemTools(registry), 3)
    const reused = dropRules({ registry }, itemTools(registry), 99)
    reused.setDrops('gravel', [{ item: 'flint', counts: [9], weights: [1] }])
    for (let i = 0; i < 5; i++) reused.dropsFor(gravel, null)
    reused.reset('3')
    assert.deepEqual(reused.dropsFor(gravel, null), [{ name: 'gravel', count: 1 }]) // minecraft-data's block list again
    const table = [{ item: 'flint', counts: [0, 1, 2, 5], weights: [0.4, 0.3, 0.2, 0.1] }]
    for (const drops of [fresh, reused]) drops.setDrops('gravel', table)
    const digs = (drops) => Array.from({ length: 30 }, () => drops.dropsFor(gravel, null))
    assert.deepEqual(digs(reused), digs(fresh)) // the table, on (3, DROPS) from draw 0
  })
})
