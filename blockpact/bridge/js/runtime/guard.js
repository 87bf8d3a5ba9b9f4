'use strict'
// Ends the JSPyBridge Node process when its Python parent is gone. JSPyBridge only flushes on
// stdin EOF, so a Node process holding sockets (bots, servers) would otherwise outlive a Python
// process that was killed: stdin closing or the parent pid changing both mean the parent died.
let installed = false

// termGraceMs: how long a SIGTERM waits for Python to close our stdin before it ends us anyway.
function install ({ checkEveryMs = 500, termGraceMs = 10000 } = {}) {
  if (installed) return process.pid
  installed = true
  const parent = process.ppid
  process.stdin.on('end', () => process.exit(0))
  process.stdin.on('close', () => process.exit(0))
  // SIGINT/SIGTERM sent to the whole process group (Ctrl-C in a terminal, `timeout -s TERM`, Slurm) are
  // for Python, which stops cleanly (closing bots and programs through this process) and then closes
  // our stdin; dying first would leave Python waiting on a dead bridge. Without a parent, they end us.
  // A SIGTERM is also a request to stop, whoever sent it (`kill PID`, JSPyBridge's own exit hook, a
  // parent that stops its workers): it waits termGraceMs for Python to close our stdin, then ends us.
  // Ignoring it while the parent lived left this process running under a parent that never stopped
  // (a sweep worker orphaned by its killed driver): only SIGKILL ended it.
  const unlessParentAlive = () => { if (process.ppid !== parent) process.exit(0) }
  let termTimer = null
  process.on('SIGINT', unlessParentAlive)
  process.on('SIGTERM', () => {
    unlessParentAlive()
    if (termTimer === null) termTimer = setTimeout(() => process.exit(143), termGraceMs)
  })
  const timer = setInterval(() => {
    if (process.ppid !== parent) process.exit(0)
  }, checkEveryMs)
  timer.unref()
  return process.pid
}

module.exports = { install }
