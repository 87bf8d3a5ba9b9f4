'use strict'
// The server launcher: readiness line, operators, and that the server never outlives its parent.
const test = require('node:test')
const { describe, before, after } = require('node:test')
const assert = require('node:assert/strict')
const { spawn } = require('child_process')
const { once } = require('events')
const net = require('net')
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
  before(async () => { server = await startServer({ args: ['--op', 'boss'] }) })
  after(() => server.close())

  test('prints a ready line and accepts connections on 127.0.0.1', async () => {
    assert.equal(server.version, VERSION)
    assert.ok(server.port > 0)
    const socket = net.connect(server.port, '127.0.0.1')
    await withTimeout(once(socket, 'connect'), 2000, 'tcp connect')
    socket.destroy()
  })

  test('only operators may run operator commands', async (t) => {
    const boss = await connectBot(server, 'boss')
    t.after(() => quitBot(boss))
    const guest = await connectBot(server, 'guest')
    t.after(() => quitBot(guest))
    assert.match(await command(guest, 'fill 5 5 5 5 5 5 stone'), /permission/)
    assert.equal(await command(boss, 'fill 5 5 5 5 5 5 stone'), 'Successfully filled 1 block(s)')
  })
})

test('stops when its stdin closes, kicking connected bots', async (t) => {
  const server = await startServer()
  const bot = await connectBot(server, 'watcher')
  t.after(() => quitBot(bot))
  const kicked = once(bot, 'end')
  await server.close() // closes stdin, SIGKILL after 5 s
  await withTimeout(kicked, 3000, 'bot end')
  assert.equal(alive(server.pid), false)
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
