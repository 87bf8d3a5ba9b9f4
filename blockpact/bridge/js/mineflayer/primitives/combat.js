'use strict'
// killMob: follow the nearest mob of that name and hit it until it is gone (no pvp plugin is
// installed, so this is a plain follow-and-attack loop at the vanilla attack cooldown).
const { goals } = require('mineflayer-pathfinder')
const { sleep } = require('./common')

const uses = { killMob: { feedback: ['No {mobName} nearby', 'Killed'] } }
const ATTACK_EVERY_MS = 625 // a sword's cooldown
const ATTACK_REACH = 3

async function killMob (ctx, mobName, timeout = 300) {
  const { bot, settings } = ctx
  const entity = bot.nearestEntity(e => e.name === mobName && e.position.distanceTo(bot.entity.position) < settings.searchRadius)
  if (!entity) {
    ctx.say('No {mobName} nearby', { mobName })
    return false
  }
  const deadline = Date.now() + Number(timeout) * 1000
  bot.pathfinder.setGoal(new goals.GoalFollow(entity, 1), true)
  try {
    while (entity.isValid && bot.entities[entity.id] && Date.now() < deadline) {
      if (entity.position.distanceTo(bot.entity.position) <= ATTACK_REACH) bot.attack(entity)
      await sleep(ctx, ATTACK_EVERY_MS)
    }
  } finally {
    bot.pathfinder.setGoal(null)
  }
  if (entity.isValid && bot.entities[entity.id]) return false
  ctx.say('Killed', { mobName })
  return true
}

module.exports = { uses, primitives: { killMob } }
