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

function parse (text) {
  try {
    return JSON.parse(text)
  } catch (err) {
    return null
  }
}

module.exports = { listenForVerdicts, CHANNEL }
