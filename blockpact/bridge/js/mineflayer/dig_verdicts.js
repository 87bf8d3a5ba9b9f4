'use strict'
// The embedded server's answer to each finished dig (js/server/plugin/dig_verdicts.js): whose dig broke the
// block. Another player's client cannot tell a refused dig from its own: the block turns to air either way.
const { Vec3 } = require('vec3')

const CHANNEL = 'blockpact:dig'

// Listens from before the bot logs in: the server says hello when the bot spawns (then
// bot.blockpact.digVerdicts is true); each verdict is emitted as 'blockpact:digVerdict' {pos: Vec3, won, by},
// and who broke each block is kept in bot.blockpact.brokeBy ("x,y,z" -> name): a bot that was about to dig
// a block someone broke may hear it before it starts. A server without blockpact's plugin never says hello.
function listenForVerdicts (bot) {
  bot.blockpact.digVerdicts = false
  bot.blockpact.brokeBy = new Map()
  bot._client.registerChannel(CHANNEL, ['string', []])
  bot._client.on(CHANNEL, (text) => {
    const message = parse(text)
    if (message?.hello) bot.blockpact.digVerdicts = true
    else if (Array.isArray(message?.pos) && message.pos.length === 3) {
      const [x, y, z] = message.pos
      const by = message.won === true ? bot.username : message.by ?? null
      if (by) bot.blockpact.brokeBy.set(`${x},${y},${z}`, by)
      bot.emit('blockpact:digVerdict', { pos: new Vec3(x, y, z), won: message.won === true, by: message.by ?? null })
    }
  })
}

// The server's keep-alives (one every 4 s of its own time, js/server/server.js) share the connection with its
// verdicts, in order: a finished dig the server has not answered by the time `keepAlives` of them arrived was
// never going to be (dig_verdicts answers within POLL_LIMIT polls, 2 s). Counted in the server's time, not the
// bot's ticks: with 64 bots on a busy machine the server answered >10 s after a finish while the bots' physics
// ticked on, and a tick bound left 13 bots that had broken their block saying the server never judged it
// (bench/live_scale.py). Resolves when `heard` does, after VERDICT_KEEP_ALIVES keep-alives, when the connection
// ends or when `abort` (an AbortSignal) fires; the caller reads which from its own state.
const VERDICT_KEEP_ALIVES = 4

function untilVerdict (bot, heard, abort) {
  return new Promise(resolve => {
    let left = VERDICT_KEEP_ALIVES
    const client = bot._client
    const onKeepAlive = () => { if (--left <= 0) done() }
    function done () {
      client.removeListener('keep_alive', onKeepAlive)
      bot.removeListener('end', done)
      abort.removeEventListener('abort', done)
      resolve()
    }
    client.on('keep_alive', onKeepAlive)
    bot.once('end', done)
    abort.addEventListener('abort', done, { once: true })
    heard.then(done)
  })
}

function parse (text) {
  try {
    return JSON.parse(text)
  } catch (err) {
    return null
  }
}

module.exports = { listenForVerdicts, untilVerdict, CHANNEL }
