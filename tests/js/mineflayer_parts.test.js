'use strict'
// The mineflayer body's pieces that need no server: messages from primitives.toml, the signal
// bus shared by the bots of a world, the checks a LiveWorld makes when it starts, the pathfinder's
// searches kept apart from the paths they report and timed on their own computing time, the start
// line of programs that play together, and what a body's host keeps of a program's chat and feedback.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { messageTable } = require('../../blockpact/bridge/js/mineflayer/feedback')
const { signalBus } = require('../../blockpact/bridge/js/mineflayer/primitives/signals')
const { LiveWorld } = require('../../blockpact/bridge/js/mineflayer')
const { primitiveNames } = require('../../blockpact/bridge/js/mineflayer/primitives')
const { detachPathResults } = require('../../blockpact/bridge/js/mineflayer/path_results')
const { countSearchTime } = require('../../blockpact/bridge/js/mineflayer/search_time')
const { startLine } = require('../../blockpact/bridge/js/mineflayer/start_line')
const { BodyHost, FeedbackCapped } = require('../../blockpact/bridge/js/mineflayer/host')

const TOML_LIKE = {
  mineBlock: { feedback: ['No {name} nearby, please explore first', 'I cannot mine {name} with {tool}'], errors: ['No block named {name}'] }
}

test('messages are found by their start and filled in; unknown ones fail when the table is built', () => {
  const messages = messageTable(TOML_LIKE, { mineBlock: { feedback: ['No {name} nearby', 'I cannot mine'], errors: ['No block named'] } })
  assert.equal(messages.feedback('mineBlock', 'No {name} nearby', { name: 'iron_ore' }), 'No iron_ore nearby, please explore first')
  assert.equal(messages.error('mineBlock', 'No block named', { name: 'x' }).message, 'No block named x')
  assert.throws(() => messages.feedback('mineBlock', 'Placed'), /was not declared/)
  assert.throws(() => messageTable(TOML_LIKE, { mineBlock: { feedback: ['Mined'] } }),
    /mineBlock\.feedback: 0 templates start with "Mined"/)
})

test('a signal reaches every other player once; a waiter wakes, times out, or is cancelled', async () => {
  const bus = signalBus()
  for (const p of ['A', 'B', 'C']) bus.join(p)
  const never = new AbortController().signal
  const waiting = bus.take('B', 5000, never)
  bus.send('A', 'done')
  assert.deepEqual(await waiting, { sender: 'A', task: 'done' })
  assert.deepEqual(await bus.take('C', 10, never), { sender: 'A', task: 'done' }) // queued
  assert.equal(await bus.take('A', 10, never), null) // not to the sender itself
  assert.equal(await bus.take('C', 10, never), null) // taken once
  const abort = new AbortController()
  const cancelled = bus.take('B', 5000, abort.signal)
  abort.abort()
  await assert.rejects(cancelled, /stopped/)
})

test('a LiveWorld refuses a primitives table that does not match its primitives', () => {
  const table = Object.fromEntries(primitiveNames.map(name => [name, { feedback: [], errors: [] }]))
  assert.throws(() => new LiveWorld({ primitives: { ...table, digTunnel: {} }, queries: [] }), /digTunnel/)
  assert.throws(() => new LiveWorld({ primitives: table, queries: ['entity.velocity'] }), /cannot answer bot queries: entity\.velocity/)
  // Right names, but templates missing: every missing message is listed.
  assert.throws(() => new LiveWorld({ primitives: table, queries: [] }), /mineBlock\.feedback: 0 templates start with "No \{name\} nearby"/)
})

test('a pathfinder search spread over ticks finds an exact goal though every partial path is post-processed', () => {
  const AStar = require('mineflayer-pathfinder/lib/astar')
  const Move = require('mineflayer-pathfinder/lib/move')
  const { goals } = require('mineflayer-pathfinder')
  const { performance } = require('perf_hooks')
  detachPathResults()
  // A 10 x 10 yard; a step goes to one of the four neighbouring cells.
  const steps = [[1, 0], [-1, 0], [0, 1], [0, -1]]
  const movements = {
    getNeighbors: (node) => steps.map(([dx, dz]) => new Move(node.x + dx, node.y, node.z + dz, 0, 1))
      .filter(move => move.x >= 0 && move.x < 10 && move.z >= 0 && move.z < 10)
  }
  // A clock that ticks at every reading: the search stops for the tick after two or three nodes, as on a
  // loaded machine, in the same places at every run.
  const realNow = performance.now
  let clock = 0
  performance.now = () => clock++
  try {
    const search = new AStar(new Move(0, 64, 0, 0, 0), movements, new goals.GoalNear(9, 64, 9, 0), Infinity, 3)
    let result
    let partials = 0
    for (result = search.compute(); result.status === 'partial'; result = search.compute()) {
      partials++
      for (const node of result.path) { node.x += 0.5; node.z += 0.5 } // as the pathfinder centres every path it gets
    }
    assert.ok(partials > 10, `${partials} partial results`)
    assert.equal(result.status, 'success')
    assert.deepEqual(result.path.at(-1).toArray(), [9, 64, 9])
  } finally {
    performance.now = realNow
  }
})

test('a path search is given up after thinkTimeout of its own computing, not of waiting between its ticks', () => {
  const AStar = require('mineflayer-pathfinder/lib/astar')
  const { goals } = require('mineflayer-pathfinder')
  const Move = require('mineflayer-pathfinder/lib/move')
  const { performance } = require('node:perf_hooks')
  countSearchTime()
  const steps = [[1, 0], [-1, 0], [0, 1], [0, -1]]
  const open = { getNeighbors: (node) => steps.map(([dx, dz]) => new Move(node.x + dx, node.y, node.z + dz, 0, 1)) }
  const yard = { getNeighbors: (node) => open.getNeighbors(node).filter(m => m.x >= 0 && m.x < 10 && m.z >= 0 && m.z < 10) }
  // Every reading of the clock is 1 ms of searching; between two ticks the main thread is busy for 1000 ms.
  const realNow = performance.now
  let clock = 0
  performance.now = () => clock++
  const search = (movements, goal) => {
    const astar = new AStar(new Move(0, 64, 0, 0, 0), movements, goal, 500, 3)
    let result = astar.compute()
    for (let ticks = 0; result.status === 'partial' && ticks < 10000; ticks++) {
      clock += 1000
      result = astar.compute()
    }
    return result
  }
  try {
    const reachable = search(yard, new goals.GoalNear(9, 64, 9, 0))
    assert.equal(reachable.status, 'success') // many seconds of waiting, little searching
    assert.ok(reachable.time < 500, `${reachable.time} ms counted`)
    const tooFar = search(open, new goals.GoalNear(1000, 64, 1000, 0)) // an endless field: 2000 steps away
    assert.equal(tooFar.status, 'timeout')
    assert.ok(tooFar.time >= 500 && tooFar.time < 520, `${tooFar.time} ms counted`)
  } finally {
    performance.now = realNow
  }
})

test('programs of a batch start when the last is ready, in name order; a program alone starts at once', async () => {
  const line = startLine()
  const started = []
  const glitch = line.ready('b1', 3, 'Glitch').then(() => started.push('Glitch'))
  const gizmo = line.ready('b1', 3, 'Gizmo').then(() => started.push('Gizmo'))
  await new Promise(resolve => setTimeout(resolve, 20))
  assert.deepEqual(started, [], 'nobody starts before the whole batch is ready')
  const alone = line.ready(null, 1, 'Solo').then(() => started.push('Solo'))
  await alone
  await Promise.all([glitch, gizmo, line.ready('b1', 3, 'Bolt').then(() => started.push('Bolt'))])
  assert.deepEqual(started, ['Solo', 'Bolt', 'Gizmo', 'Glitch'])
})

test('a program that ends before it is ready leaves the start line: the others start without waiting for it', async () => {
  const line = startLine()
  line.leave('b2', 2, 'Gizmo') // refused (too large) before the other was ready
  await line.ready('b2', 2, 'Glitch')
  const late = line.ready('b3', 2, 'Glitch')
  line.leave('b3', 2, 'Gizmo')
  await late
  line.leave('b3', 2, 'Gizmo') // after the start: nothing to do
})

test('a body host keeps feedback up to its caps per program and per episode, plain, and says no server command', () => {
  const said = []
  const limited = []
  const notes = []
  const world = { record: (agent, kind, data) => notes.push([agent, kind, data.message]) }
  const host = new BodyHost({ username: 'Gizmo', chat: (text) => said.push(text) }, world, { maxFeedbackLines: 2, maxEpisodeFeedbackLines: 3 },
    (error, limit) => limited.push(limit))
  host.startRun()
  host.feedback('No item named x\n/kill @a')
  host.say('hello')
  host.feedback('No item named \u001b[2Jy')
  assert.throws(() => host.feedback('one too many'), (err) => err instanceof FeedbackCapped && err.limit === 'maxFeedbackLines' &&
    /over 2 lines in one program \(limit maxFeedbackLines\)/.test(err.message))
  assert.deepEqual(said, ['No item named x /kill @a', 'hello', 'No item named \\u001b[2Jy']) // one message each, plain
  assert.deepEqual(host.sources, ['primitive', 'program', 'primitive'])
  assert.deepEqual(notes, [['Gizmo', 'feedback', said[0]], ['Gizmo', 'feedback', said[2]]]) // for the agents' chat log
  host.startRun() // the next program: its own count, the episode's goes on
  host.feedback('third')
  assert.throws(() => host.feedback('fourth'), /over 3 lines from this player's programs in one episode \(limit maxEpisodeFeedbackLines\)/)
  assert.deepEqual(limited, ['maxFeedbackLines', 'maxEpisodeFeedbackLines'])
  assert.deepEqual(host.transcript, ['third'])
  assert.throws(() => host.say(' /kill @a'), /limit serverCommands/)
  assert.equal(said.length, 4)
})
