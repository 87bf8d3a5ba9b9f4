'use strict'
// A bot gives up on the server only after the keep-alive timeout it was given (live.toml [bots]
// keep_alive_timeout, passed by mineflayer_body as keepAliveTimeoutMs). minecraft-protocol's own 30 s dropped
// bots whose loaded Node main thread ran late while the server would have waited 120 s. The embedded server
// sends a keep-alive every 4 s: a bot given 1.5 s drops itself ("keepAliveError") before the next one, and a bot
// given the default of the settings does not. Real server, real mineflayer bots.
const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const { startServer, eventually } = require('./squid_harness')
const { connectBot, disconnectBot } = require('../../blockpact/bridge/js/mineflayer/connect')

describe('the keep-alive timeout a bot is given', () => {
  let server
  const bots = []
  before(async () => { server = await startServer() })
  after(async () => {
    for (const bot of bots) await disconnectBot(bot)
    await server?.close()
  })

  const join = async (username, keepAliveTimeoutMs) => {
    const bot = await connectBot({ username, port: server.port, version: server.version, spawnTimeoutMs: 20000, keepAliveTimeoutMs })
    bots.push(bot)
    return bot
  }

  it('ends the connection when no keep-alive comes within it, and not before', async () => {
    const patient = await join('patient', 120_000)
    const hasty = await join('hasty', 1500)
    await eventually(() => hasty.blockpact.endReason, 'the hasty bot drops its connection', 15_000)
    assert.equal(hasty.blockpact.endReason, 'disconnected: keepAliveError')
    assert.equal(patient.blockpact.endReason, null)
    assert.equal(patient._client.ended, false)
  })
})
