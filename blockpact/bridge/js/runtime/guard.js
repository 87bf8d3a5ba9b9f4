'use strict'
// Ends the JSPyBridge Node process when its Python parent is gone. JSPyBridge only flushes on
// stdin EOF, so a Node process holding sockets (bots, servers) would otherwise outlive a Python
// process that was killed: stdin closing or the parent pid changing both mean the parent died.
let installed = false

function install ({ checkEveryMs = 500 } = {}) {
  if (installed) return process.pid
  installed = true
  const parent = process.ppid
  process.stdin.on('end', () => process.exit(0))
  process.stdin.on('close', () => process.exit(0))
  // SIGINT/SIGTERM sent to the whole process group (Ctrl-C in a terminal, `timeout -s TERM`, Slurm) are
  // for Python, which stops cleanly (closing bots and programs through this process) and then closes
  // our stdin; dying first would leave Python waiting on a dead bridge. Alone, they still end us.
  const unlessParentAlive = () => { if (process.ppid !== parent) process.exit(0) }
  process.on('SIGINT', unlessParentAlive)
  process.on('SIGTERM', unlessParentAlive)
  const timer = setInterval(() => {
    if (process.ppid !== parent) process.exit(0)
  }, checkEveryMs)
  timer.unref()
  return process.pid
}

module.exports = { install }
