'use strict'
// mineflayer-pathfinder gives up a path search ("timeout": "Took too long to decide a path to the goal")
// once thinkTimeout ms of wall time have passed since it began. The search computes tickTimeout ms per
// physics tick; when Node's main thread runs late (64 bots on a loaded machine: ticks seconds apart), a
// search that needs a few ticks outlives thinkTimeout without having thought for long, and a reachable goal
// fails. countSearchTime makes the bound count the search's own computing time: the gaps between its
// ticks, while other bots and the server's packets use the thread, do not count. On an idle machine a
// search computes in nearly every tick, so the bound is what it was; a goal that cannot be reached is
// still given up after thinkTimeout ms of searching (which bounds the search's memory).
const { performance } = require('node:perf_hooks')
const AStar = require('mineflayer-pathfinder/lib/astar')

let counting = false

// Once per process: the pathfinder's A* class is shared by every bot.
function countSearchTime () {
  if (counting) return
  counting = true
  const compute = AStar.prototype.compute
  AStar.prototype.compute = function computeOnOwnTime () {
    if (this.lastComputeEnd !== undefined) this.startTime += performance.now() - this.lastComputeEnd // waiting is not searching
    try {
      return compute.call(this)
    } finally {
      this.lastComputeEnd = performance.now()
    }
  }
}

module.exports = { countSearchTime }
