'use strict'
// mineflayer-pathfinder post-processes every path it finds in place (nodes moved to block centres), and
// the nodes of a path are the A* search's own nodes. A search that takes longer than the pathfinder's
// tickTimeout (40 ms: routine on a loaded machine) goes on over several ticks, and each partial path it
// reports is post-processed while the search still holds its nodes: a node moved half a block no longer
// satisfies a goal that needs its exact block (moveTo with radius 0, GoalGetToBlock), so the search
// closes the goal's node, exhausts the area and reports "noPath" for a reachable goal.
// detachPathResults makes every result carry copies of its nodes; the search keeps its own.
const AStar = require('mineflayer-pathfinder/lib/astar')

function copyMove (move) {
  return Object.assign(Object.create(Object.getPrototypeOf(move)), move, {
    toBreak: [...move.toBreak],
    toPlace: [...move.toPlace]
  })
}

let detached = false

// Once per process: the pathfinder's A* class is shared by every bot.
function detachPathResults () {
  if (detached) return
  detached = true
  const makeResult = AStar.prototype.makeResult
  AStar.prototype.makeResult = function makeDetachedResult (status, node) {
    const result = makeResult.call(this, status, node)
    result.path = result.path.map(copyMove)
    return result
  }
}

module.exports = { detachPathResults }
