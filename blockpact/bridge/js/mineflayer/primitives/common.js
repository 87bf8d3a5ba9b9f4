'use strict'
// Helpers shared by the primitives: argument checks, cancellable walking, inventory counts.
const { Vec3 } = require('vec3')
const { bounded, boundSeconds } = require('./bounds')

class Cancelled extends Error {
  constructor () {
    super('the program was stopped')
    this.name = 'Cancelled'
  }
}

// A Vec3 from a Vec3, {x, y, z} or [x, y, z]; null if it is none of those.
function asVec3 (value) {
  if (Array.isArray(value) && value.length === 3 && value.every(Number.isFinite)) return new Vec3(value[0], value[1], value[2])
  if (value && [value.x, value.y, value.z].every(Number.isFinite)) return new Vec3(value.x, value.y, value.z)
  return null
}

function checkCancelled (ctx) {
  if (ctx.abort.aborted) throw new Cancelled()
}

function walkError (name, message) {
  const err = new Error(message)
  err.name = name
  return err
}

// Sets the goal and settles when the walk ends. Unlike pathfinder.goto, a partial result that has no
// path yet (a search spread over ticks that has not got past the start) is not taken for arrival, and a
// walk that finds no path leaves the bot standing instead of walking on towards the nearest point.
// pathfinder.stop() asked while the pathfinder walks no path (collectblock's cancelTask when a dig is
// stopped: the block was taken, or its bound passed) is kept until the next goal and ends that at once
// ("PathStopped"): the next moveTo failed without walking. A goal of null first takes that stop.
function walk (bot, goal) {
  bot.pathfinder.setGoal(null)
  return new Promise((resolve, reject) => {
    const listeners = {
      goal_reached: () => settle(),
      path_update: (result) => {
        if (result.status === 'noPath') settle(walkError('NoPath', 'No path to the goal!'), true)
        else if (result.status === 'timeout') settle(walkError('Timeout', 'Took too long to decide a path to the goal'), true)
        else if (result.status === 'success' && result.path.length === 0) settle()
      },
      goal_updated: (newGoal) => { if (newGoal !== goal) settle(walkError('GoalChanged', 'The goal was changed')) },
      path_stop: () => settle(walkError('PathStopped', 'The walk was stopped'))
    }
    function settle (err, clearGoal = false) {
      for (const [event, listener] of Object.entries(listeners)) bot.removeListener(event, listener)
      // After the pathfinder's tick has finished with the result (it reads its state after the event).
      setImmediate(() => {
        if (clearGoal && bot.pathfinder.goal === goal) bot.pathfinder.setGoal(null)
        err ? reject(err) : resolve()
      })
    }
    for (const [event, listener] of Object.entries(listeners)) bot.on(event, listener)
    bot.pathfinder.setGoal(goal)
  })
}

// Where a pathfinder goal is (GoalNear and GoalBlock keep x, y, z; GoalLookAtBlock and GoalPlaceBlock pos).
function goalPosition (bot, goal) {
  if (goal.pos) return goal.pos
  const here = bot.entity.position
  return new Vec3(goal.x ?? here.x, goal.y ?? here.y, goal.z ?? here.z)
}

// Walks to a pathfinder goal; a stopped program stops the walk. A walk that has not arrived within its
// bound (from the distance, live.toml [bots] bound_*; in the bot's physics ticks) stops and fails with the
// name 'Timeout' and the bound's `seconds`.
async function goto (ctx, goal) {
  checkCancelled(ctx)
  const { bot } = ctx
  const stop = () => bot.pathfinder.stop()
  ctx.abort.addEventListener('abort', stop, { once: true })
  const blocks = bot.entity.position.distanceTo(goalPosition(bot, goal))
  const seconds = boundSeconds(ctx.settings, { blocks: blocks * 2 }) // paths wind: twice the straight line
  try {
    await bounded('the walk', seconds, () => walk(bot, goal), () => { bot.pathfinder.stop(); bot.pathfinder.setGoal(null) }, bot)
  } catch (err) {
    if (err.name === 'Bounded') throw Object.assign(walkError('Timeout', `I could not get there within ${seconds} s`), { seconds })
    throw err
  } finally {
    ctx.abort.removeEventListener('abort', stop)
  }
  checkCancelled(ctx)
}

// Waits ms, or less if the program is stopped.
function sleep (ctx, ms) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms)
    function done () {
      ctx.abort.removeEventListener('abort', done)
      clearTimeout(timer)
      ctx.abort.aborted ? reject(new Cancelled()) : resolve()
    }
    ctx.abort.addEventListener('abort', done, { once: true })
  })
}

function countOf (bot, name) {
  return bot.inventory.items().filter(item => item.name === name).reduce((n, item) => n + item.count, 0)
}

// {name: count} of a list of item stacks.
function tally (items) {
  const counts = {}
  for (const { name, count } of items) counts[name] = (counts[name] ?? 0) + count
  return counts
}

module.exports = { Cancelled, asVec3, checkCancelled, goto, sleep, countOf, tally }
