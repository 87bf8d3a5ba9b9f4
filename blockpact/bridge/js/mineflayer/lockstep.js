'use strict'
// Lockstep (`blockpact run --lockstep`, live.toml [episode] lockstep): the bots take their shared actions in the
// order the simulator served the same programs (bridge/live/lockstep.py plays each batch on the simulator first and
// hands over that order). A shared action is a block search, a dig, a placed block or a chest's use; its resource is
// the block kind ("block:iron_ore") or the chest ("chest:6,64,7"). Each bot waits before such an action until the
// other bots' earlier actions on the same resource that it depends on are done (see commutes), and sees the blocks
// those actions changed. So a race that a few hundred milliseconds of walking decide live is decided by the
// simulator's time model, the same way on both backends. Where a bot does what the simulator's player did not
// (another target, an action it never took, a dig that failed), the order is given up and a `lockstep_diverged` event
// says where: the episode goes on unordered, and its numbers are a free-running live episode's. A program stopped by
// the episode's end (or its budget) before its twin's last actions is not a divergence: what it did was in order;
// `cut` counts the actions it did not get to.

const { goals } = require('mineflayer-pathfinder')
const { Vec3 } = require('vec3')

const POLL_MS = 250 // how often a waiting bot re-checks its stall bound and its program's end
const VIEW_MS = 5000 // how long a bot waits to see a block that another bot's finished action changed

const READS = ['look', 'find']
const WRITES = ['dig', 'place'] // also the actions a bot may take that its twin tried in vain (not in the schedule)

// Whether `a` (a bot's own next action, or null: unknown) may happen before another bot's earlier `b` on the same
// block kind with the same outcome for both. A search must see every earlier dig and placing (they change what it
// finds); a dig or placing waits only for what concerns its own cell (a search that found it, a dig of it) and, for
// blocks whose digs draw a drop count from the episode's one stream, for the earlier such digs (of any block kind:
// #blocker).
function commutes (a, b) {
  if (a === null || !a.resource.startsWith('block:')) return false
  if (READS.includes(a.kind)) return READS.includes(b.kind)
  if (!WRITES.includes(a.kind)) return false
  return !sameCell(a.target, b.target) && !(a.draws && b.draws)
}

const cell = (p) => p ? `(${p[0]}, ${p[1]}, ${p[2]})` : 'nothing'
const sameCell = (a, b) => a === b || (a !== null && b !== null && a.every((v, k) => v === b[k]))

function describe (e) {
  const what = e.resource.replace(/^(block|chest):/, '')
  const verb = { look: 'look for', find: 'search for', dig: 'dig of', place: 'placing of', chest: 'use of chest' }[e.kind]
  const at = e.kind === 'chest' || e.kind === 'look' ? '' : e.target === null ? ' (finding none)' : ` at ${cell(e.target)}`
  return `${e.player}'s ${verb} ${e.kind === 'chest' ? cell(e.target) : what}${at} (simulated ${e.time} s)`
}

class Lockstep {
  // entries: [{player, kind, resource, target: [x, y, z] | null, time}] in the simulator's order;
  // record(agent, kind, data): a world event; stallMs: how long a bot waits for another's action before giving up.
  constructor (entries, { stallMs, record, viewMs = VIEW_MS }) {
    this.entries = entries.map((e, i) => ({ ...e, i, done: false }))
    this.own = new Map() // player -> its entries, in order
    this.pending = new Map() // resource -> its entries not done yet, in order
    for (const e of this.entries) {
      if (!this.own.has(e.player)) this.own.set(e.player, [])
      this.own.get(e.player).push(e)
      if (!this.pending.has(e.resource)) this.pending.set(e.resource, [])
      this.pending.get(e.resource).push(e)
    }
    this.drawing = this.entries.filter(e => e.kind === 'dig' && e.draws) // digs whose drop counts come from the stream
    this.cursor = new Map() // player -> how many of its entries are done
    this.stallMs = stallMs
    this.viewMs = viewMs
    this.record = record
    this.diverged = null // why the order was given up
    this.doneCount = 0
    this.cut = 0 // actions of programs the episode's end stopped before they took them
    this.progressAt = Date.now() // when an action was last done: a wait is bounded by the time without progress
    this.wakers = new Set()
  }

  get on () { return this.diverged === null }

  next (player) {
    return (this.own.get(player) ?? [])[this.cursor.get(player) ?? 0] ?? null
  }

  // The first other bot's earlier action on `resource` that `mine` (the bot's own next entry, when it is the action
  // asked for; else null: then every earlier action) must wait for (see commutes): bots dig side by side, as their
  // twins did, instead of one after another.
  #blocker (player, resource, horizon, mine) {
    for (const e of this.pending.get(resource) ?? []) {
      if (e.i >= horizon) break
      if (e.player !== player && !commutes(mine, e)) return e
    }
    // the drop stream is one counter for every block kind: a dig that draws waits for the earlier ones of any kind
    if (mine?.draws) return this.drawing.find(e => e.i < horizon && e.player !== player && !e.done) ?? null
    return null
  }

  #changed () {
    return new Promise(resolve => {
      const wakers = this.wakers
      const timer = setTimeout(wake, POLL_MS)
      wakers.add(wake)
      function wake () { clearTimeout(timer); wakers.delete(wake); resolve() }
    })
  }

  #wake () {
    const wakers = [...this.wakers]
    this.wakers.clear()
    for (const wake of wakers) wake()
  }

  // Waits for the bot's turn at `kind` on `resource`: returns its entry, or null (the simulator's player did no such
  // action here: a dig it lost or a placing that failed, which may fail live too; or the order is given up).
  async gate (bot, kind, resource, abort) {
    if (!this.on) return null
    const player = bot.username
    const mine = this.next(player)
    const matches = mine !== null && mine.kind === kind && mine.resource === resource
    if (!matches && !WRITES.includes(kind)) { // its twin took no such action: nothing to wait for
      const instead = mine ? `its next was the ${describe(mine)}` : 'it had no more'
      this.diverge(player, `${player} began a ${kind} on ${resource} that the simulator's ${player} did not take (${instead})`)
      return null
    }
    const horizon = mine ? mine.i : Infinity
    const asked = matches ? mine : null
    const since = Date.now()
    for (;;) {
      if (!this.on || abort?.aborted) return null
      const blocker = this.#blocker(player, resource, horizon, asked)
      if (!blocker) break
      if (Date.now() - Math.max(since, this.progressAt) > this.stallMs) {
        this.diverge(player, `${player} waited ${Math.round(this.stallMs / 1000)} s for ${describe(blocker)}, and no shared action was done meanwhile`)
        return null
      }
      await this.#changed()
    }
    await this.#seeChanges(bot, resource, horizon)
    return matches ? mine : null
  }

  // Until this bot's view shows the blocks that earlier digs and placings of `resource` changed (the server sends
  // each change to every bot; one bot's verdict can arrive before another bot's copy of the change).
  async #seeChanges (bot, resource, horizon) {
    if (!resource.startsWith('block:')) return
    const name = resource.slice('block:'.length)
    const now = Date.now()
    const until = now + this.viewMs
    for (const e of this.entries) {
      if (e.i >= horizon) break
      if (!e.done || e.resource !== resource || e.player === bot.username || !WRITES.includes(e.kind)) continue
      // a change older than the wait has arrived or never will; and its cell may have changed again since (a regrown
      // block): waiting for it to look changed would cost every later search and dig the whole wait
      if (e.doneAt < now - this.viewMs) continue
      const seen = () => {
        const block = bot.blockAt(new Vec3(e.target[0], e.target[1], e.target[2]))
        return block === null || (block.name === name) === (e.kind === 'place')
      }
      while (!seen() && Date.now() < until) await new Promise(resolve => setTimeout(resolve, 20))
    }
  }

  // The action of `kind` on `resource` the gate let through is over: `target` is what it found or changed (look: the
  // first block found, or null), `ok` whether it did (a dig that broke its block, a block placed).
  done (player, kind, resource, entry, target, ok = true) {
    if (!this.on) return
    if (entry === null) {
      if (WRITES.includes(kind) && !ok) return // lost, or failed, as on the simulator
      this.diverge(player, `${player}'s ${kind} on ${resource} at ${cell(target)} succeeded; the simulator's ${player} did not do it`)
      return
    }
    const same = entry.kind === 'look' ? (entry.target === null) === (target === null) : sameCell(entry.target, target)
    if (!ok || !same) {
      const got = ok ? (entry.kind === 'look' ? (target === null ? 'found none' : 'found some') : `got ${cell(target)}`) : 'failed'
      this.diverge(player, `${describe(entry)} ${got} live`)
      return
    }
    entry.done = true
    entry.doneAt = Date.now()
    this.doneCount += 1
    this.cursor.set(player, (this.cursor.get(player) ?? 0) + 1)
    const pending = this.pending.get(resource)
    pending.splice(pending.indexOf(entry), 1)
    this.progressAt = Date.now()
    if (entry.draws) this.drawing.splice(this.drawing.indexOf(entry), 1)
    this.#wake()
  }

  // A bot's program ended; `stopped`: by the episode's end or its budget. The actions its twin still took will not
  // happen: a program that ended by itself before them diverged; a stopped one was cut short, and the others no
  // longer wait for its actions.
  finished (player, stopped = false) {
    const left = this.next(player)
    if (!this.on || left === null) return
    const own = this.own.get(player)
    const count = own.length - (this.cursor.get(player) ?? 0)
    if (!stopped) {
      this.diverge(player, `${player}'s program ended with ${count} of its scheduled actions not taken (the first: the ${describe(left)})`)
      return
    }
    this.cut += count
    for (const e of own.slice(this.cursor.get(player) ?? 0)) {
      const pending = this.pending.get(e.resource)
      pending.splice(pending.indexOf(e), 1)
    }
    this.cursor.set(player, own.length)
    this.#wake()
  }

  diverge (player, reason) {
    if (!this.on) return
    this.diverged = reason
    this.record(player, 'lockstep_diverged', { reason, done: this.doneCount, scheduled: this.entries.length })
    this.#wake()
  }

  // Where the bot's twin stood for its next action, if that is `kind` on `resource` (walk there first).
  plannedStand (player, kind, resource) {
    const next = this.on ? this.next(player) : null
    return next && next.kind === kind && next.resource === resource ? next.stand ?? null : null
  }

  status () {
    return { diverged: this.diverged, done: this.doneCount, scheduled: this.entries.length, cut: this.cut }
  }
}

const NO_TURN = { entry: null, done () {} }

// In a primitive: `const turn = await takeTurn(ctx, 'dig', 'block:iron_ore')`, the action, then `turn.done(target, ok)`.
async function takeTurn (ctx, kind, resource) {
  const lockstep = ctx.world.lockstep
  if (!lockstep?.on) return NO_TURN
  const entry = await lockstep.gate(ctx.bot, kind, resource, ctx.abort)
  if (ctx.abort.aborted) return NO_TURN // the program was stopped while it waited: nothing to account for
  const player = ctx.bot.username
  return { entry, done: (target, ok = true) => lockstep.done(player, kind, resource, entry, target, ok) }
}

const cellOf = (v) => v ? [v.x, v.y, v.z] : null

// The pathfinder goal of standing on the cell `stand` ([x, y, z]) where the bot's simulated twin stood.
const standOn = (stand) => new goals.GoalBlock(stand[0], stand[1], stand[2])

module.exports = { Lockstep, takeTurn, cellOf, standOn }
