'use strict'
// The server's control channel: one JSON request per line on stdin, one JSON answer per line
// on stdout, matched by "id". Lets a parent process build worlds and read their state without
// an operator bot. Requests:
//   {"id": 1, "op": "command", "command": "fill 0 4 0 3 4 3 stone"} -> {"id": 1, "ok": true, "result": ["Successfully filled 16 block(s)"]}
//   {"op": "getChest", "pos": [x, y, z]}            {"op": "setChest", "pos": [x, y, z], "items": [{"name", "count", "slot"?}]}
//   {"op": "countBlocks", "from": [..], "to": [..], "block"?: name}   {"op": "setDrops", "block": name, "drops": [{"item", "min", "max"}]}
//   {"op": "setHarvest", "block": name, "tools": [item name]}: only these tools harvest the block ([]: anything)
//   {"op": "resetDrops", "seed": integer or decimal string}: the default drop tables and harvest rules again, their random stream restarted for seed
//   {"op": "inventory", "player": name}   {"op": "players"}   {"op": "stop"}
//   {"op": "tell", "player": name, "message": text}: a chat line only that player sees (a person in a human slot)
//   {"op": "readBlocks", "from", "to"} -> {"palette": [name], "cells": [index]} (x outermost, then y, z)
//   {"op": "viewDistance", "from"?: [x, y, z], "to"?: [x, y, z]} -> the view distance players joining from now on get:
//     with a box (a world's map), the smallest that shows all of it from any of its cells (plugin/view.js)
//   {"op": "drainEvents"} -> {"entries": [{time (ms), agent, kind, data}], "dropped": n}: the journal since the last drain
//   {"op": "worldAge", "reset"?: true} -> {"ticks": n, "time": ms}: the server's ticks since the last reset (plugin/world_age.js)
// A command may carry "cause": what the journal records its changes under (default 'command').
// Errors answer {"id", "ok": false, "error": message}. The server stops when stdin closes.
const readline = require('readline')
const { Vec3 } = require('vec3')

const vec = (xyz) => new Vec3(xyz[0], xyz[1], xyz[2])

function handlers (serv, stop) {
  const api = serv.blockpact
  return {
    async command ({ command, cause }) {
      const output = []
      const refusal = await serv.commands.use(String(command).replace(/^\//, ''), { output, cause }, true)
      if (refusal) throw new Error(refusal)
      return output
    },
    getChest: ({ pos }) => api.getChest(vec(pos)),
    setChest: ({ pos, items }) => api.setChest(vec(pos), items),
    countBlocks: ({ from, to, block }) => api.countBlocks(vec(from), vec(to), block ?? null),
    readBlocks: ({ from, to }) => api.readBlocks(vec(from), vec(to)),
    drainEvents: () => api.journal.drain(),
    worldAge: ({ reset }) => {
      if (reset) api.age.reset()
      return { ticks: api.age.ticks(), time: Date.now() }
    },
    viewDistance: ({ from, to }) => from === undefined && to === undefined ? api.view.get() : api.view.fit(from, to),
    setDrops: ({ block, drops }) => api.setDrops(block, drops),
    setHarvest: ({ block, tools }) => api.setHarvest(block, tools),
    resetDrops: ({ seed }) => api.resetDrops(seed),
    inventory: ({ player }) => api.inventory(player),
    tell: ({ player, message }) => {
      const target = serv.players.find(p => p.username === player)
      if (!target) throw new Error(`no player ${player} on the server`)
      target.chat(String(message))
    },
    players: () => serv.players.map(p => ({ username: p.username, position: p.position.toArray(), gameMode: p.gameMode, op: Boolean(p.op) })),
    stop: () => { setImmediate(stop) }
  }
}

function serveControl (serv, input, write, stop) {
  const ops = handlers(serv, stop)
  const lines = readline.createInterface({ input })
  // Requests run one at a time, in order: a world is built by a sequence of dependent edits.
  let queue = Promise.resolve()
  lines.on('line', (line) => { queue = queue.then(() => answer(line)) })
  async function answer (line) {
    if (!line.trim()) return
    let request = {}
    try {
      request = JSON.parse(line)
      const handler = Object.hasOwn(ops, request.op) ? ops[request.op] : null
      if (!handler) throw new Error(`unknown op '${request.op}'`)
      const result = await handler(request)
      write(JSON.stringify({ id: request.id ?? null, ok: true, result: result ?? null }))
    } catch (err) {
      write(JSON.stringify({ id: request.id ?? null, ok: false, error: err.message }))
    }
  }
  lines.on('close', () => { queue.then(() => stop()) })
}

module.exports = { serveControl }
