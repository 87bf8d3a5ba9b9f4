'use strict'
// The view distance the server gives joining players, fitted to the world it serves. Every chunk column a
// join sends costs the server and the bot CPU (a mineflayer join: 0.58 s of server CPU at distance 4,
// 0.39 s at 2), and a scenario's map is small: the few columns that cover it are enough.
//
// flying-squid sends a player the columns from (its column - d) to (its column + d - 1) on each axis
// (sendNearbyChunks in its world plugin), so a map spanning n columns on an axis is seen whole from any
// of its cells when d >= n.

// At least 2: a bot in the map's outermost column still has a loaded column beyond it to path and fall into.
const MIN_VIEW_DISTANCE = 2

const column = (coordinate) => Math.floor(coordinate / 16)

// The smallest distance at which every cell of the box [from, to] (x, y, z) sees every other, between
// MIN_VIEW_DISTANCE and `ceiling` (a bigger map than the ceiling covers is seen in part, as before).
function viewDistanceFor (from, to, ceiling) {
  const span = (axis) => Math.abs(column(to[axis]) - column(from[axis])) + 1
  return Math.min(ceiling, Math.max(MIN_VIEW_DISTANCE, span(0), span(2)))
}

// The server's view distance: `fit(from, to)` sets it for the players who join from now on; the distance
// it started with (the `view-distance` setting) is the ceiling.
function viewControl (settings) {
  const ceiling = settings['view-distance']
  return {
    get: () => settings['view-distance'],
    fit (from, to) {
      const corner = (xyz) => Array.isArray(xyz) && xyz.length === 3 && xyz.every(Number.isFinite)
      if (!corner(from) || !corner(to)) throw new Error('a view distance is fitted to a box: from and to, [x, y, z] each')
      settings['view-distance'] = viewDistanceFor(from, to, ceiling)
      return settings['view-distance']
    }
  }
}

// How far players see other entities. flying-squid gives every entity a range of 150 blocks (initEntity) and
// sends each move of an entity (rel_entity_move, entity_look, entity_head_rotation) to every player within
// that range of it: in a yard of 128 walking bots, every bot hears every other bot's every move. `range`
// (blocks) replaces it for every entity created from now on; undefined keeps flying-squid's.
function limitEntityRange (serv, range) {
  if (range === undefined || range === null) return
  if (!(Number.isFinite(range) && range >= 0)) throw new Error(`an entity range is a number of blocks >= 0, not ${range}`)
  serv.on('newEntity', (entity) => { entity.viewDistance = range })
}

module.exports = { viewControl, limitEntityRange }
