'use strict'
// Every mineflayer primitive and host call, and the messages each takes from primitives.toml.
const { uses: preludeUses } = require('../prelude')

const groups = [require('./movement'), require('./blocks'), require('./crafting'), require('./chests'), require('./combat'), require('./signals'), require('./groups')]

// name -> {messagesOf, run(ctx, ...args)}: what host.call(name, args) runs.
const calls = {}
for (const group of groups) {
  for (const [name, run] of Object.entries(group.primitives)) calls[name] = { messagesOf: name, run }
  Object.assign(calls, group.hostCalls ?? {})
}
const primitiveNames = groups.flatMap(group => Object.keys(group.primitives)).concat(['exploreUntil'])
const hostCallNames = groups.flatMap(group => Object.keys(group.hostCalls ?? {}))

// {primitive: {feedback: [prefix], errors: [prefix]}} over every group and the prelude.
const uses = {}
for (const part of [...groups.map(g => g.uses), preludeUses]) {
  for (const [primitive, kinds] of Object.entries(part)) {
    uses[primitive] ??= { feedback: [], errors: [] }
    for (const kind of ['feedback', 'errors']) uses[primitive][kind].push(...(kinds[kind] ?? []))
  }
}

module.exports = { calls, primitiveNames, hostCallNames, uses }
