'use strict'
// sendSignal / waitSignal: every bot of a world lives in this Node process, so signals go through
// an in-process bus (exact, no chat parsing); each signal is also said in chat for the record.
const { Cancelled } = require('./common')

const uses = {
  waitSignal: { feedback: ['No signal received within'] }
}

// Removes and returns the oldest signal of queue from `from` (any sender when ''), or null.
function takeFrom (queue, from) {
  const i = queue.findIndex(signal => !from || signal.sender === from)
  return i < 0 ? null : queue.splice(i, 1)[0]
}

// One bus per world: a queue of {sender, task} per player, and the player's waiter if any (with the sender it
// waits for, or '' for anyone). Signals are kept until read: a waiter takes the oldest matching one, others stay.
function signalBus () {
  const queues = new Map()
  const waiters = new Map()
  const joined = new Set() // every player that ever joined: one may wait for a signal a player sent before leaving
  const queue = (player) => {
    if (!queues.has(player)) queues.set(player, [])
    return queues.get(player)
  }
  return {
    join: (player) => { joined.add(player); return queue(player) },
    players: () => [...joined].sort(),
    leave: (player) => { queues.delete(player); waiters.get(player)?.wake(null); waiters.delete(player) },
    // Delivers to every other player of the world; returns who they are.
    send (sender, task) {
      const to = [...queues.keys()].filter(player => player !== sender).sort()
      for (const player of to) {
        queue(player).push({ sender, task })
        const waiter = waiters.get(player)
        const signal = waiter && takeFrom(queue(player), waiter.from)
        if (signal) { waiters.delete(player); waiter.wake(signal) }
      }
      return to
    },
    // The oldest unread signal for player (from `from` only, unless ''), or null after timeoutMs or on abort.
    take (player, timeoutMs, abort, from = '') {
      const waiting = takeFrom(queue(player), from)
      if (waiting) return Promise.resolve(waiting)
      return new Promise((resolve, reject) => {
        const finish = (signal, error = null) => {
          clearTimeout(timer)
          abort.removeEventListener('abort', onAbort)
          if (waiters.get(player)?.wake === finish) waiters.delete(player)
          error ? reject(error) : resolve(signal)
        }
        const onAbort = () => finish(null, new Cancelled())
        const timer = setTimeout(() => finish(null), timeoutMs)
        abort.addEventListener('abort', onAbort, { once: true })
        waiters.set(player, { wake: finish, from })
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

async function waitSignal (ctx, task = '', timeout = 60, sender = '') {
  sender = sender ?? ''
  if (typeof sender !== 'string') throw new Error("sender for waitSignal must be a player's name (a string) or ''")
  const me = ctx.bot.username
  if (sender && (sender === me || !ctx.world.bus.players().includes(sender))) {
    const others = ctx.world.bus.players().filter(p => p !== me).join(', ')
    throw new Error(`waitSignal: '${sender}' is not another player of this world (players: ${others})`)
  }
  const signal = await ctx.world.bus.take(me, Number(timeout) * 1000, ctx.abort, sender)
  if (!signal) {
    ctx.say('No signal received within', { timeout: Number(timeout), task: task || (sender ? `${sender}'s signal` : 'a signal') })
    return null
  }
  return signal.sender
}

module.exports = { uses, primitives: { sendSignal, waitSignal }, signalBus }
