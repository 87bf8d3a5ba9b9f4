'use strict'
// The world's age in ticks, as a vanilla server tells its players: flying-squid counts its ticks but sends every
// update_time with age 0, so `bot.time.age` never moved on the embedded server and a program that keeps time by it
// (the scripted cooperative player's quota rounds) saw its clock stopped: its second round never came. The age
// counts the server's own ticks (20 a second on an idle machine, fewer on a busy one) from `reset()` (a world
// master resets it as the episode's clock starts); it is sent to every player each 20 ticks, as vanilla does, and
// in every update_time flying-squid writes (at login, at a time change).
const TICKS_PER_UPDATE = 20

function worldAge (serv) {
  let ticks = 0
  const packet = () => ({ age: [Math.floor(ticks / 2 ** 32), ticks % 2 ** 32], time: [0, serv.time ?? 0] })
  serv.on('tick', () => {
    ticks++
    if (ticks % TICKS_PER_UPDATE === 0) serv._writeAll('update_time', packet())
  })
  return {
    ticks: () => ticks,
    reset () {
      ticks = 0
      serv._writeAll('update_time', packet())
    },
    // flying-squid's own update_time packets to this player carry the age too.
    attach (player) {
      const client = player._client
      const write = client.write.bind(client)
      client.write = (name, params) => write(name, name === 'update_time' ? { ...params, age: packet().age } : params)
    }
  }
}

module.exports = { worldAge }
