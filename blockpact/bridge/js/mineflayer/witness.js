'use strict'
// What the bots see of the world, as the simulator's events, for servers without blockpact's plugin
// (vanilla, Paper, Fabric): there the bots are the only witnesses. The operator bot watches block
// changes in its loaded chunks and the players' chat; each player bot watches its own inventory and
// the chests it opens. Every entry goes to the world's journal (LiveWorld.record) with its cause,
// named as the embedded server's journal names them, so the world master reads both alike.
const { tally } = require('./primitives/common')

const AIR = new Set(['air', 'cave_air', 'void_air'])
const keyOf = (p) => `${p.x},${p.y},${p.z}`

class Witness {
  // settings: {digMemoryMs: how long after a dig an inventory gain counts as its drop, expectMs: how long a
  //            change the world master asked for is awaited}
  constructor (world, settings) {
    this.world = world
    this.settings = settings
    this.observer = null // the operator bot: blocks and chat
    this.blocks = new Map() // "x,y,z" -> block name last recorded
    this.expected = new Map() // "x,y,z" -> {cause, until}: changes the world master asked the server for
    this.watched = new Map() // player name -> detach()
    this.digs = new Map() // "x,y,z" -> {player, at}: blocks a player bot saw its own dig finish
  }

  // The operator bot watches blocks and chat from now on.
  observeWith (bot) {
    this.observer = bot
    bot.on('blockUpdate', (oldBlock, newBlock) => { if (oldBlock && newBlock) this.#blockChanged(oldBlock, newBlock) })
    bot.on('chat', (username, message) => {
      if (username !== bot.username) this.world.record(username, 'chat', { message: String(message) })
    })
  }

  // Block changes the world master is about to make with a command: recorded under `cause`, not 'server'.
  expect (positions, cause) {
    const until = Date.now() + this.settings.expectMs
    for (const p of positions) this.expected.set(keyOf({ x: p[0], y: p[1], z: p[2] }), { cause, until })
  }

  #blockChanged (oldBlock, newBlock) {
    const pos = newBlock.position
    const key = keyOf(pos)
    const old = this.blocks.get(key) ?? oldBlock.name
    if (old === newBlock.name) return
    this.blocks.set(key, newBlock.name)
    const { agent, cause } = this.#origin(key, pos, old, newBlock.name)
    this.world.record(agent, 'block', { pos: [pos.x, pos.y, pos.z], old, new: newBlock.name, cause })
  }

  // Who changed the block at pos: a player digging it, one placing there, the world master, or the server.
  #origin (key, pos, old, name) {
    const dig = this.digs.get(key)
    this.digs.delete(key)
    if (AIR.has(name) && dig && Date.now() - dig.at <= this.settings.expectMs) return { agent: dig.player, cause: 'dig' }
    for (const [player, { bot }] of this.world.bodies) {
      // the operator may see the change before the digger does
      if (AIR.has(name) && bot.blockpact.digTarget?.equals(pos)) return { agent: player, cause: 'dig' }
      if (!AIR.has(name) && bot.blockpact.placeTarget?.equals(pos)) return { agent: player, cause: 'place' }
    }
    const expected = this.expected.get(key)
    this.expected.delete(key)
    if (expected && expected.until >= Date.now()) return { agent: null, cause: expected.cause }
    return { agent: null, cause: 'server' }
  }

  // A player bot reports its own inventory (the tally is kept from now on) and the chests it opens.
  watch (player, bot) {
    bot.blockpact.chestMoves = new Map() // item -> inventory change still to come from chest moves
    let before = this.#tally(bot)
    let pending = false
    const sync = () => {
      pending = false
      const now = this.#tally(bot)
      for (const item of [...new Set([...Object.keys(before), ...Object.keys(now)])].sort()) {
        const delta = (now[item] ?? 0) - (before[item] ?? 0)
        if (delta !== 0) this.world.record(player, 'inventory', { item, delta, count: now[item] ?? 0, cause: this.#inventoryCause(bot, item, delta) })
      }
      before = now
    }
    const onSlot = () => {
      if (pending) return
      pending = true
      setImmediate(sync)
    }
    const onCollect = (collector) => { if (collector === bot.entity) bot.blockpact.lastPickup = Date.now() }
    const onDug = (block) => {
      bot.blockpact.lastDug = { block: bot.blockpact.digName, at: Date.now() }
      this.digs.set(keyOf(block.position), { player, at: Date.now() })
    }
    bot.inventory.on('updateSlot', onSlot)
    bot.on('playerCollect', onCollect)
    bot.on('diggingCompleted', onDug)
    this.watched.set(player, () => {
      bot.inventory.off('updateSlot', onSlot)
      bot.off('playerCollect', onCollect)
      bot.off('diggingCompleted', onDug)
    })
  }

  unwatch (player) {
    this.watched.get(player)?.()
    this.watched.delete(player)
  }

  // Slots 0-4 are the 2x2 crafting grid; the cursor counts as held (as the embedded server tallies).
  #tally (bot) {
    return tally([...bot.inventory.slots.slice(5), bot.inventory.selectedItem].filter(Boolean))
  }

  #inventoryCause (bot, item, delta) {
    // items that left or entered a chest this bot had open (the inventory's update may come after it closed)
    const moved = bot.blockpact.chestMoves.get(item) ?? 0
    if (moved !== 0 && Math.sign(moved) === Math.sign(delta)) {
      bot.blockpact.chestMoves.set(item, Math.sign(moved) * Math.max(0, Math.abs(moved) - Math.abs(delta)))
      return delta > 0 ? 'chest:withdraw' : 'chest:deposit'
    }
    const windowType = String(bot.currentWindow?.type ?? '')
    if (windowType.includes('furnace')) return 'smelt'
    if (windowType.includes('crafting') || bot.blockpact.crafting) return 'craft'
    // while mining (items may arrive before the block change) or just after
    const dig = bot.blockpact.lastDug
    if (delta > 0 && bot.blockpact.digTarget) return `dig:${bot.blockpact.digName}`
    if (delta > 0 && dig && Date.now() - dig.at <= this.settings.digMemoryMs) return `dig:${dig.block}`
    if (delta > 0 && bot.blockpact.lastPickup && Date.now() - bot.blockpact.lastPickup <= this.settings.digMemoryMs) return 'pickup'
    return delta < 0 && bot.blockpact.placeTarget ? 'place' : 'other'
  }

  // A chest window the bot opened at pos: item moves in it are recorded as chest events, by this bot.
  chestOpened (player, bot, pos, chest) {
    let before = tally(chest.containerItems())
    const moves = bot.blockpact.chestMoves
    const onSlot = (slot) => {
      if (slot >= chest.inventoryStart) return
      const now = tally(chest.containerItems())
      for (const item of [...new Set([...Object.keys(before), ...Object.keys(now)])].sort()) {
        const delta = (now[item] ?? 0) - (before[item] ?? 0)
        if (delta === 0) continue
        this.world.record(player, 'chest', { pos: [pos.x, pos.y, pos.z], item, delta, count: now[item] ?? 0 })
        moves.set(item, (moves.get(item) ?? 0) - delta) // what the bot's inventory gains (or loses) for it
      }
      before = now
    }
    chest.on('updateSlot', onSlot)
    return () => chest.off('updateSlot', onSlot)
  }
}

module.exports = { Witness }
