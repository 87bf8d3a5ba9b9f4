'use strict'
// The body host the sandbox runner drives: call(name, args) runs a primitive on the main thread
// next to the bot, query(name, args) answers bot.* reads, stop() halts whatever the bot is doing.
// Each call gets an AbortSignal; stop() aborts them all, so a cancelled primitive's loop ends too.
const { calls } = require('./primitives')
const { answerQuery } = require('./queries')
const { waitTicks } = require('./primitives/bounds')
const { Cancelled } = require('./primitives/common')

const MAX_CHAT_LINE = 256 // Minecraft's chat message limit

// Bot methods a program awaits (primitives.toml [bot.*] kind "call"); the runner forwards
// `await bot.NAME(...)` as call('bot.NAME', args). Each gets (bot, abortSignal, ...args).
const botCalls = {
  // Counts the bot's ticks with no wall-clock time-out (mineflayer's own rejects on a slow server).
  'bot.waitForTicks': (bot, abort, ticks) => {
    if (typeof ticks !== 'number' || !Number.isFinite(ticks)) throw new Error('ticks for bot.waitForTicks must be a number')
    return waitTicks(bot, Math.ceil(ticks), abort, () => new Cancelled()) // whole ticks: a fraction would never be reached
  }
}
const botCallNames = Object.keys(botCalls).map(name => name.slice('bot.'.length))

class BodyHost {
  constructor (bot, world) {
    this.bot = bot
    this.world = world
    this.memory = { chests: new Map() } // what the bot has seen, kept across runs
    this.transcript = [] // chat lines of the current run: the program's and the primitives' feedback
    this.controllers = new Set()
  }

  startRun () {
    this.transcript = []
  }

  say (text) {
    this.transcript.push(text)
    this.bot.chat(text.length > MAX_CHAT_LINE ? text.slice(0, MAX_CHAT_LINE - 1) + '…' : text)
  }

  async call (name, args) {
    if (name === 'chat') return this.say(String(args[0]))
    const botCall = Object.hasOwn(botCalls, name) ? botCalls[name] : null
    const entry = calls[name]
    if (!entry && !botCall) throw new Error(`unknown primitive: ${name}`)
    const controller = new AbortController()
    this.controllers.add(controller)
    if (botCall) {
      try {
        return await botCall(this.bot, controller.signal, ...args)
      } finally {
        this.controllers.delete(controller)
      }
    }
    const { messages } = this.world
    const ctx = {
      bot: this.bot,
      world: this.world,
      memory: this.memory,
      settings: this.world.settings,
      abort: controller.signal,
      say: (prefix, vars) => this.say(messages.feedback(entry.messagesOf, prefix, vars)),
      fail: (prefix, vars) => messages.error(entry.messagesOf, prefix, vars)
    }
    try {
      return await entry.run(ctx, ...args)
    } finally {
      this.controllers.delete(controller)
    }
  }

  query (name, args) {
    return answerQuery(this.bot, name, args)
  }

  stop () {
    for (const controller of this.controllers) controller.abort()
    this.controllers.clear()
    const { bot } = this
    bot.pathfinder?.stop()
    bot.pathfinder?.setGoal(null)
    if (bot.targetDigBlock) bot.stopDigging()
    bot.clearControlStates()
    if (bot.currentWindow) bot.closeWindow(bot.currentWindow)
  }
}

module.exports = { BodyHost, botCallNames }
