'use strict'
// A person in a scenario's `human` slot, played by a real mineflayer client (tests/test_human_slot.py):
// it joins the server under the slot's name and acts on what the run tells it in chat, as a person
// reading their chat would. On its negotiation turn it says MESSAGE, then accepts the proposal on the
// table (or passes when there is none); when the episode starts it picks the block at X,Y,Z by hand and
// says "done". Every chat line it hears and everything it does is printed as one JSON line on stdout.
//
//   node human_client.js HOST PORT NAME VERSION MESSAGE X,Y,Z
const mineflayer = require('mineflayer')
const { Vec3 } = require('vec3')

const [host, port, username, version, message, where] = process.argv.slice(2)
const [x, y, z] = where.split(',').map(Number)
const say = (kind, data) => process.stdout.write(JSON.stringify({ kind, ...data }) + '\n')

const bot = mineflayer.createBot({ host, port: Number(port), username, version, auth: 'offline' })
bot.once('spawn', () => say('spawned', {}))
bot.on('kicked', (reason) => say('kicked', { reason: String(reason) }))
bot.on('error', (err) => say('error', { message: err.message }))
bot.on('end', () => { say('end', {}); process.exit(0) })
process.stdin.on('end', () => bot.quit()) // the test closes our stdin to let us go
process.stdin.resume()

bot.on('messagestr', (text, position) => {
  if (position === 'chat') return // players' chat (our own included), not what the run tells us
  say('heard', { text })
  if (/^Round \d+ of \d+: your turn/.test(text)) {
    bot.chat(message)
    setTimeout(() => bot.chat(/'accept' takes/.test(text) ? 'accept' : 'pass'), 500)
  } else if (/episode has started/.test(text)) {
    pick().catch((err) => say('error', { message: err.message }))
  }
})

async function pick () {
  const block = bot.blockAt(new Vec3(x, y, z))
  if (!block) throw new Error(`no block loaded at ${where}`)
  say('digging', { block: block.name })
  await bot.dig(block, true)
  const deadline = Date.now() + 5000
  while (!bot.inventory.items().some(item => item.name === block.name) && Date.now() < deadline) {
    await bot.waitForTicks(2)
  }
  say('holding', { items: bot.inventory.items().map(i => [i.name, i.count]) })
  bot.chat('done')
}
