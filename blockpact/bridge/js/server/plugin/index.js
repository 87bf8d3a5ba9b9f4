'use strict'
// blockpact's flying-squid plugin: chest storage, crafting (2x2 and crafting table), survival
// drops with tool requirements, operator commands, a fixed time and spawn point, and
// `serv.blockpact`, the server-side API used to build worlds and read their state.
// Options come from the server settings' `blockpact` key: {ops, seed, time, spawn}.
const { itemTools } = require('./items')
const { crafter } = require('./crafting')
const { windowSystem } = require('./windows')
const { chestStore } = require('./chests')
const { dropRules, attachDigging } = require('./drops')
const { regionTools } = require('./region')
const { registerCommands } = require('./commands')
const { applyWorldSettings } = require('./world')

const parts = new WeakMap() // serv -> the plugin's per-server pieces

module.exports.server = function (serv, settings) {
  const options = settings.blockpact ?? {}
  const tools = itemTools(serv.registry)
  const windows = windowSystem(serv, tools, crafter(serv.registry))
  const chests = chestStore(serv, tools, windows)
  const drops = dropRules(serv, tools, options.seed ?? 0)
  const region = regionTools(serv)
  parts.set(serv, { tools, windows, chests, drops, ops: new Set(options.ops ?? []) })

  serv.blockpact = {
    getChest: chests.getChest,
    setChest: chests.setChest,
    setDrops: drops.setDrops,
    drop: windows.drop,
    region,
    countBlocks: (from, to, name) => region.countBlocks(serv.overworld, from, to, name),
    // [{slot, name, count}] of a connected player's inventory window.
    inventory (username) {
      const player = serv.getPlayer(username)
      if (!player) throw new Error(`no player named '${username}'`)
      return player.inventory.slots.flatMap((item, slot) => item ? [{ slot, ...tools.describe(item) }] : [])
    }
  }

  // After flying-squid's own handlers and commands (registered before 'asap'), so ours win.
  serv.once('asap', () => {
    serv.onBlockInteraction('chest', chests.onInteract)
    serv.onBlockInteraction('crafting_table', ({ player }) => {
      if (player.crouching) return false
      windows.open(player, { type: 'minecraft:crafting', title: 'Crafting', slots: new Array(10).fill(null), craftWidth: 3 })
      return true
    })
    registerCommands(serv, serv.blockpact, tools)
    applyWorldSettings(serv, options)
  })

  // serv.setBlock exists once the world plugin is ready; any block change there ends a chest.
  serv.once('pluginsReady', () => {
    const setBlock = serv.setBlock
    serv.setBlock = (world, position, stateId) => {
      if (world === serv.overworld) chests.forget(position)
      return setBlock(world, position, stateId)
    }
  })
}

module.exports.player = function (player, serv) {
  const { tools, windows, chests, drops, ops } = parts.get(serv)
  // 'asap' follows every plugin's player setup, so flying-squid's inventory exists by then.
  player.once('asap', () => {
    windows.attach(player)
    attachDigging(player, serv, tools, drops, chests)
  })
  player.once('connected', () => {
    if (ops.has(player.username)) player.op = true
  })
}
