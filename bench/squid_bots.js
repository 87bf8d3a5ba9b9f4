#!/usr/bin/env node
'use strict'
// Measures the embedded server: start time, one bot's connect+spawn time, and how many bots one
// Node process keeps connected at once. Prints one JSON line.
//   node bench/squid_bots.js [--version 1.20.4] [--counts 8,16,32] [--hold 10]
const { spawn } = require('child_process')
const fs = require('fs')
const path = require('path')
const readline = require('readline')
const { once } = require('events')
const mineflayer = require('mineflayer')

const SERVER = path.join(__dirname, '..', 'blockpact', 'bridge', 'js', 'server', 'server.js')

function option (name, fallback) {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? process.argv[i + 1] : fallback
}

const sleep = (ms) => new Promise(resolve => setTimeout(resolve, ms))

function rssMb (pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  return Math.round(Number(status.match(/VmRSS:\s+(\d+)/)[1]) / 1024)
}

function median (values) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

async function startServer (version) {
  const started = Date.now()
  const child = spawn(process.execPath, [SERVER, '--port', '0', '--version', version], { stdio: ['pipe', 'pipe', 'inherit'] })
  const [line] = await once(readline.createInterface({ input: child.stdout }), 'line')
  return { child, port: JSON.parse(line).port, startMs: Date.now() - started }
}

// Resolves {bot, ms} once the bot spawned, or {bot, error} if it could not.
function connect (port, version, username) {
  const started = Date.now()
  const bot = mineflayer.createBot({ host: '127.0.0.1', port, username, version, auth: 'offline', hideErrors: true })
  bot.connected = false
  bot.once('end', () => { bot.connected = false })
  return new Promise(resolve => {
    const timer = setTimeout(() => resolve({ bot, error: 'spawn timeout' }), 60000)
    bot.once('spawn', () => { clearTimeout(timer); bot.connected = true; resolve({ bot, ms: Date.now() - started }) })
    bot.once('error', (err) => { clearTimeout(timer); resolve({ bot, error: err.message }) })
    bot.once('kicked', (reason) => { clearTimeout(timer); resolve({ bot, error: `kicked: ${reason}` }) })
  })
}

async function quitAll (bots) {
  await Promise.all(bots.map(async (bot) => {
    if (bot._client.ended) return
    const ended = once(bot, 'end')
    bot.quit()
    await Promise.race([ended, sleep(3000)])
  }))
}

async function crowd (server, version, count, holdSeconds) {
  const started = Date.now()
  const results = await Promise.all(Array.from({ length: count }, (_, i) => connect(server.port, version, `bench${count}_${i}`)))
  const allMs = Date.now() - started
  const spawned = results.filter(r => r.ms !== undefined)
  await sleep(holdSeconds * 1000)
  const bots = results.map(r => r.bot)
  const row = {
    bots: count,
    spawned: spawned.length,
    connect_all_ms: allMs,
    median_spawn_ms: spawned.length ? median(spawned.map(r => r.ms)) : null,
    max_spawn_ms: spawned.length ? Math.max(...spawned.map(r => r.ms)) : null,
    hold_s: holdSeconds,
    still_connected: bots.filter(bot => bot.connected).length,
    errors: [...new Set(results.filter(r => r.error).map(r => r.error))],
    bench_rss_mb: rssMb(process.pid),
    server_rss_mb: rssMb(server.child.pid)
  }
  await quitAll(bots)
  await sleep(1000) // let the server forget the players before the next round
  return row
}

async function main () {
  const version = option('version', '1.20.4')
  const counts = option('counts', '8,16,32').split(',').map(Number)
  const hold = Number(option('hold', '10'))
  const server = await startServer(version)
  try {
    const single = await connect(server.port, version, 'bench_single')
    await quitAll([single.bot])
    const rounds = []
    for (const count of counts) rounds.push(await crowd(server, version, count, hold))
    console.log(JSON.stringify({ version, server_start_ms: server.startMs, single_bot_spawn_ms: single.ms ?? single.error, rounds }))
  } finally {
    server.child.stdin.end()
    await Promise.race([once(server.child, 'exit'), sleep(5000)])
    if (server.child.exitCode === null) server.child.kill('SIGKILL')
  }
  process.exit(0) // mineflayer leaves 20 s event timeouts behind
}

main().catch(err => {
  console.error(err)
  process.exit(1)
})
