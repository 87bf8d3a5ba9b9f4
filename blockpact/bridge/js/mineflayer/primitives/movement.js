'use strict'
// moveTo, and the host call behind exploreUntil (whose callback stays in the sandbox, see prelude.js).
const { goals } = require('mineflayer-pathfinder')
const { asVec3, goto, sleep } = require('./common')
const { formatPosition } = require('../feedback')

const uses = {
  moveTo: { errors: ['No path to the goal!', 'I could not get to', 'position for moveTo must be a Vec3'] },
  exploreUntil: { feedback: ['I cannot explore further towards'] }
}

async function moveTo (ctx, position, radius = 1) {
  const target = asVec3(position)
  if (!target) throw ctx.fail('position for moveTo must be a Vec3')
  try {
    await goto(ctx, new goals.GoalNear(target.x, target.y, target.z, Number.isFinite(radius) && radius >= 0 ? radius : 1))
  } catch (err) {
    if (err.name === 'Cancelled') throw err
    // A path that was found but not walked within its bound is not "no path": the program is told which.
    if (err.seconds !== undefined) throw ctx.fail('I could not get to', { position: formatPosition(target), seconds: err.seconds })
    throw ctx.fail('No path to the goal!')
  }
  return ctx.bot.entity.position.floored()
}

// One exploration step: walk towards direction for settings.exploreStep seconds. Returns whether
// the bot got anywhere; a bot that cannot move says so.
async function exploreStep (ctx, direction) {
  const { bot, settings } = ctx
  const from = bot.entity.position.clone()
  const dx = Math.sign(direction?.x ?? 0)
  const dz = Math.sign(direction?.z ?? 0)
  const stride = settings.exploreStride
  bot.pathfinder.setGoal(new goals.GoalNearXZ(from.x + dx * stride, from.z + dz * stride, 1))
  try {
    await sleep(ctx, settings.exploreStep * 1000)
  } finally {
    bot.pathfinder.setGoal(null)
  }
  const moved = bot.entity.position.distanceTo(from)
  if (moved < 0.5) {
    ctx.say('I cannot explore further towards', { direction: formatPosition({ x: dx, y: 0, z: dz }) })
    return false
  }
  return true
}

module.exports = { uses, primitives: { moveTo }, hostCalls: { exploreStep: { messagesOf: 'exploreUntil', run: exploreStep } } }
