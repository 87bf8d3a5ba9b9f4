'use strict'
// The block search of mineBlock and of bot.findBlocks: what mineflayer's finds (positions of some types within a
// distance, nearest first; ties in the simulator's order), read from state ids instead of a Block built for every
// position, with sections of one block checked once.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { Vec3 } = require('vec3')
const { findBlocksOfTypes, installFastFindBlocks, MAX_COUNT } = require('../../blockpact/bridge/js/mineflayer/find_blocks')

const VERSION = '1.20.4'
const registry = require('minecraft-data')(VERSION)
const Chunk = require('prismarine-chunk')(VERSION)

// A bot in a world of 3 x 3 chunk columns: a stone floor, dirt scattered over it and deep below.
function botInWorld (dirt, fill = []) {
  const columns = new Map()
  const key = (x, z) => `${x},${z}`
  for (let x = -1; x <= 1; x++) for (let z = -1; z <= 1; z++) columns.set(key(x, z), new Chunk({ minY: -64, worldHeight: 384 }))
  const column = (pos) => columns.get(key(pos.x >> 4, pos.z >> 4))
  const local = (pos) => new Vec3(pos.x & 15, pos.y, pos.z & 15)
  const set = (pos, name) => column(pos).setBlockStateId(local(pos), registry.blocksByName[name].defaultState)
  for (let x = -16; x < 32; x++) for (let z = -16; z < 32; z++) set(new Vec3(x, 63, z), 'stone')
  for (const pos of dirt) set(pos, 'dirt')
  for (const [lo, name] of fill) { // a whole section of one block, as a server sends it: one value, no palette
    const sections = column(lo).sections
    const Section = sections[0].constructor
    sections[(lo.y + 64) >> 4] = new Section({ singleValue: registry.blocksByName[name].defaultState })
  }
  return {
    registry,
    game: { minY: -64, height: 384 },
    entity: { position: new Vec3(3.5, 64, 4.5) },
    world: {
      getColumn: (x, z) => columns.get(key(x, z)),
      getColumns: () => [...columns].map(([at, chunk]) => ({ chunkX: at.split(',')[0], chunkZ: at.split(',')[1], column: chunk })),
      getBlockStateId: (pos) => column(pos).getBlockStateId(local(pos))
    }
  }
}

test('blocks of one type within the distance, nearest first, at most count; none of other types', () => {
  const dirt = [new Vec3(10, 64, 4), new Vec3(3, 64, 6), new Vec3(-15, 63, -15), new Vec3(3, -40, 4), new Vec3(20, 70, 20)]
  const bot = botInWorld(dirt)
  const id = registry.blocksByName.dirt.id
  const here = new Vec3(3, 64, 4)
  const expected = dirt.filter(p => p.distanceTo(here) <= 32).sort((a, b) => a.distanceTo(here) - b.distanceTo(here))
  assert.deepEqual(findBlocksOfTypes(bot, [id], 32, 256).map(p => p.toArray()), expected.map(p => p.toArray()))
  assert.deepEqual(findBlocksOfTypes(bot, [id], 32, 1).map(p => p.toArray()), [[3, 64, 6]])
  assert.deepEqual(findBlocksOfTypes(bot, [registry.blocksByName.iron_ore.id], 32, 256), [])
  assert.equal(findBlocksOfTypes(bot, [id], 32, 256).length, 4) // all but (3, -40, 4), 104 blocks down
})

test('a section of the one block searched for is found whole; other one-block sections are skipped', () => {
  const bot = botInWorld([new Vec3(3, 64, 6)], [[new Vec3(0, 80, 0), 'dirt'], [new Vec3(16, 80, 0), 'stone']])
  const here = new Vec3(3, 64, 4)
  const column = bot.world.getColumn(0, 0)
  assert.equal(column.sections[(80 + 64) >> 4].palette, undefined) // what made every position of it a read before
  const found = findBlocksOfTypes(bot, [registry.blocksByName.dirt.id], 20, 10000)
  const expected = [new Vec3(3, 64, 6)]
  for (let x = 0; x < 16; x++) for (let y = 80; y < 96; y++) for (let z = 0; z < 16; z++) expected.push(new Vec3(x, y, z))
  const near = expected.filter(p => p.distanceSquared(here) <= 400)
  assert.equal(found.length, near.length)
  assert.deepEqual(new Set(found.map(String)), new Set(near.map(String)))
  for (let i = 1; i < found.length; i++) assert.ok(found[i - 1].distanceSquared(here) <= found[i].distanceSquared(here))
})

test('equally near blocks come in the order of their x, then y, then z, as on the simulator', () => {
  const dirt = [new Vec3(5, 64, 4), new Vec3(3, 64, 6), new Vec3(1, 64, 4), new Vec3(3, 64, 2), new Vec3(3, 66, 4)]
  const bot = botInWorld(dirt)
  assert.deepEqual(findBlocksOfTypes(bot, [registry.blocksByName.dirt.id], 8, 10).map(p => p.toArray()),
    [[1, 64, 4], [3, 64, 2], [3, 64, 6], [3, 66, 4], [5, 64, 4]])
})

test('bot.findBlocks: block ids go to the fast search (several types at once); a matching function to mineflayer', () => {
  const bot = botInWorld([new Vec3(3, 64, 6)])
  const asked = []
  bot.findBlocks = (options) => { asked.push(options); return ['mineflayer'] }
  installFastFindBlocks(bot)
  const [dirt, stone, iron] = ['dirt', 'stone', 'iron_ore'].map(name => registry.blocksByName[name].id)
  assert.deepEqual(bot.findBlocks({ matching: dirt, maxDistance: 4 }).map(p => p.toArray()), [[3, 64, 6]])
  assert.deepEqual(bot.findBlocks({ matching: [iron, dirt], maxDistance: 4, count: 5 }).map(p => p.toArray()), [[3, 64, 6]])
  assert.deepEqual(bot.findBlocks({ matching: [dirt, stone], maxDistance: 4, count: 2 }).map(p => p.toArray()), [[3, 63, 4], [2, 63, 4]])
  assert.deepEqual(bot.findBlocks({ matching: (block) => block.name === 'dirt' }), ['mineflayer'])
  assert.deepEqual(bot.findBlocks({ matching: dirt, useExtraInfo: true }), ['mineflayer'])
  assert.equal(asked.length, 2)
})

test('a search of every block id over a huge distance reads only the loaded columns and keeps at most MAX_COUNT', () => {
  const bot = botInWorld([new Vec3(3, 64, 6)])
  const every = Array.from({ length: 1000 }, (_, i) => i) // air too: every position of the 9 columns matches
  const started = performance.now()
  const found = findBlocksOfTypes(bot, every, 1e6, 1e6)
  assert.ok(performance.now() - started < 5000, 'the search took seconds') // it once looked up 10^10 columns
  assert.equal(found.length, MAX_COUNT)
  const here = new Vec3(3, 64, 4)
  for (let i = 1; i < found.length; i++) assert.ok(found[i - 1].distanceSquared(here) <= found[i].distanceSquared(here))
  assert.deepEqual(findBlocksOfTypes(bot, every, 1e6, 3).map(p => p.toArray()), [[3, 64, 4], [2, 64, 4], [3, 63, 4]])
  assert.deepEqual(findBlocksOfTypes(bot, [registry.blocksByName.dirt.id], 1e6, 1e6).map(p => p.toArray()), [[3, 64, 6]])
})
