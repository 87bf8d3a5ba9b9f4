'use strict'
// The harvest rule on the bots' side, as the simulator has it (blockpact/worlds/rules/game.py): which tools
// harvest a block (the world's [harvest] rule, which the world master gave the server too, else
// minecraft-data's), and the tool mineBlock names when it refuses (rules.best_tool).

// The item names that harvest `block`, or null: anything does, a bare hand too.
function harvestTools (ctx, block) {
  const rule = ctx.world.harvest?.get(block.name)
  if (rule) return rule.size ? rule : null
  if (!block.harvestTools) return null
  return new Set(Object.keys(block.harvestTools).map(id => ctx.bot.registry.items[id].name))
}

const harvests = (tools, item) => !tools || Boolean(item && tools.has(item.name))

// Whether some item in the inventory (or a bare hand) harvests `block`.
function canHarvest (ctx, block) {
  const tools = harvestTools(ctx, block)
  return !tools || ctx.bot.inventory.items().some(item => tools.has(item.name))
}

// `block` (a prismarine-block from bot.blockAt) under the world's rule for its kind: mineflayer-tool then
// equips a tool that harvests it, and mineflayer digs it as long as the simulator's rules.dig_seconds says
// (both read the block's harvestTools).
function underWorldRule (ctx, block) {
  const rule = block && ctx.world.harvest?.get(block.name)
  if (rule) {
    const ids = [...rule].map(name => ctx.bot.registry.itemsByName[name].id)
    block.harvestTools = ids.length ? Object.fromEntries(ids.map(id => [id, true])) : undefined
  }
  return block
}

// Game ticks to dig `block` with `item` (null: a hand): rules.dig_seconds, in ticks.
function digTicks (registry, block, item, harvestable) {
  if (block.hardness == null || block.hardness < 0) return Infinity
  if (block.hardness === 0) return 0
  const parts = String(block.material ?? '').split(';')
  const speed = item ? Math.max(1, ...parts.map(part => registry.materials?.[part]?.[item.type] ?? 1)) : 1
  const damage = speed / block.hardness / (harvestable ? 30 : 100)
  return damage > 1 ? 0 : Math.ceil(1 / damage)
}

// The tool the bot would dig `block` with, for "I cannot mine {name} with {tool}": of a bare hand and the
// tools in the inventory, one that harvests first, then the fastest, then by name (a bare hand first).
function toolName (ctx, block) {
  const { bot } = ctx
  const registry = bot.registry
  const toolIds = new Set(Object.values(registry.materials ?? {}).flatMap(speeds => Object.keys(speeds).map(Number)))
  const owned = new Map(bot.inventory.items().filter(item => toolIds.has(item.type)).map(item => [item.name, item]))
  const tools = harvestTools(ctx, block)
  const key = (item) => {
    const harvestable = harvests(tools, item)
    return [harvestable ? 0 : 1, digTicks(registry, block, item, harvestable), item ? item.name : '']
  }
  const before = (a, b) => a[0] - b[0] || a[1] - b[1] || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0)
  let best = null
  let bestKey = key(null)
  for (const item of owned.values()) {
    const k = key(item)
    if (before(k, bestKey) < 0) [best, bestKey] = [item, k]
  }
  return best ? best.name : 'my bare hands'
}

module.exports = { canHarvest, toolName, underWorldRule }
