'use strict'
// blockpact's flying-squid plugin, driven by real mineflayer bots: chests, crafting, drops and
// operator commands, with every outcome checked on the bot and on the server.
const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const { once } = require('events')
const { Vec3 } = require('vec3')
const { startServer, connectBot, quitBot, command, eventually, withTimeout } = require('./squid_harness')

// {name: count}, keys sorted so that two tallies compare as JSON.
function tally (items) {
  const counts = {}
  for (const { name, count } of [...items].sort((a, b) => a.name.localeCompare(b.name))) counts[name] = (counts[name] ?? 0) + count
  return counts
}

const botCounts = (bot) => tally(bot.inventory.items())

async function serverCounts (server, username) {
  return tally(await server.request('inventory', { player: username }))
}

// The bot's and the server's view of the inventory both come to equal `expected`. Both are
// polled: the bot predicts its clicks at once, and the server reads them from another channel.
async function assertInventory (server, bot, expected) {
  expected = tally(Object.entries(expected).map(([name, count]) => ({ name, count })))
  const want = JSON.stringify(expected)
  await eventually(() => JSON.stringify(botCounts(bot)) === want, `bot inventory ${want}, has ${JSON.stringify(botCounts(bot))}`)
  let onServer
  await eventually(async () => JSON.stringify(onServer = await serverCounts(server, bot.username)) === want,
    `server inventory ${want}`).catch(() => assert.deepEqual(onServer, expected))
}

describe('blockpact flying-squid plugin', () => {
  let server
  let pair = null
  before(async () => { server = await startServer({ args: ['--everybody-op'] }) })
  after(async () => {
    for (const bot of Object.values(await pair?.catch(() => null) ?? {})) await quitBot(bot)
    await server?.close()
  })

  async function join (t, username) {
    const bot = await connectBot(server, username)
    t.after(() => quitBot(bot))
    return bot
  }
  // alice and bob, joined once (a join costs about a second of CPU) for the tests that leave alice's
  // inventory empty and move neither; a test that leaves items behind has a bot of its own.
  const shared = () => (pair ??= (async () => ({ alice: await connectBot(server, 'alice'), bob: await connectBot(server, 'bob') }))())

  it('logs bots in at the fixed spawn in survival, at a fixed time, and relays chat', async () => {
    const { alice, bob } = await shared()
    assert.deepEqual(alice.entity.position.toArray(), [0.5, 5, 0.5])
    assert.equal(alice.game.gameMode, 'survival')
    assert.equal(alice.time.timeOfDay, 6000)
    // both hear it (alice too: later tests read her chat for command answers)
    const hears = (bot) => new Promise(resolve => bot.on('messagestr', function heard (m) {
      if (m.includes('hello from alice')) resolve(bot.off('messagestr', heard))
    }))
    const heard = Promise.all([hears(alice), hears(bob)])
    alice.chat('hello from alice')
    await withTimeout(heard, 3000, 'chat relay')
  })

  it('/give fills whole stacks and /clear removes by item and count', async () => {
    const bot = (await shared()).alice // and leaves its inventory empty, as the other tests of alice expect
    assert.equal(await command(bot, 'give alice cobblestone 100'), 'Gave 100 [cobblestone] to alice')
    await assertInventory(server, bot, { cobblestone: 100 })
    assert.deepEqual(bot.inventory.items().map(i => i.count), [64, 36])
    await command(bot, 'give alice dirt 3')
    assert.equal(await command(bot, 'clear alice cobblestone 30'), 'Removed 30 item(s) from player alice')
    await assertInventory(server, bot, { cobblestone: 70, dirt: 3 })
    assert.equal(await command(bot, 'clear'), 'Removed 73 item(s) from player alice')
    await assertInventory(server, bot, {})
  })

  it('/fill sets, replaces and keeps blocks; counts agree on both sides', async () => {
    const bot = (await shared()).alice
    assert.equal(await command(bot, 'fill 10 5 -3 12 6 -1 stone'), 'Successfully filled 18 block(s)')
    await eventually(() => bot.blockAt(new Vec3(11, 6, -2))?.name === 'stone', 'bot sees the filled stone')
    assert.deepEqual(await server.request('countBlocks', { from: [10, 5, -3], to: [12, 6, -1] }), { stone: 18 })
    assert.equal(await command(bot, 'fill 10 5 -3 12 5 -1 air replace stone'), 'Successfully filled 9 block(s)')
    assert.equal(await command(bot, 'blockpact count 10 5 -3 12 6 -1'), '{"stone":9}')
    assert.equal(await command(bot, 'fill 10 5 -3 12 6 -1 glass keep'), 'Successfully filled 9 block(s)')
    await eventually(() => bot.blockAt(new Vec3(11, 5, -2))?.name === 'glass', 'bot sees the glass')
    assert.match(await command(bot, 'fill 0 0 0 100 100 100 stone'), /too many blocks/)
    assert.match(await command(bot, 'setblock 1 1 1 no_such_block'), /unknown block/)
  })

  it('chests keep their contents per position; withdraw and deposit update both sides', async (t) => {
    const alice = await join(t, 'chester')
    const pos = new Vec3(2, 5, -2)
    await command(alice, 'setblock 2 5 -2 chest')
    await server.request('setChest', { pos: pos.toArray(), items: [{ name: 'iron_pickaxe' }, { name: 'cobblestone', count: 20 }] })
    await command(alice, 'give chester dirt 10')
    await assertInventory(server, alice, { dirt: 10 })

    const chest = await alice.openContainer(await eventually(() => alice.blockAt(pos)?.name === 'chest' && alice.blockAt(pos), 'chest block'))
    assert.deepEqual(chest.containerItems().map(i => [i.name, i.count]), [['iron_pickaxe', 1], ['cobblestone', 20]])
    const id = (name) => alice.registry.itemsByName[name].id
    await chest.withdraw(id('iron_pickaxe'), null, 1)
    await chest.withdraw(id('cobblestone'), null, 7)
    await chest.deposit(id('dirt'), null, 4)
    const seenByBot = chest.containerItems().map(({ slot, name, count }) => ({ slot, name, count }))
    chest.close()

    await assertInventory(server, alice, { iron_pickaxe: 1, cobblestone: 7, dirt: 6 })
    const onServer = await eventually(async () => {
      const contents = await server.request('getChest', { pos: pos.toArray() })
      return JSON.stringify(contents) === JSON.stringify(seenByBot) && contents
    }, `server chest ${JSON.stringify(seenByBot)}`)
    assert.deepEqual(tally(onServer), { cobblestone: 13, dirt: 4 })

    // Another player sees the same chest, and live changes made by the server.
    const { bob } = await shared()
    const again = await bob.openContainer(await eventually(() => bob.blockAt(pos)?.name === 'chest' && bob.blockAt(pos), 'bob sees the chest'))
    assert.deepEqual(again.containerItems().map(({ slot, name, count }) => ({ slot, name, count })), onServer)
    await server.request('setChest', { pos: pos.toArray(), items: [{ name: 'diamond', count: 3, slot: 5 }] })
    await eventually(() => again.slots[5]?.name === 'diamond' && again.containerItems().length === 1, 'viewer sees the new contents')
    await again.withdraw(id('diamond'), null, 3)
    again.close()
    await assertInventory(server, bob, { diamond: 3 })

    // Replacing the block ends the chest and its contents.
    await command(alice, 'setblock 2 5 -2 stone')
    await assert.rejects(server.request('getChest', { pos: pos.toArray() }), /no chest/)
  })

  it('crafts planks and sticks in the 2x2 grid and a wooden pickaxe at a crafting table', async (t) => {
    const bot = await join(t, 'crafter')
    const id = (name) => bot.registry.itemsByName[name].id
    await command(bot, 'give crafter oak_log 2')
    await assertInventory(server, bot, { oak_log: 2 })

    await bot.craft(bot.recipesFor(id('oak_planks'), null, 1, null)[0], 2, null)
    await assertInventory(server, bot, { oak_planks: 8 })
    await bot.craft(bot.recipesFor(id('stick'), null, 1, null)[0], 1, null)
    await assertInventory(server, bot, { oak_planks: 6, stick: 4 })

    await command(bot, 'setblock -2 5 0 crafting_table')
    const table = await eventually(() => bot.blockAt(new Vec3(-2, 5, 0))?.name === 'crafting_table' && bot.blockAt(new Vec3(-2, 5, 0)), 'table')
    assert.equal(bot.recipesFor(id('wooden_pickaxe'), null, 1, null).length, 0, 'a pickaxe needs the table')
    await bot.craft(bot.recipesFor(id('wooden_pickaxe'), null, 1, table)[0], 1, table)
    await assertInventory(server, bot, { oak_planks: 3, stick: 2, wooden_pickaxe: 1 })
  })

  it('validates the crafting grid on the server: a forged result is refused', async (t) => {
    const bot = await join(t, 'forger')
    await command(bot, 'give forger dirt 1')
    await assertInventory(server, bot, { dirt: 1 })
    const dirt = bot.inventory.items()[0]
    await bot.clickWindow(dirt.slot, 0, 0)
    await bot.clickWindow(1, 1, 0) // one dirt in the grid: no recipe
    const Item = require('prismarine-item')(bot.registry)
    bot.inventory.updateSlot(0, new Item(bot.registry.itemsByName.diamond.id, 64))
    const resynced = once(bot, 'setWindowItems:0')
    await bot.clickWindow(0, 0, 0)
    await withTimeout(resynced, 3000, 'resync')
    assert.equal(bot.inventory.selectedItem, null)
    assert.equal(bot.inventory.slots[0], null)
    const onServer = await server.request('inventory', { player: 'forger' })
    assert.deepEqual(onServer, [{ slot: 1, name: 'dirt', count: 1 }])
  })

  it('digging gives vanilla drops into the inventory and respects tool tiers', async (t) => {
    const bot = await join(t, 'miner')
    await command(bot, 'setblock 2 5 2 iron_ore')
    await command(bot, 'setblock 2 5 3 diamond_ore')
    await command(bot, 'setblock 2 6 3 diamond_ore')
    await command(bot, 'give miner stone_pickaxe 1')
    await assertInventory(server, bot, { stone_pickaxe: 1 })
    const equip = (name) => bot.equip(bot.inventory.items().find(i => i.name === name), 'hand')

    await equip('stone_pickaxe')
    await bot.dig(await eventually(() => bot.blockAt(new Vec3(2, 5, 2))?.name === 'iron_ore' && bot.blockAt(new Vec3(2, 5, 2)), 'ore'))
    await assertInventory(server, bot, { stone_pickaxe: 1, raw_iron: 1 })

    await bot.dig(bot.blockAt(new Vec3(2, 5, 3))) // a stone pickaxe cannot harvest diamond ore
    await eventually(async () => JSON.stringify(await server.request('countBlocks', { from: [2, 5, 3], to: [2, 5, 3] })) === '{}', 'ore broken on the server')
    // drops are handed out before the block changes, so none can arrive after this point
    await assertInventory(server, bot, { stone_pickaxe: 1, raw_iron: 1 })

    await command(bot, 'give miner iron_pickaxe 1')
    await assertInventory(server, bot, { stone_pickaxe: 1, raw_iron: 1, iron_pickaxe: 1 })
    await equip('iron_pickaxe')
    await bot.dig(bot.blockAt(new Vec3(2, 6, 3)))
    await assertInventory(server, bot, { stone_pickaxe: 1, raw_iron: 1, iron_pickaxe: 1, diamond: 1 })
  })

  it('uses drop rules set through the server API', async () => {
    const bot = (await shared()).alice
    await server.request('setDrops', { block: 'slime_block', drops: [{ item: 'slime_ball', min: 2, max: 2 }] })
    await command(bot, 'setblock -2 5 2 slime_block')
    await bot.dig(await eventually(() => bot.blockAt(new Vec3(-2, 5, 2))?.name === 'slime_block' && bot.blockAt(new Vec3(-2, 5, 2)), 'slime'))
    await assertInventory(server, bot, { slime_ball: 2 })
  })
})
