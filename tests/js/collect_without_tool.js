'use strict'
// Run by mineflayer_tool.test.js in a child process with a small heap: a bot with no pickaxe collects iron ore
// as mineBlock does (collectblock, which equips through mineflayer-tool). Prints the outcome as a JSON line.
const { startServer, command, eventually } = require('./squid_harness')
const { connectBot, disconnectBot } = require('../../blockpact/bridge/js/mineflayer/connect')
const { scaled } = require('./pace')

async function main () {
  const server = await startServer({ args: ['--op', 'Digger'] })
  try {
    const bot = await connectBot({ username: 'Digger', port: server.port, version: server.version, spawnTimeoutMs: scaled(20) * 1000 })
    const at = bot.entity.position.floored().offset(2, 0, 0)
    await command(bot, `setblock ${at.x} ${at.y} ${at.z} iron_ore`)
    await eventually(() => bot.blockAt(at)?.name === 'iron_ore', 'the ore in view')
    bot.blockpact.digTarget = at // as collectOne sets it: the one block paths may dig
    try {
      await bot.collectBlock.collect(bot.blockAt(at), { ignoreNoPath: true })
      console.log(JSON.stringify({ outcome: 'collected' }))
    } catch (err) {
      console.log(JSON.stringify({ outcome: 'error', name: err.name, message: err.message }))
    }
    await disconnectBot(bot)
  } finally {
    await server.close()
  }
}

main().then(() => process.exit(0), err => {
  console.error(err)
  process.exit(2)
})
