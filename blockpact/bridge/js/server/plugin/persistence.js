'use strict'
// A player who leaves and comes back finds their items and place again, as on a vanilla server
// (flying-squid keeps player data only in a world folder). Kept in memory for the server's life.

function playerStore (serv, tools) {
  const saved = new Map() // username -> {slots: [{slot, name, count}], cursor, position, heldItemSlot}

  function save (player) {
    const slots = player.inventory.slots.flatMap((item, slot) => item ? [{ slot, name: item.name, count: item.count }] : [])
    const cursor = player.blockpactWindows?.cursor
    saved.set(player.username, {
      slots,
      cursor: cursor ? { name: cursor.name, count: cursor.count } : null,
      position: player.position.clone(),
      heldItemSlot: player.heldItemSlot
    })
  }

  // After login (which gave an empty inventory at the spawn point): the saved items and place.
  async function restore (player) {
    const state = saved.get(player.username)
    if (!state) return
    saved.delete(player.username)
    for (const { slot, name, count } of state.slots) {
      player.inventory.updateSlot(slot, tools.make(name, count))
    }
    if (state.cursor) {
      const left = tools.addToPlayer(player, tools.make(state.cursor.name, state.cursor.count))
      if (left > 0) serv.blockpact.drop(player, tools.make(state.cursor.name, left), left)
    }
    player.heldItemSlot = state.heldItemSlot
    player._client.write('held_item_slot', { slot: state.heldItemSlot })
    player.blockpactTeleported = true
    await player.teleport(state.position)
  }

  return { save, restore }
}

module.exports = { playerStore }
