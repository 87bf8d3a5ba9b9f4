'use strict'
// Bounds on live primitives, derived from the work each does: a walk of d blocks, a dig of t seconds,
// a window click. A primitive past its bound stops what it was doing and says so in its feedback, and
// the program goes on (a server that never answers must not hang a program for its whole budget).
// Tick waits count the bot's physics ticks and have no wall-clock time-out: a slow server makes them
// longer, never an error.

const WALK_BLOCKS_PER_SECOND = 4.3 // a walking player
const DEFAULT_BOUND = { baseSeconds: 10, slack: 3 }

class Bounded extends Error {
  constructor (what, seconds) {
    super(`${what} took longer than ${seconds} s`)
    this.name = 'Bounded'
    this.seconds = seconds
  }
}

// {baseSeconds, slack} from the world's settings (live.toml [bots] bound_base / bound_slack).
function boundSettings (settings) {
  return { ...DEFAULT_BOUND, ...(settings?.bound ?? {}) }
}

// Seconds a piece of work may take: a fixed part for round trips to a loaded server, and `slack`
// times the work's own duration (walking `blocks`, then `seconds` more).
function boundSeconds (settings, { blocks = 0, seconds = 0 } = {}) {
  const { baseSeconds, slack } = boundSettings(settings)
  return Math.ceil(baseSeconds + slack * (blocks / WALK_BLOCKS_PER_SECOND + seconds))
}

// Resolves after `seconds`, unless `over` (an AbortSignal) is aborted first.
function wallClock (seconds, over) {
  return new Promise(resolve => {
    const timer = setTimeout(resolve, seconds * 1000)
    over.addEventListener('abort', () => clearTimeout(timer), { once: true })
  })
}

// Runs work() (a promise-returning function); past `seconds` calls stop() and rejects with Bounded.
// Given the bot, the seconds are counted in its physics ticks (20 a second, see waitTicks): the bot walks,
// digs and hears the server on Node's main thread, and a main thread that runs late (64 bots on a loaded
// machine: timers seen 15 s late) slows the work and this clock alike. A wall-clock bound failed walks that
// were on their way there.
function bounded (what, seconds, work, stop = () => {}, bot = null) {
  const over = new AbortController()
  const clock = bot ? waitTicks(bot, seconds * 20, over.signal, () => null) : wallClock(seconds, over.signal)
  return new Promise((resolve, reject) => {
    let settled = false
    clock.then(() => {
      if (settled) return
      settled = true
      try { stop() } catch (err) { /* stopping is best effort */ }
      reject(new Bounded(what, seconds))
    }, () => {})
    Promise.resolve().then(work).then(value => {
      if (settled) return
      settled = true
      over.abort()
      resolve(value)
    }, err => {
      if (settled) return
      settled = true
      over.abort()
      reject(err)
    })
  })
}

const SILENT_SECONDS = 5

// Waits until the bot's physics has ticked `ticks` times (mineflayer's own waitForTicks rejects after
// ticks * 50 ms + 5 s of wall time, which a loaded machine exceeds: its physics skips ticks to catch
// up). While physics does not tick at all for SILENT_SECONDS (the bot is dead, frozen or in an unloaded
// chunk), that silence counts as its wall time in ticks, so the wait still ends. `abort` (an
// AbortSignal) stops it with the error `cancelled()` makes.
function waitTicks (bot, ticks, abort, cancelled) {
  let left = Math.ceil(ticks)
  if (!(left > 0)) return Promise.resolve()
  return new Promise((resolve, reject) => {
    let ticked = false
    const onTick = () => {
      ticked = true
      if (--left <= 0) finish()
    }
    const silent = setInterval(() => {
      if (!ticked && (left -= SILENT_SECONDS * 20) <= 0) finish()
      ticked = false
    }, SILENT_SECONDS * 1000)
    const onAbort = () => finish(cancelled())
    function finish (err) {
      clearInterval(silent)
      bot.removeListener('physicsTick', onTick)
      abort?.removeEventListener('abort', onAbort)
      err ? reject(err) : resolve()
    }
    bot.on('physicsTick', onTick)
    abort?.addEventListener('abort', onAbort, { once: true })
  })
}

module.exports = { Bounded, bounded, boundSeconds, waitTicks, WALK_BLOCKS_PER_SECOND, SILENT_SECONDS }
