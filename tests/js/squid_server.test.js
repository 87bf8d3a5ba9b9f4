'use strict'
// The server launcher: readiness line, operators, and that the server never outlives its parent.
const test = require('node:test')
const { describe, before, after } = require('node:test')
const assert = require('node:assert/strict')
const { spawn } = require('child_process')
const { once } = require('events')
const net = require('net')
const { Vec3 } = require('vec3')
const mineflayer = require('mineflayer')
const { startServer, connectBot, quitBot, command, eventually, withTimeout, VERSION } = require('./squid_harness')

const SERVER = require.resolve('../../blockpact/bridge/js/server/server.js')

function alive (pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('one server started with an operator (its start is the costly part)', () => {
  let server
  let joined = null
  before(async () => { server = await startServer({ args: ['--op', 'boss', '--view-distance', '4'] }) })
  after(async () => {
    const bots = await joined?.catch(() => null)
    await server.close()
    for (const bot of Object.values(bots ?? {})) await quitBot(bot)
  })
  // boss (an operator) and guest, joined once for the tests that need them.
  const bots = () => (joined ??= (async () => ({ boss: await connectBot(server, 'boss'), guest: await connectBot(server, 'guest') }))())

  test('prints a ready line and accepts connections on 127.0.0.1', async () => {
    assert.equal(server.version, VERSION)
    assert.ok(server.port > 0)
    const socket = net.connect(server.port, '127.0.0.1')
    await withTimeout(once(socket, 'connect'), 2000, 'tcp connect')
    socket.destroy()
  })

  test('fits the view distance of later joins to a map: a bot at one corner sees the opposite corner and the player there', async () => {
    assert.equal(await server.request('viewDistance'), 4) // --view-distance: the ceiling
    await assert.rejects(server.request('viewDistance', { from: [0, 0, 0] }), /from and to/)
    assert.equal(await server.request('viewDistance', { from: [0, 0, 0], to: [79, 9, 9] }), 4) // 5 columns: the ceiling
    assert.equal(await server.request('viewDistance', { from: [0, 0, 0], to: [9, 9, 9] }), 2) // 1 column: the floor
    assert.equal(await server.request('viewDistance', { from: [-16, 0, 0], to: [31, 9, 9] }), 3)
    assert.equal(await server.request('viewDistance', { from: [0, 0, 0], to: [31, 9, 31] }), 2)
    await server.request('command', { command: 'setblock 31 4 31 gold_block' })
    const { boss, guest } = await bots() // both spawn at (0, 5, 0), the map's corner
    assert.match(await command(boss, 'tp boss 31 5 31'), /Teleported/)
    await eventually(() => guest.blockAt(new Vec3(31, 4, 31))?.name === 'gold_block', 'guest sees the far corner')
    assert.deepEqual(guest.findBlock({ matching: guest.registry.blocksByName.gold_block.id, maxDistance: 64 })?.position.toArray(), [31, 4, 31])
    const far = new Vec3(31.5, 5, 31.5)
    await eventually(() => guest.entities[boss.entity.id]?.position.distanceTo(far) < 0.1, 'guest sees boss there')
    // two columns on each side, not four: the third column east of the map was never sent
    assert.notEqual(guest.blockAt(new Vec3(31, 4, 0)), null)
    assert.equal(guest.blockAt(new Vec3(32, 4, 0)), null)
  })

  test('only operators may run operator commands', async () => {
    const { boss, guest } = await bots()
    assert.match(await command(guest, 'fill 5 5 5 5 5 5 stone'), /permission/)
    assert.equal(await command(boss, 'fill 5 5 5 5 5 5 stone'), 'Successfully filled 1 block(s)')
  })

  test("flying-squid's commands open to everyone (/kill @a killed every player) need operator rights too", async () => {
    const { guest } = await bots()
    for (const text of ['kill @a', 'kill', 'summon zombie', 'time set 0', 'gamemode creative', 'give guest diamond 1', 'tp guest 0 9 0']) {
      assert.match(await command(guest, text), /permission/, text)
    }
    assert.equal(guest.health, 20)
    assert.equal(await command(guest, 'ping'), 'pong!') // commands that only print stay open
  })

  test('stops when its stdin closes, kicking connected bots', async () => {
    const { guest } = await bots()
    const kicked = once(guest, 'end')
    await server.close() // closes stdin, SIGKILL after 5 s
    await withTimeout(kicked, 3000, 'bot end')
    assert.equal(alive(server.pid), false)
  })
})

test('disconnects a join past max-entities at once, saying why (not a silent wait for the spawn timeout)', async (t) => {
  const server = await startServer({ args: ['--max-entities', '0'] }) // room for one player
  t.after(() => server.close())
  const first = await connectBot(server, 'first')
  t.after(() => quitBot(first))
  const second = mineflayer.createBot({ host: '127.0.0.1', port: server.port, username: 'second', version: server.version, auth: 'offline', hideErrors: true })
  second.on('error', () => {})
  const [reason] = await withTimeout(once(second, 'kicked'), 10000, 'second refused')
  assert.match(JSON.stringify(reason), /server is full.*max-entities 0/)
  assert.ok(first._client.socket.writable, 'the admitted player stays')
})

test('--entity-range: a player is sent the other players within that many blocks of it, and no farther', async (t) => {
  const server = await startServer({ args: ['--entity-range', '10', '--op', 'boss'] })
  t.after(() => server.close())
  const boss = await connectBot(server, 'boss')
  t.after(() => quitBot(boss))
  const guest = await connectBot(server, 'guest')
  t.after(() => quitBot(guest))
  const seen = () => guest.entities[boss.entity.id] !== undefined
  await eventually(seen, 'guest sees boss beside it')
  assert.match(await command(boss, 'tp boss 20 5 0'), /Teleported/) // 20 blocks away: out of range
  await eventually(() => !seen(), 'boss leaves guest\'s world')
  assert.match(await command(boss, 'tp boss 6 5 0'), /Teleported/)
  await eventually(() => seen() && guest.entities[boss.entity.id].position.distanceTo(new Vec3(6.5, 5, 0.5)) < 1, 'guest sees boss back')
})

test('stops on SIGTERM with exit code 0', async (t) => {
  const server = await startServer()
  t.after(() => server.close())
  process.kill(server.pid, 'SIGTERM')
  const { code } = await withTimeout(server.exited, 5000, 'server exit after SIGTERM')
  assert.equal(code, 0)
})

test('dies with a parent killed abruptly', async (t) => {
  // The parent spawns the server with a stdin pipe, reports its pid, and is then SIGKILLed.
  const parentCode = `
    const child = require('child_process').spawn(process.execPath, [${JSON.stringify(SERVER)}, '--port', '0'], { stdio: ['pipe', 'pipe', 'inherit'] })
    child.stdout.once('data', () => console.log(child.pid))`
  const parent = spawn(process.execPath, ['-e', parentCode], { stdio: ['ignore', 'pipe', 'inherit'] })
  const [pidLine] = await withTimeout(once(parent.stdout, 'data'), 20000, 'server pid')
  const serverPid = Number(String(pidLine).trim())
  t.after(() => { if (alive(serverPid)) process.kill(serverPid, 'SIGKILL') })
  assert.ok(alive(serverPid))
  parent.kill('SIGKILL')
  await eventually(() => !alive(serverPid), 'orphaned server exit')
})

test('refuses a version flying-squid cannot serve', async () => {
  const child = spawn(process.execPath, [SERVER, '--port', '0', '--version', '1.7'], { stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', chunk => { stderr += chunk })
  const [code] = await withTimeout(once(child, 'exit'), 10000, 'exit')
  assert.equal(code, 1)
  assert.match(stderr, /failed to start/)
})
