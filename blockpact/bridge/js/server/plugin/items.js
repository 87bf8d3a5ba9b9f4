'use strict'
// Item helpers shared by chests, crafting, drops and commands.
const nbt = require('prismarine-nbt')

// Player inventory window slots in the order vanilla fills them: hotbar first, then the main area.
const PLAYER_STORAGE_SLOTS = [...range(36, 45), ...range(9, 36)]

function range (start, end) {
  return Array.from({ length: end - start }, (_, i) => start + i)
}

function stripNamespace (name) {
  return String(name).replace(/^minecraft:/, '')
}

function itemTools (registry) {
  const Item = require('prismarine-item')(registry)

  function itemType (name) {
    const item = registry.itemsByName[stripNamespace(name)]
    if (!item) throw new Error(`unknown item '${name}'`)
    return item
  }

  function make (name, count = 1) {
    return new Item(itemType(name).id, count)
  }

  function clone (item) {
    return item ? new Item(item.type, item.count, item.metadata, item.nbt) : null
  }

  // NBT by value: a locally built item's root tag carries a name that a decoded one lacks.
  function nbtKey (item) {
    return item.nbt ? JSON.stringify(nbt.simplify(item.nbt)) : 'null'
  }

  // Same kind of item: they may share a stack.
  function stackable (a, b) {
    return Boolean(a && b) && a.type === b.type && a.metadata === b.metadata && nbtKey(a) === nbtKey(b)
  }

  function same (a, b) {
    if (!a || !b) return !a && !b
    return stackable(a, b) && a.count === b.count
  }

  function describe (item) {
    return { name: item.name, count: item.count }
  }

  // Moves up to item.count items into slots (partial stacks first, then empty slots);
  // returns how many did not fit. setSlot(slot, item) stores a slot.
  function addToSlots (slots, getSlot, setSlot, item) {
    let left = item.count
    for (const slot of slots) {
      const here = getSlot(slot)
      if (left === 0) break
      if (!stackable(here, item) || here.count >= here.stackSize) continue
      const moved = Math.min(left, here.stackSize - here.count)
      here.count += moved
      left -= moved
      setSlot(slot, here)
    }
    for (const slot of slots) {
      if (left === 0) break
      if (getSlot(slot)) continue
      const stack = clone(item)
      stack.count = Math.min(left, item.stackSize)
      left -= stack.count
      setSlot(slot, stack)
    }
    return left
  }

  function addToPlayer (player, item) {
    const inv = player.inventory
    return addToSlots(PLAYER_STORAGE_SLOTS, s => inv.slots[s], (s, it) => inv.updateSlot(s, it), item)
  }

  // Removes up to max items of type (any type when null) from the player's storage; returns the count removed.
  function removeFromPlayer (player, type, max = Infinity) {
    const inv = player.inventory
    let removed = 0
    for (const slot of [...PLAYER_STORAGE_SLOTS, 45, 5, 6, 7, 8]) {
      const item = inv.slots[slot]
      if (!item || (type !== null && item.type !== type) || removed >= max) continue
      const taken = Math.min(item.count, max - removed)
      removed += taken
      item.count -= taken
      inv.updateSlot(slot, item.count > 0 ? item : null)
    }
    return removed
  }

  return { Item, itemType, make, clone, stackable, same, describe, addToSlots, addToPlayer, removeFromPlayer }
}

module.exports = { itemTools, stripNamespace, range }
