'use strict'
// Where the blocks of some types are around a point, nearest first, ties by x, then y, then z (the simulator's
// order, worlds/state.py find_blocks, so that both backends pick the same block of equally near ones).
// mineflayer's bot.findBlocks builds a full Block (with its biome and block entity) for every position of every
// chunk section that might hold the type, and a section of one block only (air, a stone layer: most of a flat
// world) has no palette to rule it out: a search within 32 blocks read about 400,000 positions. With 32 bots
// digging that was 63% of Node's main thread (bench/live_scale.py), the thread that walks every bot and answers
// the server's keep-alives; in a Cleanup episode each of the harvester's searches blocked it for ~0.1-0.2 s.
// Here a one-block section costs one check and any other position one read from its section.
const { Vec3 } = require('vec3')

// stateId -> whether it is a state of one of `blockIds`; null when the registry has no state ids for one of them
// (versions before 1.13).
function stateMatcher (registry, blockIds) {
  const ranges = []
  for (const id of blockIds) {
    const type = registry.blocks[id]
    if (type?.minStateId === undefined) return null
    ranges.push([type.minStateId, type.maxStateId])
  }
  if (ranges.length === 1) {
    const [[lo, hi]] = ranges
    return (stateId) => stateId >= lo && stateId <= hi
  }
  return (stateId) => ranges.some(([lo, hi]) => stateId >= lo && stateId <= hi)
}

// The one state every position of `section` holds, or undefined when it holds several.
function singleState (section) {
  if (section.palette) return section.palette.length === 1 ? section.palette[0] : undefined
  return section.data?.value // prismarine-chunk's SingleValueContainer (1.18+)
}

// Positions one answer can hold: past maxMessageBytes (1 MiB of JSON, about 20 bytes a position) no answer crosses.
const MAX_COUNT = 50000

// How far p is from the 16 positions lo..lo+15 along one axis.
const gap = (p, lo) => (p < lo ? lo - p : p > lo + 15 ? p - lo - 15 : 0)

// The `count` nearest of `found`, in the simulator's order.
function nearest (found, count) {
  found.sort((a, b) => a.d2 - b.d2 || a.pos.x - b.pos.x || a.pos.y - b.pos.y || a.pos.z - b.pos.z)
  return found.slice(0, count)
}

// Positions of blocks of the types `blockIds` within maxDistance of `point`'s block, nearest first, at most
// `count` (and MAX_COUNT); null when the registry has no state ids for a type: then use mineflayer's bot.findBlocks.
// The host does this work for a program's query on Node's main thread, which every bot shares: only the columns
// the bot has loaded are read (a maxDistance of 1e6 once meant 10^10 columns to look up, and a wedged runtime), the
// sections nearest first, and none farther than the count-th nearest match found so far.
function findBlocksOfTypes (bot, blockIds, maxDistance, count, point = bot.entity.position) {
  const matches = stateMatcher(bot.registry, blockIds)
  if (!matches) return null
  const here = point.floored()
  const { minY, height } = bot.game
  const limit = Math.max(1, Math.min(Math.floor(count) || 1, MAX_COUNT))
  const sections = []
  for (const { chunkX, chunkZ, column } of bot.world.getColumns()) {
    const cx = Number(chunkX)
    const cz = Number(chunkZ)
    for (let s = 0; s < height >> 4; s++) {
      const section = column?.sections[s]
      if (!section) continue
      const y0 = minY + s * 16
      const near = gap(here.x, cx * 16) ** 2 + gap(here.y, y0) ** 2 + gap(here.z, cz * 16) ** 2
      if (near > maxDistance * maxDistance) continue
      const single = singleState(section)
      if (single !== undefined ? !matches(single) : section.palette && !section.palette.some(matches)) continue
      sections.push({ near, cx, cz, y0, section, single })
    }
  }
  sections.sort((a, b) => a.near - b.near)
  let found = []
  let bound = maxDistance * maxDistance // the count-th nearest match's distance, once `limit` are found
  const local = { x: 0, y: 0, z: 0 } // a position in its section, as section.get reads it
  for (const { near, cx, cz, y0, section, single } of sections) {
    if (near > bound) break
    for (local.y = 0; local.y < 16; local.y++) {
      const dy = y0 + local.y - here.y
      for (local.z = 0; local.z < 16; local.z++) {
        const dz = cz * 16 + local.z - here.z
        for (local.x = 0; local.x < 16; local.x++) {
          const dx = cx * 16 + local.x - here.x
          const d2 = dx * dx + dy * dy + dz * dz
          if (d2 <= bound && (single !== undefined || matches(section.get(local)))) {
            found.push({ d2, pos: new Vec3(here.x + dx, here.y + dy, here.z + dz) })
          }
        }
      }
    }
    if (found.length >= limit) {
      found = nearest(found, limit)
      bound = found[limit - 1].d2
    }
  }
  return nearest(found, limit).map(f => f.pos)
}

// Makes bot.findBlocks (and so bot.findBlock, and the plugins that call them) use findBlocksOfTypes when it is
// asked for block ids without extra info; other searches (a matching function, useExtraInfo) go to mineflayer's.
function installFastFindBlocks (bot) {
  const mineflayers = bot.findBlocks
  bot.findBlocks = (options) => {
    const ids = Array.isArray(options.matching) ? options.matching : [options.matching]
    if (!options.useExtraInfo && ids.every(Number.isInteger)) {
      const found = findBlocksOfTypes(bot, ids, options.maxDistance || 16, options.count || 1, options.point ?? bot.entity.position)
      if (found) return found
    }
    return mineflayers(options)
  }
}

module.exports = { findBlocksOfTypes, installFastFindBlocks, MAX_COUNT }
