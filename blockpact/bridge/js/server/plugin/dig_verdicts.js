'use strict'
const { Vec3 } = require('vec3')
// Tells each digger whose dig broke a block, on the plugin channel `blockpact:dig` (one JSON string a message).
// When two players finish digging one block, the first breaks it and the other's dig is refused (drops.js)
// or finds air; either way the loser's client sees the block turn to air as if it had broken it itself.
// Bots of one Node runtime could tell each other who got it; bots on two runtimes (or a bot and a person)
// cannot: the server is the authority. Messages:
//   {hello: 1}                        on spawning: this server answers every finished dig
//   {pos: [x, y, z], won: true}       this player's dig broke the block
//   {pos, won: false, by: name|null}  it did not: `by` broke it (null: the block is still there, or nobody
//                                     known broke it); sent to every other player of the world when a dig
//                                     breaks a block (before the block's change), so that a player still
//                                     digging or walking to it knows who got it

const CHANNEL = 'blockpact:dig'
const POLL_MS = 50
const POLL_LIMIT = 40 // a finish flying-squid has not judged after this many polls is answered from the block

const keyOf = (p) => `${p.x},${p.y},${p.z}`

// One per server: who last broke each block.
function digVerdicts (serv) {
  const brokeBy = new Map() // "x,y,z" -> the player whose dig last broke the block

  function send (player, message) {
    try {
      player._client.writeChannel(CHANNEL, JSON.stringify(message))
    } catch (err) { /* a player who has left */ }
  }

  // The outcome of a dig flying-squid judged (its 'dug' behaviour): won unless cancelled; `lostTo` names
  // the player who had the block (drops.js's refusal knows), else the last one who broke it.
  function judged (player, position, cancelled, lostTo) {
    const key = keyOf(position)
    const pos = [position.x, position.y, position.z]
    if (player.blockpactFinish?.key === key) player.blockpactFinish.judged = true
    if (cancelled) return send(player, { pos, won: false, by: lostTo ?? brokeBy.get(key) ?? null })
    brokeBy.set(key, player.username)
    send(player, { pos, won: true })
    for (const other of serv.players) if (other !== player && other.world === player.world) send(other, { pos, won: false, by: player.username })
  }

  // flying-squid ignores a "finish digging" of a block that is air by the time it reads it: no 'dug', no
  // answer. Once it has had its turn (its reads take microtasks only), an unjudged finish of an air block
  // lost it to whoever broke it; of a block still there, after POLL_LIMIT polls, it broke nothing.
  async function finished (player, position) {
    const finish = { key: keyOf(position), judged: false }
    player.blockpactFinish = finish
    for (let poll = 0; ; poll++) {
      await new Promise(resolve => poll === 0 ? setImmediate(resolve) : setTimeout(resolve, POLL_MS))
      if (finish.judged || player.blockpactFinish !== finish) return
      const block = await player.world.getBlock(position)
      if (finish.judged || player.blockpactFinish !== finish) return
      const by = brokeBy.get(finish.key) ?? null
      if (block.type === 0 && by === player.username) return // its own (creative) dig, answered already
      if (block.type === 0 || poll >= POLL_LIMIT) {
        return send(player, { pos: [position.x, position.y, position.z], won: false, by: block.type === 0 ? by : null })
      }
    }
  }

  function attach (player) {
    player._client.registerChannel(CHANNEL, ['string', []])
    player.once('spawned', () => send(player, { hello: 1 }))
    player._client.on('block_dig', ({ location, status }) => {
      if (status === 2 && location) finished(player, new Vec3(location.x, location.y, location.z)).catch(() => {})
    })
  }

  return { attach, judged }
}

module.exports = { digVerdicts, CHANNEL }
