'use strict'
// What a survival player gets for breaking a block. Drops go straight into the digger's
// inventory (overflow falls as an item entity): flying-squid sends 1.20.2+ item entities
// without their item metadata, so a bot could not tell what lies on the ground.

const fs = require('fs')
const path = require('path')
const { DROPS, stream } = require('./rng')

// The default drop tables, the file the simulator and the step API read too (blockpact/worlds/spec/drop_tables.py):
// {block: {item, counts, weights}}, keys starting with '_' are comments. A world master sends each
// world's tables (these merged under the world's own) through setDrops; these cover a server without one.
const DROPS_FILE = path.join(__dirname, '..', '..', '..', '..', 'worlds', 'data', 'drops.json')

function defaultRules (file = DROPS_FILE) {
  const raw = JSON.parse(fs.readFileSync(file, 'utf8'))
  return new Map(Object.entries(raw).filter(([block]) => !block.startsWith('_'))
    .map(([block, { item, counts, weights }]) => [block, [{ item, counts: counts ?? [1], weights: weights ?? (counts ?? [1]).map((_, i, all) => 1 / all.length) }]]))
}

// The count a uniform u picks: the first whose cumulative weight exceeds u, the last past them all: the walk
// of the simulator and the step API (Drop.count_at, the kernel's drop_cdf). Weights not summing to 1 (from
// a caller other than the world master) are scaled to.
function countAt ({ counts, weights }, u) {
  const total = weights.reduce((a, b) => a + b, 0)
  const scale = Math.abs(total - 1) > 1e-6 ? total : 1
  let edge = 0
  for (let i = 0; i < counts.length - 1; i++) {
    edge += weights[i] / scale
    if (u < edge) return Math.max(0, counts[i])
  }
  return Math.max(0, counts[counts.length - 1])
}

// A drop given as {item, min, max} as the table it means: every count in min..max equally likely.
function asTable (drop) {
  if (drop.counts) return drop
  const counts = Array.from({ length: Math.max(drop.max - drop.min + 1, 1) }, (_, i) => drop.min + i)
  return { item: drop.item, counts, weights: counts.map(() => 1 / counts.length) }
}

// A drop table's count is the next draw of the counter-based stream (seed, DROPS), as in the simulator for
// an episode's seed (the world master sends it through resetDrops).
function dropRules (serv, tools, seed, dropsFile = DROPS_FILE) {
  const { registry } = serv
  let rules, draws, harvest
  reset(seed)

  // flying-squid's digging reads blockLoot[name].drops for every block and throws for blocks
  // minecraft-data has no loot for (short_grass, bedrock...), leaving them unbreakable.
  for (const block of registry.blocksArray) registry.blockLoot[block.name] ??= { block: block.name, drops: [] }

  // Back to the default tables and minecraft-data's harvest rules (an earlier world's are forgotten), the
  // stream restarted for `newSeed`.
  function reset (newSeed) {
    rules = defaultRules(dropsFile)
    harvest = new Map()
    draws = stream(newSeed ?? 0, DROPS)
  }

  // Overrides a block's drops: [{item, min, max}], count uniform in min..max, negatives give none;
  // or [{item, counts, weights}], one of counts drawn with weights.
  function setDrops (blockName, drops) {
    if (!registry.blocksByName[blockName]) throw new Error(`unknown block '${blockName}'`)
    for (const { item, counts, weights } of drops) {
      tools.itemType(item)
      if (counts && (!Array.isArray(weights) || weights.length !== counts.length || !(weights.reduce((a, b) => a + b, 0) > 0))) {
        throw new Error(`drops of ${blockName}: weights must be positive numbers, one per count`)
      }
    }
    rules.set(blockName, drops.map(asTable))
  }

  // Only `toolNames` harvest the block from now on (none: anything, a bare hand too), replacing
  // minecraft-data's rule: a world's [harvest] rule (rules.can_harvest).
  function setHarvest (blockName, toolNames) {
    if (!registry.blocksByName[blockName]) throw new Error(`unknown block '${blockName}'`)
    if (!Array.isArray(toolNames)) throw new Error(`harvest rule of ${blockName}: tools must be a list of item names`)
    harvest.set(blockName, new Set(toolNames.map(name => tools.itemType(name).id)))
  }

  function canHarvest (block, held) {
    const rule = harvest.get(block.name)
    if (rule) return rule.size === 0 || Boolean(held && rule.has(held.type))
    return !block.harvestTools || Boolean(held && block.harvestTools[held.type])
  }

  // [{name, count}] for breaking block with held (null for bare hands): the block's table, else one of each
  // item minecraft-data's block list says it drops, the rule of the simulator and step API (mcdata.Block.drops).
  function dropsFor (block, held) {
    if (!canHarvest(block, held)) return []
    const rule = rules.get(block.name)
    if (rule) {
      return rule.map(drop => ({ name: drop.item, count: countAt(drop, draws.next()) }))
        .filter(drop => drop.count > 0)
    }
    const ids = new Set(registry.blocksByName[block.name].drops ?? [])
    return [...ids].filter(id => id !== 0 && registry.items[id]).map(id => ({ name: registry.items[id].name, count: 1 }))
  }

  return { dropsFor, setDrops, setHarvest, reset, canHarvest }
}

// Blocks whose dig is being completed right now: "x,y,z" -> the player completing it (shared by every player of the server).
const completing = new Map()

// Gives survival diggers their drops (and a broken chest's contents) instead of item entities,
// and journals the dig and what it yielded. flying-squid completes a dig with the block it saw when the
// dig started: two players finishing the same block would both get its drops. Only the first does; the
// other's dig is cancelled (its client is told the block is gone), and each hears which it was (`verdicts`:
// dig_verdicts.js).
function attachDigging (player, serv, tools, drops, chests, log, verdicts) {
  const itemEntity = serv.registry.entitiesByName.item.id
  const keyOf = (p) => `${p.x},${p.y},${p.z}`
  player.on('dug_cancel', async (data, cancel) => {
    const key = keyOf(data.position)
    // Cancelled without flying-squid's own cancel behaviour, which would show the digger the old block again.
    const refuse = async (lostTo) => {
      data.blockpactLostTo = lostTo
      cancel(false)
      const now = await player.world.getBlock(data.position)
      player.sendBlock(data.position, now?.stateId ?? 0)
    }
    if (completing.has(key)) return refuse(completing.get(key))
    completing.set(key, player.username)
    data.blockpactCompleting = key
    const now = await player.world.getBlock(data.position)
    if (now?.type !== data.block.type) return refuse()
  })
  player.on('dug_done', (data) => {
    if (data.blockpactCompleting) completing.delete(data.blockpactCompleting)
  })
  // The digger hears "won" after its drops are in its inventory (one connection keeps the packets' order), so a
  // program that reads its inventory when mineBlock returns sees them; still within this handler, so before the
  // block change goes out.
  player.on('dug', (data, cancelled) => {
    if (cancelled) return verdicts.judged(player, data.position, true, data.blockpactLostTo)
    try {
      giveDrops(data)
    } finally {
      verdicts.judged(player, data.position, false)
    }
  })
  function giveDrops (data) {
    if (player.world === serv.overworld) log.block(data.position, data.block.name, 'air', player.username, 'dig')
    if (player.gameMode !== 0 || !data.dropBlock) return
    data.dropBlock = false
    const held = player.inventory.slots[36 + player.heldItemSlot]
    const items = [
      ...drops.dropsFor(data.block, held).map(({ name, count }) => tools.make(name, count)),
      ...chests.forget(data.position)
    ]
    for (const item of items) {
      const left = tools.addToPlayer(player, item)
      if (left > 0) {
        serv.spawnObject(itemEntity, player.world, data.position.offset(0.5, 0.5, 0.5), {
          itemId: item.type, itemCount: left, pickupTime: 500, deathTime: 5 * 60 * 1000
        })
      }
    }
    log.syncInventory(player, `dig:${data.block.name}`)
  }
}

module.exports = { dropRules, attachDigging, defaultRules, DROPS_FILE }
