'use strict'
// Used by tests/test_live_primitives.py: the failure of issue 18 in the bots' runtime, without the library bug
// that caused it (fixed in connect.js): an endless chain of promises, each waiting on the next, that never lets
// the event loop run again and keeps growing (as mineflayer-tool's call of itself did).
function start () {
  const step = () => Promise.resolve().then(step)
  setImmediate(step)
  return true
}

module.exports = { start }
