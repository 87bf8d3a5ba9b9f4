'use strict'
// Block edits and counts over a box of positions (for /fill, /setblock and the world master).
const { Vec3 } = require('vec3')
const { stripNamespace } = require('./items')

const MAX_VOLUME = 32768 // vanilla /fill limit

function regionTools (serv) {
  const { registry } = serv
  const Block = require('prismarine-block')(registry)

  // "stone" or "chest[facing=east]" -> state id; unnamed properties keep the block's default.
  function parseBlockState (text) {
    const match = String(text).match(/^([\w:]+)(?:\[(.*)\])?$/)
    const block = match && registry.blocksByName[stripNamespace(match[1])]
    if (!block) throw new Error(`unknown block '${text}'`)
    if (!match[2]) return block.defaultState
    const properties = Block.fromStateId(block.defaultState, 0).getProperties()
    for (const pair of match[2].split(',')) {
      const [key, value] = pair.split('=').map(s => s.trim())
      if (!(key in properties)) throw new Error(`block ${block.name} has no property '${key}'`)
      properties[key] = value
    }
    return Block.fromProperties(block.name, properties, 0).stateId
  }

  function box (from, to) {
    const min = new Vec3(Math.min(from.x, to.x), Math.min(from.y, to.y), Math.min(from.z, to.z)).floored()
    const max = new Vec3(Math.max(from.x, to.x), Math.max(from.y, to.y), Math.max(from.z, to.z)).floored()
    const volume = (max.x - min.x + 1) * (max.y - min.y + 1) * (max.z - min.z + 1)
    if (volume > MAX_VOLUME) throw new Error(`too many blocks in the region (${volume} > ${MAX_VOLUME})`)
    return { min, max }
  }

  async function forEachPosition (from, to, fn) {
    const { min, max } = box(from, to)
    for (let x = min.x; x <= max.x; x++) {
      for (let y = min.y; y <= max.y; y++) {
        for (let z = min.z; z <= max.z; z++) await fn(new Vec3(x, y, z))
      }
    }
  }

  // {blockName: count} over the box; air is left out unless asked for by name.
  async function countBlocks (world, from, to, name = null) {
    const counts = {}
    await forEachPosition(from, to, async (pos) => {
      const block = registry.blocksByStateId[await world.getBlockStateId(pos)]
      if (name ? block.name !== stripNamespace(name) : block.name === 'air') return
      counts[block.name] = (counts[block.name] ?? 0) + 1
    })
    return counts
  }

  // The box's blocks as {palette: [name], cells: [palette index]}, x outermost, then y, then z.
  async function readBlocks (world, from, to) {
    const palette = []
    const index = new Map()
    const cells = []
    await forEachPosition(from, to, async (pos) => {
      const name = registry.blocksByStateId[await world.getBlockStateId(pos)].name
      if (!index.has(name)) {
        index.set(name, palette.length)
        palette.push(name)
      }
      cells.push(index.get(name))
    })
    return { palette, cells }
  }

  // Sets every position of the box to stateId; keep: only air positions, filter: only that block.
  // origin ({agent, cause}) is what the journal records the changes under. Returns how many blocks changed.
  async function fill (world, from, to, stateId, { keep = false, filter = null, origin = {} } = {}) {
    box(from, to) // validate before changing anything
    let changed = 0
    await forEachPosition(from, to, async (pos) => {
      const current = await world.getBlockStateId(pos)
      const name = registry.blocksByStateId[current].name
      if (current === stateId || (keep && name !== 'air') || (filter && name !== stripNamespace(filter))) return
      await serv.setBlock(world, pos, stateId, origin)
      changed++
    })
    return changed
  }

  return { parseBlockState, countBlocks, readBlocks, fill }
}

module.exports = { regionTools }
