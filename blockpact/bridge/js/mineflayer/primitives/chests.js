'use strict'
// getItemFromChest, depositItemIntoChest, checkItemInsideChest. Every chest the bot opens is
// remembered (contents after closing) for the observation.
const { goals } = require('mineflayer-pathfinder')
const { asVec3, checkCancelled, goto, countOf, tally } = require('./common')
const { bounded, boundSeconds } = require('./bounds')
const { formatPosition } = require('../feedback')
const { takeTurn, cellOf, standOn } = require('../lockstep')

const CHEST_ERRORS = ['No chest at', 'No path to the goal!', 'chestPosition for']
const BUSY = 'The chest at {position} is busy'
const uses = {
  getItemFromChest: { feedback: ['No item named', "I don't see", 'Not enough {name} in chest.', BUSY], errors: CHEST_ERRORS },
  depositItemIntoChest: { feedback: ['No item named', 'No {name} in inventory', 'Not enough {name} in inventory.', BUSY], errors: CHEST_ERRORS },
  checkItemInsideChest: { feedback: [BUSY], errors: CHEST_ERRORS }
}

// Opens the chest within its bound; a window the server opens after the bound is closed when it comes.
async function openChest (ctx, block) {
  const { bot } = ctx
  const seconds = boundSeconds(ctx.settings)
  let late = false
  const closeLate = (window) => { if (late) bot.closeWindow(window) }
  try {
    return await bounded('opening the chest', seconds, () => bot.openContainer(block))
  } catch (err) {
    if (err.name !== 'Bounded') throw err
    late = true
    bot.once('windowOpen', closeLate)
    setTimeout(() => bot.removeListener('windowOpen', closeLate), 60000).unref?.()
    throw err
  }
}

// Walks to the chest and opens it; runs use(chest) and closes it, remembering its contents. A chest
// that does not open, or a transfer the server does not answer, within its bound is "busy": said in
// feedback, and the primitive returns what it moved before (use fills `done`) so the program goes on.
async function withChest (ctx, position, use) {
  const { bot } = ctx
  const pos = asVec3(position)?.floored()
  if (!pos) throw ctx.fail('chestPosition for')
  const block = bot.blockAt(pos)
  if (block?.name !== 'chest') throw ctx.fail('No chest at', { position: formatPosition(pos), block: block?.name ?? 'unloaded' })
  const resource = `chest:${pos.x},${pos.y},${pos.z}`
  const stand = ctx.world.lockstep?.plannedStand(bot.username, 'chest', resource) // lockstep.js
  try {
    await goto(ctx, stand ? standOn(stand) : new goals.GoalLookAtBlock(pos, bot.world))
  } catch (err) {
    checkCancelled(ctx)
    throw ctx.fail('No path to the goal!')
  }
  const turn = await takeTurn(ctx, 'chest', resource) // lockstep's (lockstep.js)
  checkCancelled(ctx)
  const done = {}
  const busy = (err) => {
    checkCancelled(ctx)
    if (err.name !== 'Bounded') throw err
    ctx.say(BUSY, { position: formatPosition(pos), reason: err.message })
    return done
  }
  let chest
  try {
    chest = await openChest(ctx, block)
  } catch (err) {
    turn.done(cellOf(pos), false)
    return busy(err)
  }
  const stop = () => chest.close()
  const unwatch = ctx.world.witness?.chestOpened(bot.username, bot, pos, chest) // on servers without the plugin
  ctx.abort.addEventListener('abort', stop, { once: true })
  try {
    return await use(chest, done)
  } catch (err) {
    return busy(err)
  } finally {
    unwatch?.()
    ctx.abort.removeEventListener('abort', stop)
    const items = tally(chest.containerItems())
    ctx.memory.chests.set(`${pos.x},${pos.y},${pos.z}`, items)
    const seen = Object.fromEntries(Object.entries(items).sort(([a], [b]) => a < b ? -1 : 1))
    ctx.world.record(bot.username, 'chest_seen', { pos: [pos.x, pos.y, pos.z], items: seen }) // as the simulator's event
    chest.close()
    turn.done(cellOf(pos))
  }
}

// name -> count moved, for each requested item the checks allow (as the simulator: all or nothing per item).
async function transfer (ctx, items, source, move, notEnough, moved) {
  const { bot } = ctx
  for (const [name, count] of Object.entries(items ?? {})) {
    checkCancelled(ctx)
    const item = bot.registry.itemsByName[name]
    const have = item ? source(name) : 0
    if (!item) ctx.say('No item named', { name })
    else if (have === 0) ctx.say(notEnough[0], { name })
    else if (have < count) ctx.say(notEnough[1], { name })
    else {
      await bounded(`moving ${count} ${name}`, boundSeconds(ctx.settings, { seconds: count / 64 }), () => move(item.id, count))
      moved[name] = count
    }
  }
  return moved
}

function getItemFromChest (ctx, chestPosition, itemsToGet) {
  return withChest(ctx, chestPosition, (chest, moved) => transfer(ctx, itemsToGet,
    name => tally(chest.containerItems())[name] ?? 0,
    (id, count) => chest.withdraw(id, null, count),
    ["I don't see", 'Not enough {name} in chest.'], moved))
}

function depositItemIntoChest (ctx, chestPosition, itemsToDeposit) {
  return withChest(ctx, chestPosition, (chest, moved) => transfer(ctx, itemsToDeposit,
    name => countOf(ctx.bot, name),
    (id, count) => chest.deposit(id, null, count),
    ['No {name} in inventory', 'Not enough {name} in inventory.'], moved))
}

function checkItemInsideChest (ctx, chestPosition) {
  return withChest(ctx, chestPosition, async chest => tally(chest.containerItems()))
}

module.exports = { uses, primitives: { getItemFromChest, depositItemIntoChest, checkItemInsideChest } }
