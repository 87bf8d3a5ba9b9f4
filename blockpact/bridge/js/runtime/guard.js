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
  const timer = setInterval(() => {
    if (process.ppid !== parent) process.exit(0)
  }, checkEveryMs)
  timer.unref()
  return process.pid
}

module.exports = { install }
