'use strict'
// sendSignal / waitSignal: every bot of a world lives in this Node process, so signals go through
// an in-process bus (exact, no chat parsing); each signal is also said in chat for the record.
const { Cancelled } = require('./common')

const uses = {
  waitSignal: { feedback: ['No signal received within'] }
}

// One bus per world: a queue of {sender, task} per player, and the player's waiter if any.
function signalBus () {
  const queues = new Map()
  const waiters = new Map()
  const queue = (player) => {
    if (!queues.has(player)) queues.set(player, [])
    return queues.get(player)
  }
  return {
    join: (player) => queue(player),
    leave: (player) => { queues.delete(player); waiters.get(player)?.(null); waiters.delete(player) },
    // Delivers to every other player of the world; returns who they are.
    send (sender, task) {
      const to = [...queues.keys()].filter(player => player !== sender).sort()
      for (const player of to) {
        queue(player).push({ sender, task })
        const wake = waiters.get(player)
        if (wake) { waiters.delete(player); wake(queue(player).shift()) }
      }
      return to
    },
    // The next signal for player, or null after timeoutMs or when abort fires.
    take (player, timeoutMs, abort) {
      const waiting = queue(player)
      if (waiting.length) return Promise.resolve(waiting.shift())
      return new Promise((resolve, reject) => {
        const finish = (signal, error = null) => {
          clearTimeout(timer)
          abort.removeEventListener('abort', onAbort)
          if (waiters.get(player) === finish) waiters.delete(player)
          error ? reject(error) : resolve(signal)
        }
        const onAbort = () => finish(null, new Cancelled())
        const timer = setTimeout(() => finish(null), timeoutMs)
        abort.addEventListener('abort', onAbort, { once: true })
        waiters.set(player, finish)
      })
    }
  }
}

async function sendSignal (ctx, task = '') {
  const to = ctx.world.bus.send(ctx.bot.username, String(task))
  ctx.world.record(ctx.bot.username, 'signal', { task: String(task), to })
  ctx.bot.chat(`[signal] ${String(task) || 'done'}`)
  return null
}

async function waitSignal (ctx, task = '', timeout = 60) {
  const signal = await ctx.world.bus.take(ctx.bot.username, Number(timeout) * 1000, ctx.abort)
  if (!signal) {
    ctx.say('No signal received within', { timeout: Number(timeout), task: task || 'a signal' })
    return null
  }
  return signal.sender
}

module.exports = { uses, primitives: { sendSignal, waitSignal }, signalBus }
