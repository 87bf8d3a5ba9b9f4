'use strict'
// Helpers shared by the primitives: argument checks, cancellable walking, inventory counts.
const { Vec3 } = require('vec3')

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

// Walks to a pathfinder goal; a stopped program stops the walk.
async function goto (ctx, goal) {
  checkCancelled(ctx)
  const stop = () => ctx.bot.pathfinder.stop()
  ctx.abort.addEventListener('abort', stop, { once: true })
  try {
    await ctx.bot.pathfinder.goto(goal)
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
