'use strict'
// Chest storage: 27 slots per chest block position in the overworld (flying-squid opens an
// always-empty window). Single chests only.
const { Vec3 } = require('vec3')

const CHEST_SLOTS = 27

function chestStore (serv, tools, windows) {
  const chestBlock = serv.registry.blocksByName.chest
  const stores = new Map() // "x,y,z" -> slots array shared with every open window on that chest

  const keyOf = (pos) => `${Math.floor(pos.x)},${Math.floor(pos.y)},${Math.floor(pos.z)}`

  function slotsAt (pos) {
    const key = keyOf(pos)
    if (!stores.has(key)) stores.set(key, new Array(CHEST_SLOTS).fill(null))
    return stores.get(key)
  }

  async function assertChest (pos) {
    const type = await serv.overworld.getBlockType(new Vec3(pos.x, pos.y, pos.z).floored())
    if (type !== chestBlock.id) throw new Error(`no chest at ${keyOf(pos)}`)
  }

  // Contents as [{slot, name, count}], empty slots left out.
  async function getChest (pos) {
    await assertChest(pos)
    return slotsAt(pos).flatMap((item, slot) => item ? [{ slot, ...tools.describe(item) }] : [])
  }

  // Replaces the contents with items [{name, count, slot?}]; items without a slot fill the
  // next free slots, in stacks of at most the item's stack size.
  async function setChest (pos, items) {
    await assertChest(pos)
    const next = new Array(CHEST_SLOTS).fill(null)
    const free = () => next.findIndex(item => item === null)
    for (const { name, count = 1, slot } of items) {
      for (let left = count; left > 0;) {
        const item = tools.make(name, 1)
        item.count = Math.min(left, item.stackSize)
        left -= item.count
        const at = slot ?? free()
        if (at < 0 || at >= CHEST_SLOTS || next[at]) throw new Error(`chest at ${keyOf(pos)}: no room for ${name} (slot ${at})`)
        next[at] = item
      }
    }
    const slots = slotsAt(pos)
    next.forEach((item, i) => { slots[i] = item })
    windows.notifyViewers(slots, Object.keys(slots).map(Number))
  }

  // The block at pos changed: the chest and its contents are gone; returns the contents.
  function forget (pos) {
    const key = keyOf(pos)
    const slots = stores.get(key)
    if (!slots) return []
    windows.closeViewers(slots)
    stores.delete(key)
    return slots.filter(Boolean)
  }

  function onInteract ({ block, player }) {
    if (player.crouching || player.world !== serv.overworld) return false
    windows.open(player, { type: 'minecraft:generic_9x3', title: 'Chest', slots: slotsAt(block.position), chest: block.position.floored() })
    return true
  }

  return { getChest, setChest, forget, onInteract }
}

module.exports = { chestStore }
