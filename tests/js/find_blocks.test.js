'use strict'
// The block search of mineBlock: what mineflayer's bot.findBlocks finds (positions of one type within a
// distance, nearest first), read from state ids instead of a Block built for every position.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { Vec3 } = require('vec3')
const { findBlocksOfType } = require('../../blockpact/bridge/js/mineflayer/find_blocks')

const VERSION = '1.20.4'
const registry = require('minecraft-data')(VERSION)
const Chunk = require('prismarine-chunk')(VERSION)

// A bot in a world of 3 x 3 chunk columns: a stone floor, dirt scattered over it and deep below.
function botInWorld (dirt) {
  const columns = new Map()
  const key = (x, z) => `${x},${z}`
  for (let x = -1; x <= 1; x++) for (let z = -1; z <= 1; z++) columns.set(key(x, z), new Chunk({ minY: -64, worldHeight: 384 }))
  const column = (pos) => columns.get(key(pos.x >> 4, pos.z >> 4))
  const local = (pos) => new Vec3(pos.x & 15, pos.y, pos.z & 15)
  const set = (pos, name) => column(pos).setBlockStateId(local(pos), registry.blocksByName[name].defaultState)
  for (let x = -16; x < 32; x++) for (let z = -16; z < 32; z++) set(new Vec3(x, 63, z), 'stone')
  for (const pos of dirt) set(pos, 'dirt')
  return {
    registry,
    game: { minY: -64, height: 384 },
    entity: { position: new Vec3(3.5, 64, 4.5) },
    world: { getColumn: (x, z) => columns.get(key(x, z)), getBlockStateId: (pos) => column(pos).getBlockStateId(local(pos)) }
  }
}

test('blocks of one type within the distance, nearest first, at most count; none of other types', () => {
  const dirt = [new Vec3(10, 64, 4), new Vec3(3, 64, 6), new Vec3(-15, 63, -15), new Vec3(3, -40, 4), new Vec3(20, 70, 20)]
  const bot = botInWorld(dirt)
  const id = registry.blocksByName.dirt.id
  const here = new Vec3(3, 64, 4)
  const expected = dirt.filter(p => p.distanceTo(here) <= 32).sort((a, b) => a.distanceTo(here) - b.distanceTo(here))
  assert.deepEqual(findBlocksOfType(bot, id, 32, 256).map(p => p.toArray()), expected.map(p => p.toArray()))
  assert.deepEqual(findBlocksOfType(bot, id, 32, 1).map(p => p.toArray()), [[3, 64, 6]])
  assert.deepEqual(findBlocksOfType(bot, registry.blocksByName.iron_ore.id, 32, 256), [])
  assert.equal(findBlocksOfType(bot, id, 32, 256).length, 4) // all but (3, -40, 4), 104 blocks down
})
