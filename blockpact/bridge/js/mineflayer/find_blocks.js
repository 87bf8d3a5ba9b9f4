'use strict'
// Where the blocks of one type are around a bot, nearest first. mineflayer's bot.findBlocks builds a full
// Block (with its biome and block entity) for every position of every chunk section whose palette holds the
// type: in a flat world with dirt in its palette, a dirt search within 32 blocks built about 200,000 of them.
// With 32 bots digging, that was 63% of Node's main thread (CPU profile, bench/live_scale.py), the thread
// that walks every bot and answers the server's keep-alives. Here a position costs one state-id read.
const { Vec3 } = require('vec3')

// Positions of blocks of type `blockId` within maxDistance of the bot's block, nearest first, at most count;
// null when the registry has no state ids for the type (versions before 1.13): then use bot.findBlocks.
function findBlocksOfType (bot, blockId, maxDistance, count) {
  const type = bot.registry.blocks[blockId]
  if (type?.minStateId === undefined) return null
  const matches = (stateId) => stateId >= type.minStateId && stateId <= type.maxStateId
  const here = bot.entity.position.floored()
  const { minY, height } = bot.game
  const reach = Math.ceil(maxDistance / 16)
  const found = []
  for (let cx = (here.x >> 4) - reach; cx <= (here.x >> 4) + reach; cx++) {
    for (let cz = (here.z >> 4) - reach; cz <= (here.z >> 4) + reach; cz++) {
      const column = bot.world.getColumn(cx, cz)
      if (!column) continue
      for (let s = 0; s < height >> 4; s++) {
        const section = column.sections[s]
        const y0 = minY + s * 16
        if (!section || y0 > here.y + maxDistance || y0 + 15 < here.y - maxDistance) continue
        if (section.palette && !section.palette.some(matches)) continue // the type is not in this section
        const pos = new Vec3(0, 0, 0)
        for (pos.x = cx * 16; pos.x < cx * 16 + 16; pos.x++) {
          for (pos.y = y0; pos.y < y0 + 16; pos.y++) {
            for (pos.z = cz * 16; pos.z < cz * 16 + 16; pos.z++) {
              if (matches(bot.world.getBlockStateId(pos)) && pos.distanceTo(here) <= maxDistance) found.push(pos.clone())
            }
          }
        }
      }
    }
  }
  return found.sort((a, b) => a.distanceTo(here) - b.distanceTo(here)).slice(0, count)
}

module.exports = { findBlocksOfType }
