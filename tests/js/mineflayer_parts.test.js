'use strict'
// The mineflayer body's pieces that need no server: messages from primitives.toml, the signal
// bus shared by the bots of a world, and the checks a LiveWorld makes when it starts.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { messageTable } = require('../../blockpact/bridge/js/mineflayer/feedback')
const { signalBus } = require('../../blockpact/bridge/js/mineflayer/primitives/signals')
const { LiveWorld } = require('../../blockpact/bridge/js/mineflayer')
const { primitiveNames } = require('../../blockpact/bridge/js/mineflayer/primitives')

const TOML_LIKE = {
  mineBlock: { feedback: ['No {name} nearby, please explore first', 'I cannot mine {name} with {tool}'], errors: ['No block named {name}'] }
}

test('messages are found by their start and filled in; unknown ones fail when the table is built', () => {
  const messages = messageTable(TOML_LIKE, { mineBlock: { feedback: ['No {name} nearby', 'I cannot mine'], errors: ['No block named'] } })
  assert.equal(messages.feedback('mineBlock', 'No {name} nearby', { name: 'iron_ore' }), 'No iron_ore nearby, please explore first')
  assert.equal(messages.error('mineBlock', 'No block named', { name: 'x' }).message, 'No block named x')
  assert.throws(() => messages.feedback('mineBlock', 'Placed'), /was not declared/)
  assert.throws(() => messageTable(TOML_LIKE, { mineBlock: { feedback: ['Mined'] } }),
    /mineBlock\.feedback: 0 templates start with "Mined"/)
})

test('a signal reaches every other player once; a waiter wakes, times out, or is cancelled', async () => {
  const bus = signalBus()
  for (const p of ['A', 'B', 'C']) bus.join(p)
  const never = new AbortController().signal
  const waiting = bus.take('B', 5000, never)
  bus.send('A', 'done')
  assert.deepEqual(await waiting, { sender: 'A', task: 'done' })
  assert.deepEqual(await bus.take('C', 10, never), { sender: 'A', task: 'done' }) // queued
  assert.equal(await bus.take('A', 10, never), null) // not to the sender itself
  assert.equal(await bus.take('C', 10, never), null) // taken once
  const abort = new AbortController()
  const cancelled = bus.take('B', 5000, abort.signal)
  abort.abort()
  await assert.rejects(cancelled, /stopped/)
})

test('a LiveWorld refuses a primitives table that does not match its primitives', () => {
  const table = Object.fromEntries(primitiveNames.map(name => [name, { feedback: [], errors: [] }]))
  assert.throws(() => new LiveWorld({ primitives: { ...table, digTunnel: {} }, queries: [] }), /digTunnel/)
  assert.throws(() => new LiveWorld({ primitives: table, queries: ['entity.velocity'] }), /cannot answer bot queries: entity\.velocity/)
  // Right names, but templates missing: every missing message is listed.
  assert.throws(() => new LiveWorld({ primitives: table, queries: [] }), /mineBlock\.feedback: 0 templates start with "No \{name\} nearby"/)
})
