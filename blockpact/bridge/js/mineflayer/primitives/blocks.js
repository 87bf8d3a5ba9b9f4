'use strict'
// mineBlock (mineflayer-collectblock, tools chosen by mineflayer-tool) and placeItem.
const { goals } = require('mineflayer-pathfinder')
const { Vec3 } = require('vec3')
const { asVec3, checkCancelled, goto, countOf } = require('./common')
const { formatPosition } = require('../feedback')

const uses = {
  mineBlock: {
    feedback: ['No {name} nearby', 'I cannot mine', '{name} at {position} was mined'],
    errors: ['No block named', 'count for mineBlock']
  },
  placeItem: {
    feedback: ['No {name} in inventory', 'Placed {name}', 'Error placing'],
    errors: ['No item named', 'position for placeItem']
  }
}

const FACES = [new Vec3(0, 1, 0), new Vec3(0, -1, 0), new Vec3(1, 0, 0), new Vec3(-1, 0, 0), new Vec3(0, 0, 1), new Vec3(0, 0, -1)]
const keyOf = (p) => `${p.x},${p.y},${p.z}`

// The tool the bot would mine with, for the "cannot mine" message.
function toolName (bot) {
  const tool = bot.inventory.items().find(item => /_(pickaxe|axe|shovel|hoe)$/.test(item.name))
  return tool ? tool.name : 'my bare hands'
}

function canHarvest (bot, block) {
  if (!block.harvestTools) return true
  return bot.inventory.items().some(item => block.harvestTools[item.type])
}

// Digs the block at pos (walking there first); 'mined', 'gone' (someone else got it) or 'failed'.
async function collectOne (ctx, pos, type, name) {
  const { bot } = ctx
  let dugHere = false
  const onDug = (block) => { if (block.position.equals(pos)) dugHere = true }
  bot.on('diggingCompleted', onDug)
  const stop = () => { bot.collectBlock.cancelTask().catch(() => {}); bot.stopDigging() }
  ctx.abort.addEventListener('abort', stop, { once: true })
  bot.blockpact.digTarget = pos
  bot.blockpact.digName = name
  try {
    await bot.collectBlock.collect(bot.blockAt(pos), { ignoreNoPath: true })
  } catch (err) {
    checkCancelled(ctx)
    if (!['NoPath', 'GoalChanged', 'Timeout', 'PathStopped'].includes(err.name)) throw err
  } finally {
    bot.blockpact.digTarget = null
    bot.off('diggingCompleted', onDug)
    ctx.abort.removeEventListener('abort', stop)
  }
  checkCancelled(ctx)
  if (bot.blockAt(pos)?.type === type) return 'failed'
  if (dugHere) {
    ctx.world.dugBy.set(keyOf(pos), bot.username)
    return 'mined'
  }
  return 'gone'
}

async function mineBlock (ctx, name, count = 1) {
  const { bot, settings } = ctx
  const block = typeof name === 'string' ? bot.registry.blocksByName[name] : undefined
  if (!block) throw ctx.fail('No block named', { name })
  if (!Number.isInteger(count) || count < 1) throw ctx.fail('count for mineBlock')
  const find = () => bot.findBlocks({ matching: block.id, maxDistance: settings.searchRadius, count: 256 })
  if (find().length === 0) {
    ctx.say('No {name} nearby', { name })
    return 0
  }
  if (!canHarvest(bot, block)) {
    ctx.say('I cannot mine', { name, tool: toolName(bot) })
    return 0
  }
  let mined = 0
  let lostTo = null
  const skipped = new Set() // unreachable targets
  while (mined < count) {
    checkCancelled(ctx)
    const target = find().find(p => !skipped.has(keyOf(p)))
    if (!target) break
    const outcome = await collectOne(ctx, target, block.id, name)
    if (outcome === 'mined') mined++
    else if (outcome === 'gone') lostTo = target
    else skipped.add(keyOf(target))
  }
  if (mined < count && lostTo) {
    const rest = mined === 0 ? `no other ${name} nearby` : `I mined ${mined} of ${count}`
    const player = ctx.world.dugBy.get(keyOf(lostTo)) ?? 'someone'
    ctx.say('{name} at {position} was mined', { name, position: formatPosition(lostTo), player, rest })
  }
  return mined
}

async function placeItem (ctx, name, position) {
  const { bot } = ctx
  const itemType = typeof name === 'string' ? bot.registry.itemsByName[name] : undefined
  if (!itemType) throw ctx.fail('No item named', { name })
  const target = asVec3(position)?.floored()
  if (!target) throw ctx.fail('position for placeItem')
  if (countOf(bot, name) < 1) {
    ctx.say('No {name} in inventory', { name })
    return false
  }
  const before = countOf(bot, name)
  const placeFailed = (reason) => {
    ctx.say('Error placing', { name, reason })
    return false
  }
  const face = FACES.find(v => { const b = bot.blockAt(target.minus(v)); return b && b.boundingBox === 'block' })
  if (!face) return placeFailed(`no block next to ${formatPosition(target)} to place it against`)
  if (bot.blockAt(target)?.boundingBox === 'block') return placeFailed(`${formatPosition(target)} is not free`)
  try {
    await goto(ctx, new goals.GoalPlaceBlock(target, bot.world, { range: 4.5 }))
    await bot.equip(bot.inventory.items().find(item => item.name === name), 'hand')
    bot.blockpact.placeTarget = target
    await bot.placeBlock(bot.blockAt(target.minus(face)), face)
  } catch (err) {
    checkCancelled(ctx)
    if (countOf(bot, name) === before) return placeFailed(err.message)
  } finally {
    bot.blockpact.placeTarget = null
  }
  ctx.say('Placed {name}', { name })
  return true
}

module.exports = { uses, primitives: { mineBlock, placeItem } }
