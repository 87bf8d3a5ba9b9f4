'use strict'
// Entry point for Python (JSPyBridge requires this file by absolute path): a LiveWorld holds
// several mineflayer bots in this one Node process, each with its own sandbox runner and body
// host, a signal bus they share, and the messages of primitives.toml.
//
// Every long operation takes a callback `done(json)` and returns at once: a Python->JS call
// that waits longer than JSPyBridge's 10 s timeout can wedge the bridge. Results are JSON text,
// so Python never walks JS proxies.
const { monitorEventLoopDelay, performance } = require('node:perf_hooks')
const { Vec3 } = require('vec3')
const { createRunner } = require('../sandbox')
const { connectBot, disconnectBot } = require('./connect')
const { BodyHost, botCallNames } = require('./host')
const { observe } = require('./observe')
const { messageTable } = require('./feedback')
const { explorePreludeSource } = require('./prelude')
const { primitiveNames, hostCallNames, uses } = require('./primitives')
const { signalBus } = require('./primitives/signals')
const { groupTable } = require('./primitives/groups')
const { queryNames } = require('./queries')
const { Witness } = require('./witness')
const { startViewer } = require('./viewer')
const { startLine } = require('./start_line')
const { Lockstep } = require('./lockstep')

const BEAT_MS = 100 // how often the watchdog's beat runs (ping)

// Calls a Python callback; its promise (JSPyBridge) must never become an unhandled rejection.
function reply (done, value) {
  Promise.resolve().then(() => done(JSON.stringify(value))).catch(() => {})
}

// "TypeError: ... (program line 3)", as the simulator body reports errors; syntax errors name their line already.
function withLine (error, line) {
  return error && line != null && !error.startsWith('SyntaxError') ? `${error} (program line ${line})` : error
}

function sameNames (a, b) {
  return JSON.stringify([...a].sort()) === JSON.stringify([...b].sort())
}

class LiveWorld {
  // settings: {primitives: primitives.toml's [primitives] table, queries: ['entity.position', 'findBlock()', ...],
  //            searchRadius, observeRadius, exploreStep, exploreStride, limits?: primitives.toml [limits], chatPerSecond?, chatBurst?}
  constructor (settings) {
    const declared = Object.keys(settings.primitives)
    if (!sameNames(declared, primitiveNames)) {
      throw new Error(`primitives.toml declares ${declared.join(', ')} but the mineflayer body implements ${primitiveNames.join(', ')}`)
    }
    const unanswered = settings.queries.map(q => q.replace(/\(\)$/, '')).filter(q => !queryNames.includes(q))
    if (unanswered.length) throw new Error(`the mineflayer body cannot answer bot queries: ${unanswered.join(', ')}`)
    this.settings = settings
    this.messages = messageTable(settings.primitives, uses)
    this.prelude = explorePreludeSource(this.messages, settings.exploreStep)
    this.bus = signalBus()
    this.dugBy = new Map() // "x,y,z" -> {player, at}: who dug it, and when, for "mined by ... before I got to it"
    this.harvest = new Map() // block -> Set of the tools that harvest it: the world's [harvest] rules (setHarvest)
    this.groups = groupTable() // group name -> {members, share}: the world's groups as they stand now (setGroups)
    this.journal = [] // world events only the bots see (signals; everything, on servers without the plugin)
    this.witness = null // set by witnessWorld(): the bots observe the world for the world master
    this.operators = new Set() // bots that only run commands and watch: no program, no signals
    this.viewers = new Map() // name -> viewer page server
    this.bodies = new Map() // name -> {bot, host, runner, run: {id, timer, timedOut} | null}
    this.runCount = 0
    this.startLine = startLine() // programs of one batch start together (start_line.js)
    this.lockstep = null // the order of the batch's shared actions, when the episode is played in lockstep (lockstep.js)
    // How late Node's main thread runs its timers: bots answer the server's keep-alives on that thread.
    this.delays = monitorEventLoopDelay({ resolution: 20 })
    this.delays.enable()
    this.pingDelays = monitorEventLoopDelay({ resolution: 20 }) // the watchdog's own (watchdog.py), apart from loopDelay's
    this.pingDelays.enable()
    // A ping that arrives right after a stall is read before the histogram has its sample (I/O runs before the
    // next round of timers): the time since this beat last ran says how long that stall was.
    this.lastBeat = performance.now()
    this.beat = setInterval(() => { this.lastBeat = performance.now() }, BEAT_MS)
    this.beat.unref()
  }

  // The next batch's shared actions take turns in this order (lockstep.js): entries as bridge/live/lockstep.py
  // gives them; stallMs: how long a bot waits for another's turn before the order is given up.
  startLockstep (entriesJson, stallMs) {
    this.lockstep = new Lockstep(JSON.parse(entriesJson), { stallMs, record: (agent, kind, data) => this.record(agent, kind, data) })
  }

  // Ends the batch's lockstep; its status as JSON: {diverged: reason | null, done, scheduled}.
  endLockstep () {
    const status = this.lockstep?.status() ?? null
    this.lockstep = null
    return JSON.stringify(status)
  }

  // The watchdog's ping: how late the main thread ran at worst since the last ping, in seconds (a quick call).
  ping () {
    const late = Math.max(this.pingDelays.max / 1e9, (performance.now() - this.lastBeat - BEAT_MS) / 1000)
    this.pingDelays.reset()
    return Math.max(0, late)
  }

  // The main thread's lateness since the last call, in ms: {mean, p99, max} (a quick synchronous call).
  loopDelay () {
    const ms = ns => Math.round(ns / 1e6)
    const { mean, max } = this.delays
    const out = { mean: ms(mean), p99: ms(this.delays.percentile(99)), max: ms(max) }
    this.delays.reset()
    return JSON.stringify(out)
  }

  // A world event in the simulator's kinds, at wall time, kept until Python's world master drains it.
  record (agent, kind, data) {
    this.journal.push({ time: Date.now(), agent, kind, data })
  }

  // The world's harvest rules, as the server was given them: {block: [tool item names]} (none: anything
  // harvests it), replacing minecraft-data's for those blocks in the bots' pre-check of a dig.
  setHarvest (rulesJson) {
    this.harvest = new Map(Object.entries(JSON.parse(rulesJson)).map(([block, tools]) => [block, new Set(tools)]))
  }

  // The world's reward-sharing groups and their first members, [{name, members, share}], which joinGroup,
  // leaveGroup and formGroup change during play (primitives/groups.js).
  setGroups (groupsJson) {
    this.groups = groupTable(JSON.parse(groupsJson))
  }

  // The events recorded since the last drain, oldest first, as JSON (a quick synchronous call).
  drainJournal () {
    const out = this.journal
    this.journal = []
    return JSON.stringify(out)
  }

  // From now on the bots are the world master's witnesses (servers without blockpact's plugin):
  // `operator` watches blocks and chat, every other bot its inventory and the chests it opens.
  // settings: {digMemoryMs, expectMs}
  witnessWorld (operator, settingsJson) {
    this.witness = new Witness(this, JSON.parse(settingsJson))
    this.witness.observeWith(this.#body(operator).bot)
    for (const [name, body] of this.bodies) if (!this.operators.has(name)) this.witness.watch(name, body.bot)
  }

  // The world master's own block changes (positions [[x, y, z]]) are about to happen, under `cause`.
  expectBlocks (positionsJson, cause) {
    this.witness?.expect(JSON.parse(positionsJson), cause)
  }

  // The operator's view of a box: {palette: [name], cells: [index]} (x outermost, then y, z), or
  // {unloaded: [x, y, z]} for the first position it cannot see.
  readBlocks (name, fromJson, toJson) {
    const { bot } = this.#body(name)
    const [from, to] = [JSON.parse(fromJson), JSON.parse(toJson)]
    const palette = []
    const index = new Map()
    const cells = []
    for (let x = from[0]; x <= to[0]; x++) {
      for (let y = from[1]; y <= to[1]; y++) {
        for (let z = from[2]; z <= to[2]; z++) {
          const block = bot.blockAt(new Vec3(x, y, z), false)
          if (!block) return JSON.stringify({ unloaded: [x, y, z] })
          if (!index.has(block.name)) {
            index.set(block.name, palette.length)
            palette.push(block.name)
          }
          cells.push(index.get(block.name))
        }
      }
    }
    return JSON.stringify({ palette, cells })
  }

  // {name: [x, y, z]} of the connected bots.
  positions () {
    return JSON.stringify(Object.fromEntries([...this.bodies].filter(([, b]) => b.bot.entity).map(([name, b]) => [name, b.bot.entity.position.toArray()])))
  }

  // Keeps the bot where the server put it (an operator standing still, above the world).
  freeze (name) {
    const { bot } = this.#body(name)
    bot.physicsEnabled = false
    bot.clearControlStates()
  }

  // An operator command said in chat without waiting for its answer (the world master's ticks never wait).
  commandNoWait (name, text) {
    this.#body(name).bot.chat('/' + text.replace(/^\//, ''))
  }

  // A prismarine-viewer page of the bot's view on 127.0.0.1 (port 0: any free port); done({ok, url}).
  startViewer (name, optionsJson, done) {
    let bot
    try {
      bot = this.#body(name).bot
    } catch (err) {
      return reply(done, { ok: false, error: err.message })
    }
    startViewer(bot, JSON.parse(optionsJson)).then(viewer => {
      this.viewers.set(name, viewer)
      reply(done, { ok: true, url: viewer.url })
    }, err => reply(done, { ok: false, error: `the viewer of ${name} could not start: ${err.message}` }))
  }

  static primitiveNames () {
    return JSON.stringify({ primitives: primitiveNames, hostCalls: hostCallNames, queries: queryNames })
  }

  // options: {host, port, version, auth, spawnTimeoutMs}; done({ok, error?, version?})
  connect (name, optionsJson, done) {
    const options = JSON.parse(optionsJson)
    if (this.bodies.has(name)) return reply(done, { ok: false, error: `${name} is already connected` })
    connectBot({ ...options, username: name }).then(bot => {
      // A limit the host keeps (primitive feedback) ends the program with it named, like the sandbox's own.
      const host = new BodyHost(bot, this, this.settings.hostLimits, (error, limit) => body.run && runner.cancel(body.run.id, error, 'limit', limit))
      const runner = createRunner({
        mcVersion: bot.version,
        primitives: Object.keys(this.settings.primitives),
        hostCalls: hostCallNames,
        queries: this.settings.queries,
        botCalls: botCallNames,
        prelude: this.prelude,
        ...this.settings.limits,
        chatPerSecond: this.settings.chatPerSecond,
        chatBurst: this.settings.chatBurst
      }, host)
      const body = { bot, host, runner, run: null }
      this.bodies.set(name, body)
      if (options.operator) this.operators.add(name)
      else this.bus.join(name)
      if (this.witness && !options.operator) this.witness.watch(name, bot)
      // A bot that loses its connection stops its program: nothing it does can reach the world.
      bot.once('end', () => {
        if (body.run && this.bodies.get(name) === body) runner.cancel(body.run.id, `${name} lost its connection (${bot.blockpact.endReason})`)
      })
      // One of its event listeners threw (connect.js): the program cannot trust its body any more; other bots go on.
      bot.blockpact.onListenerError = (what) => {
        if (body.run && this.bodies.get(name) === body) runner.cancel(body.run.id, `${name}'s body failed: ${what}`)
      }
      reply(done, { ok: true, version: bot.version })
    }, err => reply(done, { ok: false, error: err.message }))
  }

  #body (name) {
    const body = this.bodies.get(name)
    if (!body) throw new Error(`no bot named ${name} in this world`)
    return body
  }

  // options: {budgetMs, skills: [source], batch?: {id, size}: start with the batch's other programs,
  //   isolation?: "process" (default: untrusted programs, each in a sandbox process) or "thread" (trusted)}; done(ProgramResult as JSON)
  run (name, source, optionsJson, done) {
    const { budgetMs, skills = [], batch = null, isolation = 'process' } = JSON.parse(optionsJson)
    let body
    try {
      body = this.#body(name)
      if (body.bot.blockpact.endReason) throw new Error(`${name} is not connected (${body.bot.blockpact.endReason})`)
      if (body.run) throw new Error(`${name} is already running a program`)
    } catch (err) {
      return reply(done, this.#failure(name, err.message))
    }
    const run = { id: `${name}-${++this.runCount}` }
    body.run = run
    body.host.startRun()
    // The runner's budget covers the program, not the sandbox worker's start.
    const timeoutText = `timed out after ${budgetMs} ms`
    const ready = () => this.startLine.ready(batch?.id, batch?.size, name)
    body.runner.run(source, { budgetMs, skills, runId: run.id, ready, isolation }).then(result => {
      const timedOut = !result.success && result.error === timeoutText
      return {
        player: name,
        success: result.success,
        error: timedOut ? `timed out after ${budgetMs / 1000} s of wall-clock time` : withLine(result.error, result.errorLine),
        error_line: result.errorLine,
        stack: result.stack,
        chat: body.host.transcript,
        chat_sources: body.host.sources,
        logs: result.logs,
        observation: this.#lastObservation(body),
        duration: result.durationMs / 1000,
        timed_out: timedOut,
        failure: result.kind,
        limit: result.limit === 'budget' ? 'program_budget' : result.limit
      }
    }, err => this.#failure(name, `the program could not run: ${err.message}`)).then(result => {
      this.startLine.leave(batch?.id, batch?.size, name) // ended before it was ready: the others go on
      // what its twin still did will not happen; stopped (the episode's end, its budget) is not a divergence
      this.lockstep?.finished(name, result.timed_out || ['cancelled', 'budget'].includes(result.failure))
      body.run = null
      reply(done, result)
    })
  }

  #failure (name, error) {
    const body = this.bodies.get(name)
    const observation = body ? this.#lastObservation(body) : {}
    return { player: name, success: false, error, error_line: null, stack: null, chat: [], logs: [], observation, duration: 0, timed_out: false, failure: 'cancelled', limit: null }
  }

  // What the bot sees, or {} for a bot that is gone.
  #lastObservation (body) {
    try {
      return this.#observe(body)
    } catch (err) {
      return {}
    }
  }

  #observe (body) {
    return observe(body.bot, { radius: this.settings.observeRadius, chests: body.host.memory.chests })
  }

  observe (name) {
    return JSON.stringify(this.#observe(this.#body(name)))
  }

  // null while the bot is connected, else why it is not (kicked, disconnected).
  connectionLost (name) {
    const body = this.bodies.get(name)
    return body ? body.bot.blockpact.endReason : `${name} is not in this world`
  }

  // Stops the bot's running program (if any); true if there was one.
  cancel (name, reason = 'cancelled') {
    const body = this.#body(name)
    return body.run ? body.runner.cancel(body.run.id, reason) : false
  }

  // An operator command said in chat (for servers without a control channel); done({ok, reply}) with the
  // first chat line that follows, or ok=false after timeoutMs.
  command (name, text, timeoutMs, done) {
    let bot
    try {
      bot = this.#body(name).bot
    } catch (err) {
      return reply(done, { ok: false, error: err.message })
    }
    const onMessage = (message) => {
      if (/ (joined|left) the game\.?$/.test(message)) return
      finish({ ok: true, reply: message })
    }
    const timer = setTimeout(() => finish({ ok: false, error: `no answer to /${text} within ${timeoutMs / 1000} s` }), timeoutMs)
    function finish (value) {
      clearTimeout(timer)
      bot.off('messagestr', onMessage)
      reply(done, value)
    }
    bot.on('messagestr', onMessage)
    bot.chat('/' + text.replace(/^\//, ''))
  }

  players () {
    return JSON.stringify([...this.bodies.keys()])
  }

  #leave (name) {
    const body = this.bodies.get(name)
    this.bodies.delete(name)
    this.bus.leave(name)
    this.operators.delete(name)
    this.witness?.unwatch(name)
    const viewer = this.viewers.get(name)
    this.viewers.delete(name)
    if (body.run) body.runner.cancel(body.run.id, 'the bot left the server')
    return Promise.all([body.runner.close().catch(() => {}), viewer?.close()]).then(() => disconnectBot(body.bot))
  }

  disconnect (name, done) {
    if (!this.bodies.has(name)) return reply(done, { ok: true })
    this.#leave(name).then(() => reply(done, { ok: true }), err => reply(done, { ok: false, error: err.message }))
  }

  close (done) {
    this.delays.disable()
    this.pingDelays.disable()
    clearInterval(this.beat)
    Promise.all([...this.bodies.keys()].map(name => this.#leave(name)))
      .then(() => reply(done, { ok: true }), err => reply(done, { ok: false, error: err.message }))
  }
}

function createLiveWorld (settingsJson) {
  return new LiveWorld(JSON.parse(settingsJson))
}

module.exports = { createLiveWorld, LiveWorld }
