'use strict'
// The observation a ProgramResult carries, read from the real bot (see bridge/protocols.py).
const { tally } = require('./primitives/common')

function nearbyBlocks (bot, radius) {
  const counts = {}
  const centre = bot.entity.position.floored()
  for (let dx = -radius; dx <= radius; dx++) {
    for (let dy = -radius; dy <= radius; dy++) {
      for (let dz = -radius; dz <= radius; dz++) {
        const block = bot.blockAt(centre.offset(dx, dy, dz), false)
        if (block && block.name !== 'air' && block.name !== 'cave_air' && block.name !== 'void_air') counts[block.name] = (counts[block.name] ?? 0) + 1
      }
    }
  }
  return counts
}

function nearbyEntities (bot, radius) {
  const here = bot.entity.position
  return Object.values(bot.entities)
    .filter(e => e !== bot.entity && e.position.distanceTo(here) <= radius)
    .map(e => ({ name: e.username ?? e.name, type: e.type, position: e.position.toArray(), distance: Math.round(e.position.distanceTo(here) * 10) / 10 }))
    .sort((a, b) => a.distance - b.distance)
}

// chests: Map "x,y,z" -> {item: count}, the contents this bot saw last.
function observe (bot, { radius, chests }) {
  const p = bot.entity.position
  return {
    position: [p.x, p.y, p.z],
    inventory: tally(bot.inventory.items()),
    held: bot.heldItem?.name ?? null,
    health: bot.health,
    time: Number(bot.time.age) / 20,
    nearby_blocks: nearbyBlocks(bot, radius),
    nearby_entities: nearbyEntities(bot, radius),
    chests: Object.fromEntries(chests)
  }
}

module.exports = { observe }
