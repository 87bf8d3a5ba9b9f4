'use strict'
// mineBlock (mineflayer-collectblock where drops are item entities to pick up, tools chosen by
// mineflayer-tool) and placeItem.
const { goals } = require('mineflayer-pathfinder')
const { Vec3 } = require('vec3')
const { asVec3, checkCancelled, goto, countOf } = require('./common')
const { bounded, boundSeconds } = require('./bounds')
const { untilVerdict } = require('../dig_verdicts')
const { formatPosition } = require('../feedback')
const { canHarvest, toolName, underWorldRule } = require('../harvest')
const { takeTurn, cellOf, standOn } = require('../lockstep')

const uses = {
  mineBlock: {
    feedback: ['No {name} nearby', 'I cannot mine', '{name} at {position} was mined', 'I could not mine'],
    errors: ['No block named', 'count for mineBlock']
  },
  placeItem: {
    feedback: ['No {name} in inventory', 'Placed {name}', 'Error placing'],
    errors: ['No item named', 'position for placeItem']
  }
}

const FACES = [new Vec3(0, 1, 0), new Vec3(0, -1, 0), new Vec3(1, 0, 0), new Vec3(-1, 0, 0), new Vec3(0, 0, 1), new Vec3(0, 0, -1)]
const keyOf = (p) => `${p.x},${p.y},${p.z}`
const CLAIM_MS = 2000

// Whether this bot's finished dig of pos broke the block, on a server without blockpact's plugin: the first
// bot of this runtime to finish it claims it (the server ignores a later finish of a block already broken);
// a bot finishing within CLAIM_MS of another's claim lost it. A limit: bots of other runtimes, and people,
// are not in the map, and a finish that raced theirs counts for both.
function claim (ctx, pos) {
  const held = ctx.world.dugBy.get(keyOf(pos))
  if (held && held.player !== ctx.bot.username && Date.now() - held.at < CLAIM_MS) return false
  ctx.world.dugBy.set(keyOf(pos), { player: ctx.bot.username, at: Date.now() }) // at once: a bot that lost it names who got it
  return true
}

// Digs the block at pos (walking there first): {outcome, by}. outcome: 'mined', 'gone' (`by`, or someone
// else, got it), 'failed' (no path), 'notool' (no tool that harvests it when the dig began), 'timeout' (past
// its bound: the walk, the dig and the pick-up, from the distance and the block's dig time) or 'unjudged'
// (the server never said whose dig broke it). A block that someone else breaks meanwhile ends the attempt
// at once. On the embedded server the server says whose dig broke the block (js/server/plugin/dig_verdicts.js)
// and that is the outcome; elsewhere this runtime's claim() decides.
// `stand`: in lockstep, the cell the simulated twin walked to for this block (lockstep.js), else null.
async function collectOne (ctx, pos, type, name, stand = null) {
  const { bot } = ctx
  const serverJudges = bot.blockpact.digVerdicts
  let finished = false // this bot sent "finish digging" for the block
  let claimed = false
  let verdict = null // the server's: {won, by}
  let hearVerdict = null
  let takenAway = false
  const stop = () => {
    bot.collectBlock.cancelTask().catch(() => {})
    // digInReach's walk, which collectblock's cancelTask (no task of its own) leaves going; only while the bot
    // walks a path: a stop asked of an idle pathfinder would end the next walk (common.js, walk)
    if (bot.pathfinder.isMoving()) bot.pathfinder.stop()
    if (bot.targetDigBlock) bot.stopDigging()
  }
  // In lockstep a bot that sees its block taken walks on to it, as on the simulator (whose walks are not
  // interrupted): where it stands decides which block it finds next.
  const stopUnlessWalking = () => { if (!ctx.world.lockstep?.on || bot.targetDigBlock) stop() }
  const onFinish = (position) => {
    if (!position || !pos.equals(position)) return
    finished = true
    if (!serverJudges) claimed = claim(ctx, pos)
  }
  const onVerdict = (said) => {
    if (!said.pos.equals(pos) || (verdict && (verdict.won || verdict.by))) return
    verdict = said
    hearVerdict?.()
    if (said.won) ctx.world.dugBy.set(keyOf(pos), { player: bot.username, at: Date.now() })
    else if (!finished) { // another player broke it while this bot was digging it
      takenAway = true
      stopUnlessWalking()
    }
  }
  const onUpdate = (oldBlock, newBlock) => {
    if (!newBlock || !newBlock.position.equals(pos) || newBlock.type === type) return
    // Broken, and not by this bot's own dig (it sends "finish digging" before the block changes): contention.
    if (!finished) {
      takenAway = true
      stopUnlessWalking()
    }
  }
  bot.on('blockpact:digFinished', onFinish)
  bot.on('blockpact:digVerdict', onVerdict)
  bot.on('blockUpdate', onUpdate)
  ctx.abort.addEventListener('abort', stop, { once: true })
  bot.blockpact.digTarget = pos
  bot.blockpact.digName = name
  const block = underWorldRule(ctx, bot.blockAt(pos))
  const digSeconds = block ? bot.digTime(block) / 1000 : 0
  const seconds = boundSeconds(ctx.settings, { blocks: 2 * bot.entity.position.distanceTo(pos), seconds: digSeconds + 1 })
  const step = (work) => bounded('mining', seconds, work, stop, bot) // the walk, then the dig (lockstep waits between)
  let turn = null // lockstep's (lockstep.js): taken between the walk and the dig
  const takeDigTurn = async () => {
    turn = await takeTurn(ctx, 'dig', `block:${name}`)
    checkCancelled(ctx)
    return !takenAway && bot.blockAt(pos)?.type === type // still there: dig it
  }
  let outcome = null
  try {
    if (block?.boundingBox !== 'block') await digPlant(ctx, pos, step, takeDigTurn, stand)
    else if (ctx.world.witness === null) await digInReach(ctx, block, step, takeDigTurn, stand)
    else await step(() => bot.collectBlock.collect(block, { ignoreNoPath: true }))
  } catch (err) {
    checkCancelled(ctx)
    if (err.name === 'Bounded') outcome = 'timeout'
    else if (err.name === 'NoItem') outcome = 'notool' // mineflayer-tool, without fetching (connect.js)
    else if (!['NoPath', 'GoalChanged', 'Timeout', 'PathStopped', 'Cancelled'].includes(err.name) && !takenAway) {
      turn?.done(cellOf(pos), false) // the others do not wait for a dig that ended in an error
      throw err
    }
  } finally {
    bot.blockpact.digTarget = null
    bot.off('blockpact:digFinished', onFinish)
    bot.off('blockUpdate', onUpdate)
    ctx.abort.removeEventListener('abort', stop)
  }
  try {
    if (finished && serverJudges && !verdict) { // its answer is on its way, bounded in the server's own time
      await untilVerdict(bot, new Promise(resolve => { hearVerdict = resolve }), ctx.abort)
    }
  } finally {
    bot.off('blockpact:digVerdict', onVerdict)
  }
  checkCancelled(ctx)
  const result = judged()
  turn?.done(cellOf(pos), result.outcome === 'mined')
  return result

  function judged () {
    if (finished && serverJudges) {
      if (verdict?.won) return { outcome: 'mined' }
      if (!verdict) return { outcome: 'unjudged' }
    } else if (claimed) return { outcome: 'mined' }
    // told it lost before the block's change arrives
    if (verdict?.by) return { outcome: 'gone', by: verdict.by }
    if (bot.blockAt(pos)?.type === type) return { outcome: outcome ?? 'failed' }
    return { outcome: 'gone', by: bot.blockpact.brokeBy?.get(keyOf(pos)) ?? ctx.world.dugBy.get(keyOf(pos))?.player ?? null }
  }
}

// On the embedded server blockpact's plugin puts a dig's drops straight into the digger's inventory
// (js/server/plugin/drops.js): there is nothing to pick up, and collectblock's wait of 10 physics ticks after
// every dig for item entities to appear only slowed each block by 0.5 s (the simulator charges no such wait).
// `step(work)` bounds each part; `takeTurn()` waits for lockstep's turn and says whether the block is still there.
async function digInReach (ctx, block, step, takeTurn, stand) {
  const { bot } = ctx
  await step(async () => {
    await goto(ctx, stand ? standOn(stand) : new goals.GoalLookAtBlock(block.position, bot.world))
    await bot.tool.equipForBlock(block, { requireHarvest: true })
  })
  if (bot.heldItem !== null && !block.canHarvest(bot.heldItem.type)) return // as collectblock: not dug, reported as failed
  if (await takeTurn()) await step(() => bot.dig(block))
}

// A block without a collision box (a plant, a bush): collectblock walks until it can see the block's faces,
// which such a block has none of, so it never arrives. Walk within reach and dig it instead.
async function digPlant (ctx, pos, step, takeTurn, stand) {
  const { bot } = ctx
  await step(() => goto(ctx, stand ? standOn(stand) : new goals.GoalNear(pos.x, pos.y, pos.z, 2)))
  if (await takeTurn()) await step(() => bot.dig(underWorldRule(ctx, bot.blockAt(pos)), true))
}

async function mineBlock (ctx, name, count = 1) {
  const { bot, settings } = ctx
  const block = typeof name === 'string' ? bot.registry.blocksByName[name] : undefined
  if (!block) throw ctx.fail('No block named', { name })
  if (!Number.isInteger(count) || count < 1) throw ctx.fail('count for mineBlock')
  // the block search of connect.js (find_blocks.js) for every bot it logs in
  const find = () => bot.findBlocks({ matching: block.id, maxDistance: settings.searchRadius, count: 256 })
  const look = await takeTurn(ctx, 'look', `block:${name}`) // lockstep's turn (lockstep.js), as each search below
  const present = find()
  look.done(cellOf(present[0]))
  if (present.length === 0) {
    ctx.say('No {name} nearby', { name })
    return 0
  }
  if (!canHarvest(ctx, block)) {
    ctx.say('I cannot mine', { name, tool: toolName(ctx, block) })
    return 0
  }
  let mined = 0
  let lostTo = null
  let gaveUpOn = null
  const skipped = new Set() // unreachable targets, and targets past their bound
  let noTool = false
  while (mined < count) {
    checkCancelled(ctx)
    const search = await takeTurn(ctx, 'find', `block:${name}`)
    checkCancelled(ctx)
    const target = find().find(p => !skipped.has(keyOf(p)))
    search.done(cellOf(target))
    if (!target) break
    // checked again before each block: the tool the bot had when it began may be gone
    const stand = search.entry?.stand ?? null
    const { outcome, by } = canHarvest(ctx, block) ? await collectOne(ctx, target, block.id, name, stand) : { outcome: 'notool' }
    if (outcome === 'notool') {
      noTool = true
      break
    }
    if (outcome === 'mined') mined++
    else if (outcome === 'gone') lostTo = { target, by }
    else {
      skipped.add(keyOf(target))
      if (outcome === 'timeout' || !gaveUpOn) gaveUpOn = { target, outcome }
    }
  }
  if (noTool) ctx.say('I cannot mine', { name, tool: toolName(ctx, block) })
  const rest = mined === 0 ? `no other ${name} nearby` : `I mined ${mined} of ${count}`
  if (mined < count && gaveUpOn) { // never a silent shortfall
    const reason = {
      timeout: 'it took longer than it should',
      unjudged: 'the server did not say whether my dig broke it'
    }[gaveUpOn.outcome] ?? 'I could not reach it, or it did not break'
    ctx.say('I could not mine', { name, position: formatPosition(gaveUpOn.target), reason, rest })
  }
  if (mined < count && lostTo) {
    ctx.say('{name} at {position} was mined', { name, position: formatPosition(lostTo.target), player: lostTo.by ?? 'someone', rest })
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
  let turn = null // lockstep's (lockstep.js)
  const placeFailed = (reason) => {
    ctx.say('Error placing', { name, reason })
    return false
  }
  const face = FACES.find(v => { const b = bot.blockAt(target.minus(v)); return b && b.boundingBox === 'block' })
  if (!face) return placeFailed(`no block next to ${formatPosition(target)} to place it against`)
  if (bot.blockAt(target)?.boundingBox === 'block') return placeFailed(`${formatPosition(target)} is not free`)
  try {
    await goto(ctx, new goals.GoalPlaceBlock(target, bot.world, { range: 4.5 }))
    const seconds = boundSeconds(ctx.settings)
    await bounded('equipping', seconds, () => bot.equip(bot.inventory.items().find(item => item.name === name), 'hand'))
    turn = await takeTurn(ctx, 'place', `block:${name}`)
    checkCancelled(ctx)
    bot.blockpact.placeTarget = target
    await bounded('placing', seconds, () => bot.placeBlock(bot.blockAt(target.minus(face)), face))
  } catch (err) {
    checkCancelled(ctx)
    if (countOf(bot, name) === before) {
      turn?.done(cellOf(target), false)
      return placeFailed(err.message)
    }
  } finally {
    bot.blockpact.placeTarget = null
  }
  turn?.done(cellOf(target))
  ctx.say('Placed {name}', { name })
  return true
}

module.exports = { uses, primitives: { mineBlock, placeItem } }
