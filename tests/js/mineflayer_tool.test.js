'use strict'
// Issue 18: asked by collectblock to fetch a tool from a chest when the bot had none that harvests the block,
// and given no chests, mineflayer-tool called itself in an endless chain of promises: the bots' runtime never
// ran its event loop again and filled its heap. The collect runs in a child with a small heap, so that failure
// ends as an out-of-memory exit instead of starving this runner's timers.
const test = require('node:test')
const assert = require('node:assert/strict')
const { spawn } = require('child_process')
const { once } = require('events')
const path = require('path')

const CHILD = path.join(__dirname, 'collect_without_tool.js')
const HEAP_MB = 128 // a bot and its server connection use about a third of it
const KILL_AFTER_MS = 120000

test('a bot without a tool that harvests a block fails to collect it with NoItem, in a bounded heap', async () => {
  const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_MB}`, CHILD], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', chunk => { stdout += chunk })
  child.stderr.on('data', chunk => { stderr += chunk })
  const killer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS)
  const [code, signal] = await once(child, 'exit')
  clearTimeout(killer)
  assert.equal(code, 0, `exit ${code} ${signal ?? ''}: ${stderr.slice(-1500)}`)
  const outcome = JSON.parse(stdout.trim().split('\n').pop())
  assert.deepEqual(outcome, { outcome: 'error', name: 'NoItem', message: 'Bot does not have a harvestable tool!' })
})
