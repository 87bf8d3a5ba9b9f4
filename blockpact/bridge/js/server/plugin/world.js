'use strict'
// Reproducible surroundings: a fixed time of day and one spawn point instead of flying-squid's
// random spot within 30 blocks of the origin.
const { Vec3 } = require('vec3')

function applyWorldSettings (serv, { time = 6000, spawn = { x: 0, z: 0 } }) {
  if (time !== null) {
    serv.doDaylightCycle = false
    serv.setTime(time)
  }
  const [minY, maxY] = serv.supportFeature('tallWorld') ? [-64, 319] : [0, 255]
  // Stand on the highest non-air block of the spawn column.
  serv.getSpawnPoint = async (world) => {
    for (let y = maxY; y > minY; y--) {
      if (await world.getBlockType(new Vec3(spawn.x, y, spawn.z)) !== 0) return new Vec3(spawn.x + 0.5, y + 1, spawn.z + 0.5)
    }
    return new Vec3(spawn.x + 0.5, minY + 1, spawn.z + 0.5)
  }
}

module.exports = { applyWorldSettings }
