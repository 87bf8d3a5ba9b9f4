'use strict'
// The server's record of what happens in the world, in the simulator's event kinds, for a world
// master to drain over the control channel: `block` (pos, old, new, cause), `inventory` (item,
// delta, count, cause), `chest` (pos, item, delta, count), `chat` (message). Each entry carries
// the wall time (ms) it happened and the player responsible (null for the server itself).
//
// Inventories are tallied per player name (the cursor counts as held, as in vanilla), and a
// change is recorded under the cause of whatever made it: a dig, a window click, a command. A
// slot change nobody claimed is recorded a moment later, as a pickup, a placement or 'other'.
const MAX_ENTRIES = 100000 // a master that never drains must not exhaust memory

function journal (serv, tools) {
  let entries = []
  let dropped = 0
  const tallies = new Map() // player name -> {item: count}
  const pending = new Map() // player -> cause of the slot changes made right now

  function record (kind, agent, data) {
    if (entries.length >= MAX_ENTRIES) {
      entries.shift()
      dropped++
    }
    entries.push({ time: Date.now(), agent, kind, data })
  }

  // Everything recorded since the last drain, oldest first.
  function drain () {
    const out = { entries, dropped }
    entries = []
    dropped = 0
    return out
  }

  // Window slots 0-4 are the 2x2 crafting grid; the cursor is held.
  const tallyOf = (player) => tally([...player.inventory.slots.slice(5), player.blockpactWindows?.cursor])

  // Records how the player's items changed since the last sync, under `cause` (a function of the
  // delta, or a string).
  function syncInventory (player, cause) {
    if (!player.username || !player.inventory) return
    const now = tallyOf(player)
    const before = tallies.get(player.username) ?? {}
    tallies.set(player.username, now)
    for (const item of [...new Set([...Object.keys(before), ...Object.keys(now)])].sort()) {
      const delta = (now[item] ?? 0) - (before[item] ?? 0)
      if (delta === 0) continue
      const why = typeof cause === 'function' ? cause(delta, item) : cause
      record('inventory', player.username, { item, delta, count: now[item] ?? 0, cause: why })
    }
  }

  // Slot changes nobody claimed (pickups, placements, flying-squid's own edits) are synced after
  // the code that made them has run, under the cause it left in `claim`, if any.
  function watch (player) {
    if (!tallies.has(player.username)) tallies.set(player.username, tallyOf(player))
    player.inventory.on('updateSlot', () => {
      if (pending.has(player)) return
      pending.set(player, null)
      setImmediate(() => {
        const cause = pending.get(player) ?? 'other'
        pending.delete(player)
        if (!player.disconnected) syncInventory(player, cause)
      })
    })
  }

  function claim (player, cause) {
    if (pending.has(player)) pending.set(player, cause)
  }

  function blockName (stateId) {
    return serv.registry.blocksByStateId[stateId]?.name ?? 'air'
  }

  function block (position, oldName, newName, agent, cause) {
    if (oldName === newName) return
    record('block', agent, { pos: [position.x, position.y, position.z], old: oldName, new: newName, cause })
  }

  function chestChange (pos, before, after, agent) {
    for (const item of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
      const delta = (after[item] ?? 0) - (before[item] ?? 0)
      if (delta !== 0) record('chest', agent, { pos: [pos.x, pos.y, pos.z], item, delta, count: after[item] ?? 0 })
    }
  }

  return { record, drain, syncInventory, watch, claim, block, blockName, chestChange }
}

// {item: count} over slots (null for empty ones).
function tally (slots) {
  const counts = {}
  for (const item of slots) if (item) counts[item.name] = (counts[item.name] ?? 0) + item.count
  return counts
}

module.exports = { journal, tally }
