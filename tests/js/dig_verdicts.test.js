'use strict'
// Two bots finishing one block: the embedded server tells each whose dig broke it (server/plugin/dig_verdicts.js),
// and mineBlock counts what the server says, also for bots that share nothing (two runtimes: two worlds'
// claim maps). Real server, real mineflayer bots.
const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const { getEventListeners } = require('events')
const { Vec3 } = require('vec3')
const { startServer, command, eventually, withTimeout } = require('./squid_harness')
const { connectBot, disconnectBot } = require('../../blockpact/bridge/js/mineflayer/connect')
const { primitives } = require('../../blockpact/bridge/js/mineflayer/primitives/blocks')

describe('whose dig broke a block', () => {
  let server
  before(async () => { server = await startServer({ args: ['--everybody-op'] }) })
  after(() => server?.close())

  async function join (t, username) {
    const bot = await connectBot({ username, port: server.port, version: server.version, spawnTimeoutMs: 20000 })
    t.after(() => disconnectBot(bot))
    await eventually(() => bot.blockpact.digVerdicts, `${username} hears the server judge digs`)
    return bot
  }

  // The verdicts a bot hears about pos, in order.
  function verdicts (bot, pos) {
    const heard = []
    bot.on('blockpact:digVerdict', (v) => { if (v.pos.equals(pos)) heard.push({ won: v.won, by: v.by }) })
    return heard
  }

  // A hay block (dug by hand in 0.75 s): the test server's flat world has none of its own (it has dirt).
  async function placeHay (bot, pos) {
    await command(bot, `setblock ${pos.x} ${pos.y} ${pos.z} hay_block`)
    return eventually(() => bot.blockAt(pos)?.name === 'hay_block' && bot.blockAt(pos), `${bot.username} sees the hay`)
  }

  it('two bots digging one block at once: one won, the other hears it lost to the winner', async (t) => {
    const [alice, bob] = [await join(t, 'alice'), await join(t, 'bob')]
    const pos = new Vec3(2, 5, 1)
    await placeHay(alice, pos)
    await eventually(() => bob.blockAt(pos)?.name === 'hay_block', 'bob sees the hay')
    const heard = { alice: verdicts(alice, pos), bob: verdicts(bob, pos) }
    await Promise.allSettled([alice.dig(alice.blockAt(pos), true), bob.dig(bob.blockAt(pos), true)])
    await eventually(() => heard.alice.length && heard.bob.length, 'both hear a verdict')
    const first = { alice: heard.alice[0], bob: heard.bob[0] }
    const winner = first.alice.won ? 'alice' : 'bob'
    const loser = winner === 'alice' ? 'bob' : 'alice'
    assert.deepEqual(first[winner], { won: true, by: null }, JSON.stringify(heard))
    assert.deepEqual(first[loser], { won: false, by: winner }, JSON.stringify(heard))
    assert.ok(heard[winner].length === 1 && heard[loser].every(v => !v.won), JSON.stringify(heard))
    assert.deepEqual(await server.request('countBlocks', { from: [2, 5, 1], to: [2, 5, 1] }), {})
    assert.deepEqual(await server.request('inventory', { player: loser }), [])
  })

  it('a finish of a block already broken is answered: lost, to who broke it', async (t) => {
    const [carol, dave] = [await join(t, 'carol'), await join(t, 'dave')]
    const pos = new Vec3(-2, 5, 1)
    await placeHay(carol, pos)
    await carol.dig(carol.blockAt(pos), true)
    await eventually(() => dave.blockAt(pos)?.name === 'air', 'dave sees it broken')
    const heard = verdicts(dave, pos)
    // what a bot sends when it finishes digging a block the server broke for someone else meanwhile
    dave._client.write('block_dig', { status: 2, location: pos, face: 1, sequence: 0 })
    await eventually(() => heard.length, 'dave hears a verdict')
    assert.deepEqual(heard, [{ won: false, by: 'carol' }])
  })

  // Each bot with a world of its own: nothing shared between them, as between two Node runtimes.
  function context (bot, said, abort = new AbortController().signal) {
    return {
      bot,
      world: { dugBy: new Map(), harvest: new Map() },
      memory: { chests: new Map() },
      settings: { searchRadius: 8 },
      abort,
      say: (prefix, vars) => said.push({ prefix, ...vars }),
      fail: (prefix) => new Error(prefix)
    }
  }

  // Three races (the bots' claims alone counted both bots in about half of them: issue 18, runs D and E).
  it('mineBlock on two runtimes racing for one block: the server decides, the loser names the winner', async (t) => {
    const [erin, frank] = [await join(t, 'erin'), await join(t, 'frank')]
    const programs = { erin: new AbortController().signal, frank: new AbortController().signal } // one program each
    for (const x of [0, 1, 0]) {
      const pos = new Vec3(x, 5, 2)
      await placeHay(erin, pos)
      await eventually(() => frank.blockAt(pos)?.name === 'hay_block', 'frank sees the hay')
      const said = { erin: [], frank: [] }
      const [e, f] = await withTimeout(Promise.all([
        primitives.mineBlock(context(erin, said.erin, programs.erin), 'hay_block', 1),
        primitives.mineBlock(context(frank, said.frank, programs.frank), 'hay_block', 1)
      ]), 30000, 'both mineBlock calls')
      assert.equal(e + f, 1, JSON.stringify(said))
      const [winner, loser] = e === 1 ? ['erin', 'frank'] : ['frank', 'erin']
      assert.deepEqual(said[winner], [])
      assert.equal(said[loser].length, 1, JSON.stringify(said))
      assert.equal(said[loser][0].prefix, '{name} at {position} was mined')
      assert.equal(said[loser][0].player, winner)
      assert.deepEqual(await server.request('countBlocks', { from: [x, 5, 2], to: [x, 5, 2] }), {})
    }
    const hay = async (player) => tally(await server.request('inventory', { player })).hay_block ?? 0
    assert.equal(await hay('erin') + await hay('frank'), 3) // one drop a block broken
    // Nothing a finished mineBlock did stays on its program's signal (a Cleanup harvester digs 500 blocks).
    assert.deepEqual([getEventListeners(programs.erin, 'abort').length, getEventListeners(programs.frank, 'abort').length], [0, 0])
  })
})

function tally (items) {
  const counts = {}
  for (const { name, count } of items) counts[name] = (counts[name] ?? 0) + count
  return counts
}
