'use strict'
// Server-authoritative windows: the player inventory (id 0), chests and crafting tables.
// flying-squid applies clicks to the player inventory whatever window they target and
// never reads the clicked item, so the plugin replaces its window_click handling.
// A click is replayed with prismarine-windows (the model mineflayer predicts with) on a
// copy of the server's slots; only slots where the client's prediction differs are sent
// back, as a vanilla server does, so pipelined clicks are never rolled back.
const { range } = require('./items')
const { tally } = require('./journal')

// Player inventory window slots mirrored in a container window after its own slots.
const PLAYER_MIRROR_START = 9
const PLAYER_MIRROR_END = 45
// entity_equipment slots for player inventory window slots (hands are handled apart).
const ARMOR_EQUIPMENT = { 5: 5, 6: 4, 7: 3, 8: 2 }

function windowSystem (serv, tools, crafter, log) {
  const windows = require('prismarine-windows')(serv.registry)
  const { Item, clone, same, stackable, addToSlots, addToPlayer } = tools
  const itemEntity = serv.registry.entitiesByName.item.id

  const INVENTORY = { id: 0, type: 'minecraft:inventory', craftWidth: 2, inventoryStart: PLAYER_MIRROR_START }

  function stateOf (player) {
    return player.blockpactWindows
  }

  function writeSlot (player, session, i, item) {
    if (item) item.slot = i
    if (session.id === 0) return player.inventory.updateSlot(i, item)
    if (i < session.inventoryStart) session.slots[i] = item
    else player.inventory.updateSlot(i - session.inventoryStart + PLAYER_MIRROR_START, item)
  }

  function readSlots (player, session) {
    if (session.id === 0) return player.inventory.slots.map(clone)
    const mirrored = player.inventory.slots.slice(PLAYER_MIRROR_START, PLAYER_MIRROR_END)
    return [...session.slots, ...mirrored].map(clone)
  }

  function sendSlot (player, windowId, slot, item) {
    player._client.write('set_slot', { windowId, stateId: ++stateOf(player).stateId, slot, item: Item.toNotch(item) })
  }

  function sendAll (player, session) {
    const state = stateOf(player)
    player._client.write('window_items', {
      windowId: session.id,
      stateId: ++state.stateId,
      items: readSlots(player, session).map(item => Item.toNotch(item)),
      carriedItem: Item.toNotch(state.cursor)
    })
  }

  function attach (player) {
    player.blockpactWindows = { window: null, cursor: null, stateId: 0, quiet: false, nextId: 0 }
    // flying-squid's listener echoes every slot change; ours skips the ones the client predicted.
    player.inventory.removeAllListeners('updateSlot')
    player.inventory.on('updateSlot', (slot, oldItem, newItem) => onInventorySlot(player, slot, newItem))
    player._client.removeAllListeners('window_click')
    player._client.on('window_click', packet => guard(() => handleClick(player, packet)))
    player._client.on('close_window', ({ windowId }) => guard(() => close(player, windowId)))
  }

  function guard (fn) {
    try { fn() } catch (err) { serv.emit('error', err) }
  }

  function onInventorySlot (player, slot, item) {
    const state = stateOf(player)
    if (!state.quiet) {
      sendSlot(player, 0, slot, item)
      const open = state.window
      if (open && slot >= PLAYER_MIRROR_START && slot < PLAYER_MIRROR_END) {
        sendSlot(player, open.id, open.inventoryStart + slot - PLAYER_MIRROR_START, item)
      }
    }
    const equipmentSlot = slot === 36 + player.heldItemSlot ? 0 : slot === 45 ? 1 : ARMOR_EQUIPMENT[slot]
    if (equipmentSlot === undefined) return
    player.setEquipment(equipmentSlot, item)
    player._writeOthersNearby('entity_equipment', { entityId: player.id, equipments: [{ slot: equipmentSlot, item: Item.toNotch(item) }] })
  }

  // Opens a container window whose own slots are `slots` (shared by every viewer of a chest at
  // `chest`, its position).
  function open (player, { type, title, slots, craftWidth = 0, chest = null }) {
    close(player)
    const state = stateOf(player)
    state.nextId = state.nextId % 100 + 1
    const session = { id: state.nextId, type, slots, craftWidth, chest, inventoryStart: slots.length }
    state.window = session
    player._client.write('open_window', {
      windowId: session.id,
      inventoryType: windows.windows[type].type, // protocol id of the window type
      windowTitle: serv._createChatComponent(title).toNetworkFormat()
    })
    sendAll(player, session)
  }

  // Closes the player's container window (or the inventory's crafting grid when windowId is 0),
  // giving back the grid and the cursor as vanilla does.
  function close (player, windowId) {
    const state = stateOf(player)
    const session = windowId === 0 ? INVENTORY : state.window
    if (!session || (windowId !== undefined && windowId !== session.id)) return
    const leftovers = []
    for (const slot of range(1, 1 + session.craftWidth ** 2)) {
      const item = session.id === 0 ? player.inventory.slots[slot] : session.slots[slot]
      if (!item) continue
      leftovers.push(item)
      writeSlot(player, session, slot, null)
    }
    if (session.craftWidth) writeSlot(player, session, 0, null)
    if (state.cursor) leftovers.push(state.cursor)
    state.cursor = null
    if (session.id !== 0) state.window = null
    for (const item of leftovers) {
      const left = addToPlayer(player, item)
      if (left > 0) drop(player, item, left)
    }
    log.syncInventory(player, 'craft')
  }

  // Closes the windows of everyone viewing these container slots (the chest is gone).
  function closeViewers (slots) {
    for (const player of serv.players) {
      const session = stateOf(player)?.window
      if (session?.slots !== slots) continue
      player._client.write('close_window', { windowId: session.id })
      close(player)
    }
  }

  // Pushes changed container slots to everyone viewing them, except `origin`.
  function notifyViewers (slots, indices, origin = null) {
    for (const player of serv.players) {
      const session = stateOf(player)?.window
      if (player === origin || session?.slots !== slots) continue
      for (const i of indices) sendSlot(player, session.id, i, slots[i])
    }
  }

  function drop (player, item, count) {
    if (count <= 0) return
    serv.spawnObject(itemEntity, player.world, player.position.offset(0, 1.3, 0), {
      itemId: item.type, itemCount: count, pickupTime: 2000, deathTime: 5 * 60 * 1000
    })
  }

  function handleClick (player, packet) {
    const state = stateOf(player)
    const session = state.window ?? INVENTORY
    if (session.id !== packet.windowId) return // a click for a window that is no longer open
    const before = readSlots(player, session)
    const chestBefore = session.chest ? tally(session.slots) : null
    const view = windows.createWindow(session.id, session.type, '')
    before.forEach((item, i) => { view.slots[i] = clone(item); if (item) view.slots[i].slot = i })
    view.selectedItem = clone(state.cursor)

    const accepted = applyClick(player, view, session, packet)
    const inGrid = session.craftWidth > 0 && packet.slot >= 0 && packet.slot <= session.craftWidth ** 2
    if (session.craftWidth) view.slots[0] = crafter.result(view.slots, session.craftWidth)

    const changed = []
    state.quiet = true
    try {
      view.slots.forEach((item, i) => {
        if (same(item, before[i])) return
        writeSlot(player, session, i, item)
        changed.push(i)
      })
    } finally {
      state.quiet = false
    }
    state.cursor = view.selectedItem
    if (session.id !== 0) notifyViewers(session.slots, changed.filter(i => i < session.inventoryStart), player)
    journalClick(player, session, packet, chestBefore)

    const claimed = new Map(packet.changedSlots.map(({ location, item }) => [location, Item.fromNotch(item)]))
    if (!accepted || packet.stateId === -1 || !same(Item.fromNotch(packet.cursorItem), state.cursor)) {
      sendAll(player, session)
      return
    }
    view.slots.forEach((item, i) => {
      const predicted = claimed.has(i) ? claimed.get(i) : before[i]
      // mineflayer waits for the result slot after every click in the crafting area.
      if (i !== 0 || !inGrid) {
        if (!same(predicted, item)) sendSlot(player, session.id, i, item)
      }
    })
    if (inGrid) sendSlot(player, session.id, 0, view.slots[0])
  }

  // What a click did to the player's items and the chest, under the cause the simulator uses.
  function journalClick (player, session, packet, chestBefore) {
    if (session.chest) log.chestChange(session.chest, chestBefore, tally(session.slots), player.username)
    const thrown = packet.slot === -999 || packet.mode === 4
    log.syncInventory(player, (delta) => {
      if (thrown && delta < 0) return 'drop'
      if (session.chest) return delta > 0 ? 'chest:withdraw' : 'chest:deposit'
      return session.craftWidth ? 'craft' : 'window'
    })
  }

  // Applies a click to the view; false when the click is not supported (the client gets resynced).
  function applyClick (player, view, session, { mode, slot, mouseButton }) {
    if (session.craftWidth && slot === 0) {
      if (mode === 0) return takeResult(view, session)
      if (mode === 1) return shiftResult(view, session)
      return false
    }
    if (![0, 1, 2, 4].includes(mode)) return false
    if (slot !== -999 && !(slot >= 0 && slot < view.slots.length)) return false
    const cursorBefore = clone(view.selectedItem)
    const slotBefore = slot === -999 ? null : clone(view.slots[slot])
    try {
      view.acceptClick({ mode, slot, mouseButton, item: slot === -999 ? null : view.slots[slot] }, player.gameMode)
    } catch (err) {
      return false // prismarine-windows asserts on clicks it cannot model
    }
    // Items thrown out of the window fall as item entities.
    if (slot === -999 && cursorBefore) drop(player, cursorBefore, cursorBefore.count - (view.selectedItem?.count ?? 0))
    else if (mode === 4 && slotBefore) drop(player, slotBefore, slotBefore.count - (view.slots[slot]?.count ?? 0))
    return true
  }

  function consumeGrid (view, width) {
    for (const slot of range(1, 1 + width * width)) {
      const item = view.slots[slot]
      if (!item) continue
      item.count -= 1
      if (item.count === 0) view.slots[slot] = null
    }
  }

  function takeResult (view, session) {
    const result = view.slots[0]
    const cursor = view.selectedItem
    if (!result) return true
    if (cursor && !(stackable(cursor, result) && cursor.count + result.count <= cursor.stackSize)) return true
    consumeGrid(view, session.craftWidth)
    if (cursor) cursor.count += result.count
    else view.selectedItem = result
    view.slots[0] = null
    return true
  }

  // Shift-click on the result crafts as many times as the grid and the inventory allow.
  function shiftResult (view, session) {
    const targets = range(session.inventoryStart, session.inventoryStart + 36).reverse()
    const setSlot = (s, item) => { view.slots[s] = item; item.slot = s }
    for (let result = view.slots[0]; result; result = view.slots[0]) {
      const room = targets.reduce((n, s) => n + (view.slots[s] ? (stackable(view.slots[s], result) ? result.stackSize - view.slots[s].count : 0) : result.stackSize), 0)
      if (room < result.count) break
      addToSlots(targets, s => view.slots[s], setSlot, result)
      consumeGrid(view, session.craftWidth)
      view.slots[0] = crafter.result(view.slots, session.craftWidth)
    }
    return true
  }

  return { attach, open, closeViewers, notifyViewers, drop }
}

module.exports = { windowSystem }
