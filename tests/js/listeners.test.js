'use strict'
// A bot's listener that throws is reported for that bot and the runtime goes on (mineflayer/listeners.js): a
// throw from a timer's emit (mineflayer's physicsTick) would otherwise be an uncaught exception, which ends
// this test process as it ended the bots' runtime.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { EventEmitter } = require('node:events')
const { isolateListeners } = require('../../blockpact/bridge/js/mineflayer/listeners')

function isolated () {
  const failures = []
  const emitter = isolateListeners(new EventEmitter(), (event, err) => failures.push(`${event}: ${err.message}`))
  return { emitter, failures }
}

test('a listener that throws is reported, and the listeners after it still run, in order', () => {
  const { emitter, failures } = isolated()
  const heard = []
  emitter.on('physicsTick', (n) => heard.push(`a${n}`))
  emitter.on('physicsTick', () => { const pos = undefined; return pos.y }) // pathfinder's A* on an undefined position
  emitter.on('physicsTick', (n) => heard.push(`c${n}`))
  assert.equal(emitter.emit('physicsTick', 1), true)
  assert.equal(emitter.emit('physicsTick', 2), true)
  assert.deepEqual(heard, ['a1', 'c1', 'a2', 'c2'])
  assert.deepEqual(failures, ["physicsTick: Cannot read properties of undefined (reading 'y')",
    "physicsTick: Cannot read properties of undefined (reading 'y')"])
  assert.equal(emitter.emit('nobody'), false)
})

test('a throw from a timer\'s emit does not escape it', async () => {
  const { emitter, failures } = isolated()
  emitter.on('physicsTick', () => { throw new TypeError('no position') })
  await new Promise((resolve) => setTimeout(() => { emitter.emit('physicsTick'); resolve() }, 1))
  assert.deepEqual(failures, ['physicsTick: no position'])
})

test('an async listener that rejects is reported, not left an unhandled rejection', async () => {
  const { emitter, failures } = isolated()
  emitter.on('packet', async () => { throw new Error('bad packet') })
  emitter.on('packet', async () => { throw 'a string' }) // eslint-disable-line no-throw-literal
  emitter.emit('packet')
  await new Promise(setImmediate)
  assert.deepEqual(failures, ['packet: bad packet', 'packet: a string'])
})

test('once, this, arguments and listeners removed while emitting behave as EventEmitter\'s', () => {
  const { emitter, failures } = isolated()
  const heard = []
  const later = () => heard.push('later')
  emitter.once('spawn', function (a, b) { heard.push([this === emitter, a, b]); emitter.off('spawn', later) })
  emitter.on('spawn', later) // removed by the first listener: still called on this emit, as EventEmitter does
  emitter.emit('spawn', 1, 2)
  emitter.emit('spawn', 3, 4)
  assert.deepEqual(heard, [[true, 1, 2], 'later'])
  assert.equal(emitter.listenerCount('spawn'), 0)
  assert.deepEqual(failures, [])
})

test('an error nobody listens to still throws; a listened one reaches its listeners', () => {
  const { emitter, failures } = isolated()
  assert.throws(() => emitter.emit('error', new Error('socket closed')), /socket closed/)
  const heard = []
  emitter.on('error', (err) => heard.push(err.message))
  emitter.emit('error', new Error('socket closed'))
  assert.deepEqual(heard, ['socket closed'])
  assert.deepEqual(failures, [])
})

test('a failing failure handler does not fail the emit', () => {
  const emitter = isolateListeners(new EventEmitter(), () => { throw new Error('handler broke') })
  const heard = []
  emitter.on('tick', () => { throw new Error('listener broke') })
  emitter.on('tick', () => heard.push('after'))
  emitter.emit('tick')
  assert.deepEqual(heard, ['after'])
})
