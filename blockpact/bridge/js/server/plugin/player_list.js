'use strict'
// The player list's latency column, never sent. flying-squid sends every player, every 5 s, the latency of
// every player (a player_info packet of N entries), and mineflayer looks each entry's player up by a scan of
// all players and all entities: per Node runtime holding B bots, B x N x (N players + N entities) steps every
// 5 s. With 128 bots over two runtimes that was 30% of each runtime's main thread and 17% of the server's
// (CPU profiles of `bench/live_scale.py --bots 128 --runtimes 2 --busy 0 --rounds 1 --budget 600` under node --cpu-prof). No bot reads another's latency (bot.players[name].ping
// stays at what the join said); joins, leaves, game modes and names still reach everyone.

// flying-squid's latency update: action {update_latency: true} alone (1.19.3+) or 'update_latency' (older).
function latencyOnly (name, params) {
  if (name !== 'player_info' || !params) return false
  const action = params.action
  if (action === 'update_latency') return true
  return typeof action === 'object' && action !== null && action.update_latency === true &&
    Object.entries(action).every(([key, on]) => key === 'update_latency' || !on)
}

// Drops the latency updates written to this player's client; everything else goes out as before.
function withoutLatencyUpdates (player) {
  const client = player._client
  const write = client.write.bind(client)
  client.write = (name, params) => (latencyOnly(name, params) ? undefined : write(name, params))
}

module.exports = { withoutLatencyUpdates, latencyOnly }
