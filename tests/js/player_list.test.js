'use strict'
// The server's plugin drops flying-squid's 5-second latency broadcast and nothing else of the player list.
const test = require('node:test')
const assert = require('node:assert/strict')
const { latencyOnly, withoutLatencyUpdates } = require('../../blockpact/bridge/js/server/plugin/player_list')

test('a player_info packet is dropped only when it carries latencies alone', () => {
  assert.equal(latencyOnly('player_info', { action: { update_latency: true }, data: [] }), true)
  assert.equal(latencyOnly('player_info', { action: 'update_latency', data: [] }), true) // before 1.19.3
  assert.equal(latencyOnly('player_info', { action: { add_player: true, update_latency: true }, data: [] }), false)
  assert.equal(latencyOnly('player_info', { action: { update_game_mode: true }, data: [] }), false)
  assert.equal(latencyOnly('player_info', { action: 'add_player', data: [] }), false)
  assert.equal(latencyOnly('rel_entity_move', { action: { update_latency: true } }), false)
})

test('the player\'s client is written everything else', () => {
  const written = []
  const player = { _client: { write: (name, params) => written.push(name) } }
  withoutLatencyUpdates(player)
  player._client.write('player_info', { action: { update_latency: true }, data: [] })
  player._client.write('player_info', { action: { add_player: true, update_latency: true }, data: [] })
  player._client.write('chat', {})
  assert.deepEqual(written, ['player_info', 'chat'])
})
