#!/usr/bin/env node
'use strict'
// The embedded Minecraft server: flying-squid in offline mode on a superflat world with the
// blockpact plugin. Run as a program it prints {"ready": true, ...} on stdout when it accepts
// connections, answers JSON requests on stdin (see control.js) and stops on SIGINT/SIGTERM or
// when stdin closes, so it dies with a parent that dies abruptly.
const path = require('path')

const PLUGIN = path.join(__dirname, 'plugin')

// flying-squid's log plugin attaches a readline console to stdin/stdout when first loaded,
// unless it believes it runs in a browser. stdin and stdout belong to the control channel.
function loadFlyingSquid () {
  const hadBrowser = Object.prototype.hasOwnProperty.call(process, 'browser')
  process.browser = true
  try {
    require('flying-squid/src/lib/plugins/log.js')
  } finally {
    if (!hadBrowser) delete process.browser
  }
  return require('flying-squid')
}

function settingsFor (options) {
  const defaults = require('flying-squid/config/default-settings.json')
  return {
    ...defaults,
    'online-mode': false,
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 25565,
    version: options.version ?? '1.20.4',
    'max-players': options.maxPlayers ?? 64,
    // flying-squid counts players among its entities and refuses a join past this (its default, 100, stopped
    // the 101st of 128 bench bots); a refused join is told why (plugin/capacity.js).
    'max-entities': options.maxEntities ?? 1000,
    'view-distance': options.viewDistance ?? 4,
    'everybody-op': options.everybodyOp ?? false,
    gameMode: options.gameMode ?? 0,
    difficulty: 0,
    // minecraft-protocol kicks a client whose keep-alive answer is 30 s late. Bots share one Node runtime whose
    // main thread a busy machine can starve that long (seen at load 12: `KeepAliveTimeout` kicks mid-episode);
    // on this server a bot is only dropped after two silent minutes.
    kickTimeout: options.kickTimeoutMs ?? 120_000,
    logging: false, // no log files
    noConsoleOutput: !options.verbose,
    worldFolder: options.worldDir, // undefined: the world lives in memory only
    generation: { name: 'superflat', options: { seed: options.seed ?? 0 } },
    plugins: { [PLUGIN]: {} },
    blockpact: {
      ops: options.ops ?? [],
      seed: options.seed ?? 0,
      time: options.time === undefined ? 6000 : options.time, // null: the normal day cycle
      spawn: options.spawn,
      // blocks within which a player is sent the other entities (players, mobs, items) and their every move;
      // undefined: flying-squid's own 150
      entityRange: options.entityRange
    },
    // A debug function also keeps flying-squid from installing process-wide error handlers per player.
    debug: options.verbose ? (...args) => console.error(...args) : () => {}
  }
}

// Starts a server; resolves with {serv, host, port, version, close()} once it accepts connections.
async function startServer (options = {}) {
  const settings = settingsFor(options)
  const serv = loadFlyingSquid().createMCServer(settings)
  serv.log = options.verbose ? (message) => process.stderr.write(message + '\n') : () => {}
  await new Promise((resolve, reject) => {
    serv.once('ready', resolve)
    serv.once('error', reject)
  })
  let closing = null
  return {
    serv,
    host: settings.host,
    port: serv.listeningPort,
    version: settings.version,
    close () {
      closing ??= shutdown(serv)
      return closing
    }
  }
}

// Kicks everyone and stops listening and ticking. flying-squid keeps one latency timer per
// player that joined, so an embedding process must exit by itself after close().
async function shutdown (serv) {
  serv.stopTickInterval()
  await Promise.race([
    Promise.all(serv.players.map(player => new Promise(resolve => {
      player.once('disconnected', resolve)
      player.kick('Server closed')
    }))),
    new Promise(resolve => setTimeout(resolve, 2000).unref())
  ])
  const closed = new Promise(resolve => serv._server.once('close', resolve))
  serv._server.close()
  await closed
  for (const world of [serv.overworld, serv.netherworld]) {
    if (world.storageProvider) await world.waitSaving() // --world-dir: flush changed chunks
    world.stopSaving()
  }
}

function parseArgs (argv) {
  const options = { ops: [] }
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${flag} needs a value`)
      return argv[++i]
    }
    if (flag === '--port') options.port = Number(value())
    else if (flag === '--host') options.host = value()
    else if (flag === '--version') options.version = value()
    else if (flag === '--world-dir') options.worldDir = value()
    else if (flag === '--seed') options.seed = Number(value())
    else if (flag === '--view-distance') options.viewDistance = Number(value())
    else if (flag === '--max-entities') options.maxEntities = Number(value())
    else if (flag === '--entity-range') options.entityRange = Number(value())
    else if (flag === '--op') options.ops.push(value())
    else if (flag === '--everybody-op') options.everybodyOp = true
    else if (flag === '--time') {
      const time = value()
      options.time = time === 'cycle' ? null : Number(time)
    }
    else if (flag === '--verbose') options.verbose = true
    else throw new Error(`unknown option ${flag}`)
  }
  return options
}

async function main () {
  const { serveControl } = require('./control')
  const options = parseArgs(process.argv.slice(2))
  // flying-squid rethrows plugin errors asynchronously; log them rather than lose the world.
  process.on('uncaughtException', err => console.error('[server] uncaught:', err))
  process.on('unhandledRejection', err => console.error('[server] unhandled rejection:', err))
  const handle = await startServer(options)
  let stopping = false
  const stop = async (code = 0) => {
    if (stopping) return
    stopping = true
    setTimeout(() => process.exit(code), 3000).unref() // a stuck shutdown must not keep us alive
    await handle.close().catch(err => console.error('[server] close:', err))
    process.exit(code)
  }
  process.on('SIGINT', () => stop())
  process.on('SIGTERM', () => stop())
  serveControl(handle.serv, process.stdin, line => process.stdout.write(line + '\n'), stop)
  process.stdout.write(JSON.stringify({ ready: true, host: handle.host, port: handle.port, version: handle.version }) + '\n')
}

if (require.main === module) {
  main().catch(err => {
    console.error('[server] failed to start:', err.message)
    process.exit(1)
  })
}

module.exports = { startServer }
