'use strict'
// The server's plugin tells players the world's age in ticks (flying-squid sends 0), every 20 ticks and in every
// update_time flying-squid writes, counted from the last reset: programs keep time by it (bot.time.age).
const test = require('node:test')
const assert = require('node:assert/strict')
const { EventEmitter } = require('node:events')
const { worldAge } = require('../../blockpact/bridge/js/server/plugin/world_age')

function fakeServer () {
  const serv = new EventEmitter()
  serv.time = 6000
  serv.sent = []
  serv._writeAll = (name, params) => serv.sent.push([name, params])
  return serv
}

test('the age counts the server\'s ticks and is sent every 20 of them', () => {
  const serv = fakeServer()
  const age = worldAge(serv)
  for (let i = 0; i < 45; i++) serv.emit('tick', 0.05, i + 1)
  assert.equal(age.ticks(), 45)
  assert.deepEqual(serv.sent, [['update_time', { age: [0, 20], time: [0, 6000] }],
    ['update_time', { age: [0, 40], time: [0, 6000] }]])
})

test('a reset starts the age from 0 and tells every player at once', () => {
  const serv = fakeServer()
  const age = worldAge(serv)
  for (let i = 0; i < 30; i++) serv.emit('tick', 0.05, i + 1)
  age.reset()
  assert.equal(age.ticks(), 0)
  assert.deepEqual(serv.sent.at(-1), ['update_time', { age: [0, 0], time: [0, 6000] }])
  serv.emit('tick', 0.05, 31)
  assert.equal(age.ticks(), 1)
})

test('flying-squid\'s own update_time to a player carries the age; other packets are untouched', () => {
  const serv = fakeServer()
  const age = worldAge(serv)
  const written = []
  const player = { _client: { write: (name, params) => written.push([name, params]) } }
  age.attach(player)
  for (let i = 0; i < 7; i++) serv.emit('tick', 0.05, i + 1)
  player._client.write('update_time', { age: [0, 0], time: [0, 6000] }) // as flying-squid's login writes it
  player._client.write('chat', { message: 'hi' })
  assert.deepEqual(written, [['update_time', { age: [0, 7], time: [0, 6000] }], ['chat', { message: 'hi' }]])
})
