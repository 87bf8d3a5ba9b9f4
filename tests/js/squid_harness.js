'use strict'
// Test harness: runs blockpact's flying-squid server as a child process (as the Python side
// does) and connects real mineflayer bots to it.
const { spawn } = require('child_process')
const path = require('path')
const readline = require('readline')
const { once } = require('events')
const mineflayer = require('mineflayer')
const { scaled } = require('./pace')

const ROOT = path.join(__dirname, '..', '..')
const SERVER = path.join(ROOT, 'blockpact', 'bridge', 'js', 'server', 'server.js')
const VERSION = process.env.BLOCKPACT_MC_VERSION ?? '1.20.4'

// Gives up on `promise` after `ms`, a bound chosen on an idle machine and stretched by how busy the
// machine is (pace.js): a server starts, and bots spawn, several times slower on a loaded machine. The
// machine's pace is measured only when the idle bound has passed (the measure is a 90 ms busy loop, and
// most waits end long before their bound), and the bound is stretched by it from there.
function withTimeout (promise, ms, what) {
  let timer
  const expired = new Promise((resolve, reject) => {
    timer = setTimeout(() => {
      const bound = scaled(ms / 1000) * 1000
      timer = setTimeout(() => reject(new Error(`timed out: ${what} (${Math.round(bound)} ms)`)), bound - ms)
    }, ms)
  })
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer))
}

// The tests' bots stay within a few blocks of the spawn: two chunk columns around them are plenty, and each
// join costs the server and the bot about a quarter less CPU than at the server's default of 4.
const VIEW_DISTANCE = 2

// Starts the server on a free port; resolves with {port, version, request(op, fields), close()}.
async function startServer ({ version = VERSION, args = [] } = {}) {
  const view = args.includes('--view-distance') ? [] : ['--view-distance', String(VIEW_DISTANCE)]
  const child = spawn(process.execPath, [SERVER, '--port', '0', '--version', version, ...view, ...args], {
    cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe']
  })
  let stderr = ''
  child.stderr.on('data', chunk => { stderr += chunk })
  const exited = once(child, 'exit')
  const lines = readline.createInterface({ input: child.stdout })
  const waiting = new Map()
  let ready
  const readyLine = new Promise((resolve) => { ready = resolve })
  lines.on('line', (line) => {
    let message
    try {
      message = JSON.parse(line)
    } catch { // a line that is not the control protocol (a plugin's or a library's print): shown, not fatal
      process.stderr.write(`server: ${line}\n`)
      return
    }
    if (message.ready) return ready(message)
    waiting.get(message.id)?.(message)
    waiting.delete(message.id)
  })
  const info = await withTimeout(Promise.race([readyLine, exited.then(([code]) => {
    throw new Error(`server exited with ${code}: ${stderr}`)
  })]), 20000, 'server start')

  let nextId = 0
  return {
    port: info.port,
    version: info.version,
    pid: child.pid,
    exited: exited.then(([code, signal]) => ({ code, signal })),
    stderr: () => stderr,
    // Sends a control request; resolves with its result, rejects with its error.
    async request (op, fields = {}) {
      const id = ++nextId
      const answer = new Promise(resolve => waiting.set(id, resolve))
      child.stdin.write(JSON.stringify({ id, op, ...fields }) + '\n')
      const reply = await withTimeout(answer, 10000, `control ${op}`)
      if (!reply.ok) throw new Error(reply.error)
      return reply.result
    },
    // Closing stdin is how a parent stops the server; SIGKILL if it does not go in time.
    async close () {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.stdin.end()
      await withTimeout(exited, 5000, 'server exit').catch(() => {
        child.kill('SIGKILL')
        return exited
      })
    }
  }
}

// Connects a bot and waits until it has spawned.
async function connectBot (server, username) {
  const bot = mineflayer.createBot({
    host: '127.0.0.1', port: server.port, username, version: server.version, auth: 'offline', hideErrors: true
  })
  bot.on('error', () => {}) // failures surface as the spawn timeout below
  await withTimeout(once(bot, 'spawn'), 20000, `${username} spawn`)
  return bot
}

async function quitBot (bot) {
  if (!bot?._client || bot._client.ended) return
  const ended = once(bot, 'end')
  bot.quit()
  await withTimeout(ended, 3000, 'bot quit').catch(() => bot._client.socket?.destroy())
}

// Runs an operator command through a bot and resolves with the server's chat answer.
async function command (bot, text) {
  const answer = new Promise(resolve => {
    const onMessage = (message) => {
      if (/ (joined|left) the game\.$/.test(message)) return
      bot.off('messagestr', onMessage)
      resolve(message)
    }
    bot.on('messagestr', onMessage)
  })
  bot.chat('/' + text)
  return withTimeout(answer, 5000, `/${text}`)
}

const sleep = (ms) => new Promise(resolve => setTimeout(resolve, ms))

// Polls check() until it returns a truthy value, for `ms` on an idle machine (stretched as withTimeout's).
async function eventually (check, what, ms = 5000) {
  const start = Date.now()
  let end = start + ms
  let stretched = false
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > end) {
      if (stretched) throw new Error(`never happened: ${what}`)
      stretched = true
      end = start + scaled(ms / 1000) * 1000
    }
    await sleep(50)
  }
}

module.exports = { startServer, connectBot, quitBot, command, eventually, withTimeout, VERSION }
