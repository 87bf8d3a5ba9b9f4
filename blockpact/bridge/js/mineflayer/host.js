'use strict'
// The body host the sandbox runner drives: call(name, args) runs a primitive on the main thread
// next to the bot, query(name, args) answers bot.* reads, stop() halts whatever the bot is doing.
// Each call gets an AbortSignal; stop() aborts them all, so a cancelled primitive's loop ends too.
const { calls } = require('./primitives')
const { answerQuery } = require('./queries')
const { waitTicks } = require('./primitives/bounds')
const { Cancelled } = require('./primitives/common')
const { plainText } = require('../sandbox/plain-text')

const MAX_CHAT_LINE = 256 // Minecraft's chat message limit

// A program made the primitives say more feedback than the host keeps for it (the simulator's FeedbackCap): one
// call says a line per name it is given, and each line is kept for the result and said in the server's chat.
class FeedbackCapped extends Error {
  constructor (message, limit) {
    super(message)
    this.limit = limit
  }
}

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
  // limits: primitives.toml's maxFeedbackLines (per program) and maxEpisodeFeedbackLines (per player, for as long
  // as the bot is in the world); onLimit(error, limit) ends the running program with the limit named (index.js).
  constructor (bot, world, limits = {}, onLimit = () => {}) {
    this.bot = bot
    this.world = world
    this.memory = { chests: new Map() } // what the bot has seen, kept across runs
    this.transcript = [] // chat lines of the current run: the program's and the primitives' feedback
    this.sources = [] // per line of transcript: 'program' or 'primitive'
    this.controllers = new Set()
    this.limits = { perProgram: limits.maxFeedbackLines ?? 1000, perEpisode: limits.maxEpisodeFeedbackLines ?? 20000 }
    this.onLimit = onLimit
    this.programFeedback = 0
    this.episodeFeedback = 0
  }

  startRun () {
    this.transcript = []
    this.sources = []
    this.programFeedback = 0
  }

  // One chat line, plain (a line break in a name repeated by feedback would send what follows it as a message of
  // its own: "No item named x\n/kill @a"), never a server command.
  say (text, source = 'program') {
    const line = plainText(String(text))
    if (/^\s*\//.test(line)) throw new Error(`${JSON.stringify(line.slice(0, 40))} is a server command, and programs may not run server commands (limit serverCommands)`)
    this.transcript.push(line)
    this.sources.push(source)
    const sent = line.length > MAX_CHAT_LINE ? line.slice(0, MAX_CHAT_LINE - 1) + '…' : line
    // The server's chat cannot tell feedback from the program's own lines: a note in the bots' journal tells the
    // world master (world_master.py), which marks the chat line as the primitive's in the agents' chat log.
    if (source === 'primitive') this.world.record?.(this.bot.username, 'feedback', { message: sent })
    this.bot.chat(sent)
  }

  // A primitive's feedback line; past a cap none is kept or said, and the program ends even if it catches the failure.
  feedback (text) {
    const { perProgram, perEpisode } = this.limits
    let capped = null
    if (this.programFeedback >= perProgram) {
      capped = new FeedbackCapped(`too much primitive feedback: over ${perProgram} lines in one program (limit maxFeedbackLines)`, 'maxFeedbackLines')
    } else if (this.episodeFeedback >= perEpisode) {
      capped = new FeedbackCapped(`too much primitive feedback: over ${perEpisode} lines from this player's programs in one episode (limit maxEpisodeFeedbackLines)`, 'maxEpisodeFeedbackLines')
    }
    if (capped) {
      this.onLimit(capped.message, capped.limit)
      throw capped
    }
    this.programFeedback += 1
    this.episodeFeedback += 1
    this.say(text, 'primitive')
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
      say: (prefix, vars) => this.feedback(messages.feedback(entry.messagesOf, prefix, vars)),
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

module.exports = { BodyHost, FeedbackCapped, botCallNames }
