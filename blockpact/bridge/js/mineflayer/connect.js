'use strict'
// Logs a mineflayer bot in, with pathfinder, collectblock and tool, and waits until it spawns.
const mineflayer = require('mineflayer')
const { pathfinder, Movements } = require('mineflayer-pathfinder')
const collectBlock = require('mineflayer-collectblock').plugin
const tool = require('mineflayer-tool').plugin
const { detachPathResults } = require('./path_results')
const { countSearchTime } = require('./search_time')
const { listenForVerdicts } = require('./dig_verdicts')
const { installFastFindBlocks } = require('./find_blocks')
const { isolateListeners } = require('./listeners')

detachPathResults()
countSearchTime()

// Paths must not change the world on their own: no scaffolding, and no digging except, while
// mining, the one block being mined (bot.blockpact.digTarget, a Vec3).
function quietMovements (bot) {
  const movements = new Movements(bot)
  movements.scafoldingBlocks = []
  movements.allow1by1towers = false
  const safeToBreak = movements.safeToBreak.bind(movements)
  movements.safeToBreak = (block) => Boolean(bot.blockpact.digTarget?.equals(block.position)) && safeToBreak(block)
  return movements
}

// mineflayer-tool's equipForBlock, asked (as collectblock asks) to fetch a tool from a chest when the bot has
// none that harvests the block, and given no chests (bots are never given any), returns without a tool and
// calls itself again: an endless chain of promises that never lets the event loop run and fills the heap
// (issue 18: the racing test's "heap out of memory"). Bots never fetch tools on their own: a bot without one
// fails to equip with the error NoItem.
function withoutToolFetching (bot) {
  const equipForBlock = bot.tool.equipForBlock.bind(bot.tool)
  bot.tool.equipForBlock = (block, options, cb) =>
    equipForBlock(block, options && typeof options === 'object' ? { ...options, getFromChest: false } : options, cb)
}

// mineflayer emits diggingCompleted whoever broke the block being dug; only the bot that sent the
// "finish digging" packet broke it. Each such packet is announced as 'blockpact:digFinished' (position).
function announceOwnDigs (bot) {
  const client = bot._client
  const write = client.write.bind(client)
  client.write = (name, params) => {
    if (name === 'block_dig' && params?.status === 2) bot.emit('blockpact:digFinished', params.location)
    return write(name, params)
  }
}

// A listener of this bot threw (listeners.js): its walk is stopped, so a pathfinder that throws on every physics
// tick stops throwing, and the bot's owner (index.js: its running program fails) is told once per failure.
function listenerFailed (bot, source, event, err) {
  const what = `${source} ${event} handler failed: ${err.message}`
  if (bot.blockpact.listenerError !== what) console.error(`${bot.username}: ${err.stack ?? what}`)
  bot.blockpact.listenerError = what
  try {
    bot.pathfinder?.setGoal(null)
  } finally {
    bot.blockpact.onListenerError?.(what)
  }
}

// options: {username, host, port, version, auth, spawnTimeoutMs}; resolves with the spawned bot.
function connectBot (options) {
  const bot = mineflayer.createBot({
    username: options.username,
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 25565,
    version: options.version || false,
    auth: options.auth ?? 'offline',
    // how long without the server's keep-alive before the client gives up on it (minecraft-protocol: 30 s)
    checkTimeoutInterval: options.keepAliveTimeoutMs ?? 30_000,
    hideErrors: true,
    logErrors: false
  })
  // onListenerError(what): set by the bot's owner; listenerError: the last listener failure, as text
  bot.blockpact = { lastError: null, endReason: null, digTarget: null, listenerError: null, onListenerError: null }
  isolateListeners(bot, (event, err) => listenerFailed(bot, 'the bot\'s', event, err))
  isolateListeners(bot._client, (event, err) => listenerFailed(bot, 'its connection\'s', event, err))
  announceOwnDigs(bot)
  listenForVerdicts(bot)
  bot.on('error', err => { bot.blockpact.lastError = err.message })
  bot.on('kicked', reason => { bot.blockpact.endReason = `kicked: ${typeof reason === 'string' ? reason : JSON.stringify(reason)}` })
  bot.on('end', reason => { bot.blockpact.endReason ??= `disconnected: ${reason}` })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(`did not spawn within ${options.spawnTimeoutMs / 1000} s`), options.spawnTimeoutMs)
    function fail (why) {
      clearTimeout(timer)
      bot.removeListener('spawn', onSpawn)
      bot.removeListener('end', onEnd)
      // A connection refused ends before mineflayer's plugins have loaded: no bot.quit yet. Throwing here
      // would take the whole Node runtime (every bot) down.
      try { bot.quit?.() } catch (err) { /* already closed */ }
      bot._client?.socket?.destroy()
      const detail = bot.blockpact.lastError ?? bot.blockpact.endReason
      reject(new Error(`${options.username} could not join ${options.host}:${options.port}: ${why}${detail && detail !== why ? ` (${detail})` : ''}`))
    }
    function onEnd () { fail(bot.blockpact.endReason ?? 'connection closed') }
    function onSpawn () {
      clearTimeout(timer)
      bot.removeListener('end', onEnd)
      bot.loadPlugin(pathfinder)
      bot.loadPlugin(collectBlock)
      bot.loadPlugin(tool)
      withoutToolFetching(bot)
      installFastFindBlocks(bot)
      // collectblock installs its movements in the pathfinder on first use and keeps them there
      const movements = quietMovements(bot)
      bot.pathfinder.setMovements(movements)
      bot.collectBlock.movements = movements
      resolve(bot)
    }
    bot.once('spawn', onSpawn)
    bot.once('end', onEnd)
  })
}

// Leaves the server; resolves once the connection is closed (or after timeoutMs).
function disconnectBot (bot, timeoutMs = 3000) {
  if (!bot._client || bot._client.ended) return Promise.resolve()
  return new Promise(resolve => {
    const timer = setTimeout(() => { bot._client.socket?.destroy(); resolve() }, timeoutMs)
    bot.once('end', () => { clearTimeout(timer); resolve() })
    bot.quit()
  })
}

module.exports = { connectBot, disconnectBot }
