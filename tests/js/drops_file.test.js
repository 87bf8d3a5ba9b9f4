'use strict'
// The server plugin's default drop tables come from blockpact/worlds/data/drops.json, the file the
// simulator and the step API read: a new table there is what a server without a world master uses.
const { describe, it } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('fs')
const os = require('os')
const path = require('path')
const { dropRules, DROPS_FILE } = require('../../blockpact/bridge/js/server/plugin/drops')
const { itemTools } = require('../../blockpact/bridge/js/server/plugin/items')

function rulesFrom (file) {
  const registry = require('minecraft-data')('1.20.4')
  return { registry, drops: dropRules({ registry }, itemTools(registry), 7, file) }
}

describe('default drop tables', () => {
  it('follow the shared data file', () => {
    const { registry, drops } = rulesFrom(DROPS_FILE)
    const table = JSON.parse(fs.readFileSync(DROPS_FILE, 'utf8')).red_mushroom_block
    const seen = new Map()
    for (let i = 0; i < 3000; i++) {
      const got = drops.dropsFor(registry.blocksByName.red_mushroom_block, null)
      const n = got.length ? got[0].count : 0
      seen.set(n, (seen.get(n) ?? 0) + 1)
    }
    assert.deepEqual([...seen.keys()].sort(), table.counts.filter(c => c >= 0).sort())
    table.counts.forEach((c, i) => assert.ok(Math.abs(seen.get(c) / 3000 - table.weights[i]) < 0.04, `count ${c}`))
  })

  it('take a new table from the file given', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'drops-')), 'drops.json')
    fs.writeFileSync(file, JSON.stringify({ gravel: { item: 'flint', counts: [3], weights: [1] } }))
    const { registry, drops } = rulesFrom(file)
    assert.deepEqual(drops.dropsFor(registry.blocksByName.gravel, null), [{ name: 'flint', count: 3 }])
  })
})
