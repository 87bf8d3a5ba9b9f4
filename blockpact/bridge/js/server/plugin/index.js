'use strict'
// blockpact's flying-squid plugin: chest storage, crafting (2x2 and crafting table), survival
// drops with tool requirements, operator commands, game rules, a fixed time and spawn point,
// players kept across reconnects, a journal of world events, a view distance fitted to the world's
// map, and `serv.blockpact`, the server-side API used to build worlds and read their state.
// Options come from the server settings' `blockpact` key: {ops, seed, time, spawn, dropsFile}.
const { itemTools } = require('./items')
const { crafter } = require('./crafting')
const { windowSystem } = require('./windows')
const { chestStore } = require('./chests')
const { dropRules, attachDigging } = require('./drops')
const { digVerdicts } = require('./dig_verdicts')
const { regionTools } = require('./region')
const { registerCommands, operatorsOnly } = require('./commands')
const { applyWorldSettings } = require('./world')
const { journal } = require('./journal')
const { playerStore } = require('./persistence')
const { viewControl, limitEntityRange } = require('./view')
const { refuseUnadmittedJoins } = require('./capacity')
const { withoutLatencyUpdates } = require('./player_list')
const { worldAge } = require('./world_age')

const parts = new WeakMap() // serv -> the plugin's per-server pieces

module.exports.server = function (serv, settings) {
  const options = settings.blockpact ?? {}
  const tools = itemTools(serv.registry)
  const log = journal(serv, tools)
  const windows = windowSystem(serv, tools, crafter(serv.registry), log)
  const chests = chestStore(serv, tools, windows)
  const drops = dropRules(serv, tools, options.seed ?? 0, options.dropsFile)
  const region = regionTools(serv)
  const store = playerStore(serv, tools)
  const verdicts = digVerdicts(serv)
  const age = worldAge(serv)
  parts.set(serv, { tools, windows, chests, drops, verdicts, log, store, age, ops: new Set(options.ops ?? []) })
  refuseUnadmittedJoins(serv, settings)
  limitEntityRange(serv, options.entityRange)

  serv.blockpact = {
    getChest: chests.getChest,
    setChest: chests.setChest,
    setDrops: drops.setDrops,
    setHarvest: drops.setHarvest,
    resetDrops: drops.reset,
    drop: windows.drop,
    region,
    journal: log,
    countBlocks: (from, to, name) => region.countBlocks(serv.overworld, from, to, name),
    readBlocks: (from, to) => region.readBlocks(serv.overworld, from, to),
    view: viewControl(settings),
    age, // the world's age in ticks: ticks(), reset()
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
    operatorsOnly(serv)
    applyWorldSettings(serv, options)
  })

  // serv.setBlock exists once the world plugin is ready; any block change there ends a chest and
  // is journaled under `origin` ({agent, cause}; flying-squid's own changes have none).
  serv.once('pluginsReady', () => {
    const setBlock = serv.setBlock
    serv.setBlock = async (world, position, stateId, origin = {}) => {
      if (world === serv.overworld) {
        const old = await world.getBlockStateId(position)
        chests.forget(position)
        log.block(position, log.blockName(old), log.blockName(stateId), origin.agent ?? null, origin.cause ?? 'server')
      }
      return setBlock(world, position, stateId)
    }
  })
}

module.exports.player = function (player, serv) {
  const { tools, windows, chests, drops, verdicts, log, store, age, ops } = parts.get(serv)
  withoutLatencyUpdates(player) // before flying-squid's login starts sending them
  age.attach(player) // so does its update_time
  // 'asap' follows every plugin's player setup, so flying-squid's inventory exists by then.
  player.once('asap', () => {
    // flying-squid's login ends by sending the player back to where it logged in; after a teleport
    // (a command, a restored reconnect) that would undo it.
    const sendSelfPosition = player.sendSelfPosition
    player.sendSelfPosition = (position) => sendSelfPosition(player.blockpactTeleported ? undefined : position)
    windows.attach(player)
    verdicts.attach(player)
    attachDigging(player, serv, tools, drops, chests, log, verdicts)
    // Placements (and the plant above a dug block) go through player.setBlock.
    player.setBlock = (position, stateId) => {
      const cause = stateId === 0 ? 'dig' : 'place'
      log.claim(player, cause)
      return serv.setBlock(player.world, position, stateId, { agent: player.username, cause })
    }
    const collect = player.collect
    player.collect = (entity) => {
      collect(entity)
      log.syncInventory(player, 'pickup')
    }
    player.on('chat', ({ message }, cancelled) => {
      if (!cancelled) log.record('chat', player.username, { message: String(message) })
    })
  })
  player.once('connected', () => {
    if (ops.has(player.username)) player.op = true
    log.record('connection', player.username, { state: 'joined' })
    store.restore(player).catch(err => serv.emit('error', err)).finally(() => log.watch(player))
  })
  player.once('disconnected', () => {
    store.save(player)
    log.record('connection', player.username, { state: 'left' })
  })
}
