'use strict'
// getItemFromChest, depositItemIntoChest, checkItemInsideChest. Every chest the bot opens is
// remembered (contents after closing) for the observation.
const { goals } = require('mineflayer-pathfinder')
const { asVec3, checkCancelled, goto, countOf, tally } = require('./common')
const { formatPosition } = require('../feedback')

const CHEST_ERRORS = ['No chest at', 'No path to the goal!', 'chestPosition for']
const uses = {
  getItemFromChest: { feedback: ['No item named', "I don't see", 'Not enough {name} in chest.'], errors: CHEST_ERRORS },
  depositItemIntoChest: { feedback: ['No item named', 'No {name} in inventory', 'Not enough {name} in inventory.'], errors: CHEST_ERRORS },
  checkItemInsideChest: { errors: CHEST_ERRORS }
}

// Walks to the chest and opens it; runs use(chest) and closes it, remembering its contents.
async function withChest (ctx, position, use) {
  const { bot } = ctx
  const pos = asVec3(position)?.floored()
  if (!pos) throw ctx.fail('chestPosition for')
  const block = bot.blockAt(pos)
  if (block?.name !== 'chest') throw ctx.fail('No chest at', { position: formatPosition(pos), block: block?.name ?? 'unloaded' })
  try {
    await goto(ctx, new goals.GoalLookAtBlock(pos, bot.world))
  } catch (err) {
    checkCancelled(ctx)
    throw ctx.fail('No path to the goal!')
  }
  const chest = await bot.openContainer(block)
  const stop = () => chest.close()
  const unwatch = ctx.world.witness?.chestOpened(bot.username, bot, pos, chest) // on servers without the plugin
  ctx.abort.addEventListener('abort', stop, { once: true })
  try {
    return await use(chest)
  } finally {
    unwatch?.()
    ctx.abort.removeEventListener('abort', stop)
    ctx.memory.chests.set(`${pos.x},${pos.y},${pos.z}`, tally(chest.containerItems()))
    chest.close()
  }
}

// name -> count moved, for each requested item the checks allow (as the simulator: all or nothing per item).
async function transfer (ctx, items, source, move, notEnough) {
  const { bot } = ctx
  const moved = {}
  for (const [name, count] of Object.entries(items ?? {})) {
    checkCancelled(ctx)
    const item = bot.registry.itemsByName[name]
    const have = item ? source(name) : 0
    if (!item) ctx.say('No item named', { name })
    else if (have === 0) ctx.say(notEnough[0], { name })
    else if (have < count) ctx.say(notEnough[1], { name })
    else {
      await move(item.id, count)
      moved[name] = count
    }
  }
  return moved
}

function getItemFromChest (ctx, chestPosition, itemsToGet) {
  return withChest(ctx, chestPosition, chest => transfer(ctx, itemsToGet,
    name => tally(chest.containerItems())[name] ?? 0,
    (id, count) => chest.withdraw(id, null, count),
    ["I don't see", 'Not enough {name} in chest.']))
}

function depositItemIntoChest (ctx, chestPosition, itemsToDeposit) {
  return withChest(ctx, chestPosition, chest => transfer(ctx, itemsToDeposit,
    name => countOf(ctx.bot, name),
    (id, count) => chest.deposit(id, null, count),
    ['No {name} in inventory', 'Not enough {name} in inventory.']))
}

function checkItemInsideChest (ctx, chestPosition) {
  return withChest(ctx, chestPosition, async chest => tally(chest.containerItems()))
}

module.exports = { uses, primitives: { getItemFromChest, depositItemIntoChest, checkItemInsideChest } }
