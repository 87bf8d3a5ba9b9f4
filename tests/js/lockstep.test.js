'use strict'
// Lockstep (js/mineflayer/lockstep.js): bots take their shared actions in the simulator's order, each waiting only for
// other bots' earlier actions on the same resource; a bot that does what its twin did not gives the order up.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { Lockstep, takeTurn } = require('../../blockpact/bridge/js/mineflayer/lockstep')

// A bot whose world holds `blocks` ("x,y,z" -> name); a block another bot changes is changed here at once.
function botOf (name, blocks) {
  return { username: name, blockAt: (p) => ({ name: blocks.get(`${p.x},${p.y},${p.z}`) ?? 'air' }) }
}

function lockstepOf (entries, stallMs = 2000, viewMs = undefined) {
  const events = []
  const lockstep = new Lockstep(entries.map(e => ({ target: null, time: 0, stand: null, ...e })),
    { stallMs, viewMs, record: (agent, kind, data) => events.push({ agent, kind, data }) })
  return { lockstep, events, ctx: (bot) => ({ bot, world: { lockstep }, abort: new AbortController().signal }) }
}

const tick = () => new Promise(resolve => setTimeout(resolve, 5))

test('a bot waits for the other bot\'s earlier action on the same resource, not for other resources', async () => {
  const blocks = new Map([['1,0,0', 'iron_ore'], ['9,0,0', 'diamond_ore']])
  const { lockstep, ctx } = lockstepOf([
    { player: 'A', kind: 'dig', resource: 'block:iron_ore', target: [1, 0, 0] },
    { player: 'B', kind: 'find', resource: 'block:iron_ore', target: null },
    { player: 'B', kind: 'dig', resource: 'block:diamond_ore', target: [9, 0, 0] }
  ])
  const a = botOf('A', blocks)
  const b = botOf('B', blocks)
  const order = []
  const bFind = takeTurn(ctx(b), 'find', 'block:iron_ore').then(turn => { order.push('B find'); return turn })
  await tick()
  assert.deepEqual(order, [], 'B searches only after A dug')
  const aDig = await takeTurn(ctx(a), 'dig', 'block:iron_ore')
  blocks.set('1,0,0', 'air')
  aDig.done([1, 0, 0], true)
  const search = await bFind
  assert.deepEqual(order, ['B find'])
  search.done(null)
  const dig = await takeTurn(ctx(b), 'dig', 'block:diamond_ore') // nobody else's action on diamonds: at once
  assert.equal(dig.entry.kind, 'dig')
  dig.done([9, 0, 0], true)
  assert.deepEqual(lockstep.status(), { diverged: null, done: 3, scheduled: 3, cut: 0 })
})

test('a dig the twin lost waits for the winner, and losing it keeps the order', async () => {
  const blocks = new Map([['1,0,0', 'iron_ore']])
  const { lockstep, ctx } = lockstepOf([
    { player: 'B', kind: 'find', resource: 'block:iron_ore', target: [1, 0, 0] },
    { player: 'A', kind: 'dig', resource: 'block:iron_ore', target: [1, 0, 0] },
    { player: 'B', kind: 'find', resource: 'block:iron_ore', target: null }
  ])
  const a = botOf('A', blocks)
  const b = botOf('B', blocks)
  ;(await takeTurn(ctx(b), 'find', 'block:iron_ore')).done([1, 0, 0])
  let gone = null
  const bDig = takeTurn(ctx(b), 'dig', 'block:iron_ore').then(turn => { gone = blocks.get('1,0,0') === 'air'; return turn })
  await tick()
  assert.equal(gone, null, 'B digs only after A, who dug first on the simulator')
  const aDig = await takeTurn(ctx(a), 'dig', 'block:iron_ore')
  blocks.set('1,0,0', 'air')
  aDig.done([1, 0, 0], true)
  const lost = await bDig
  assert.equal(gone, true)
  assert.equal(lost.entry, null)
  lost.done([1, 0, 0], false)
  ;(await takeTurn(ctx(b), 'find', 'block:iron_ore')).done(null)
  assert.deepEqual(lockstep.status(), { diverged: null, done: 3, scheduled: 3, cut: 0 })
})

test('another target than the twin\'s gives the order up, with a reason, and nobody waits any more', async () => {
  const blocks = new Map()
  const { lockstep, events, ctx } = lockstepOf([
    { player: 'A', kind: 'find', resource: 'block:iron_ore', target: [1, 0, 0], time: 2.5 },
    { player: 'B', kind: 'find', resource: 'block:iron_ore', target: [2, 0, 0] }
  ])
  ;(await takeTurn(ctx(botOf('A', blocks)), 'find', 'block:iron_ore')).done([3, 0, 0])
  const turn = await takeTurn(ctx(botOf('B', blocks)), 'find', 'block:iron_ore')
  assert.equal(turn.entry, null)
  assert.equal(lockstep.on, false)
  assert.equal(events.length, 1)
  assert.equal(events[0].kind, 'lockstep_diverged')
  assert.match(events[0].data.reason, /A's search for iron_ore at \(1, 0, 0\) \(simulated 2\.5 s\) got \(3, 0, 0\) live/)
})

test('a dig the twin did not win but that succeeds live gives the order up', async () => {
  const blocks = new Map([['1,0,0', 'iron_ore']])
  const { lockstep, events, ctx } = lockstepOf([{ player: 'A', kind: 'find', resource: 'block:iron_ore', target: null }])
  const turn = await takeTurn(ctx(botOf('A', blocks)), 'dig', 'block:iron_ore')
  turn.done([1, 0, 0], true)
  assert.equal(lockstep.on, false)
  assert.match(events[0].data.reason, /A's dig on block:iron_ore at \(1, 0, 0\) succeeded; the simulator's A did not do it/)
})

test('a program that ends by itself before its scheduled actions, or a bot that waits past the stall bound, gives the order up', async () => {
  const blocks = new Map()
  const first = lockstepOf([{ player: 'A', kind: 'chest', resource: 'chest:6,64,7', target: [6, 64, 7] }])
  first.lockstep.finished('A')
  assert.match(first.events[0].data.reason, /A's program ended with 1 of its scheduled actions not taken \(the first: the A's use of chest \(6, 64, 7\)/)

  const second = lockstepOf([
    { player: 'A', kind: 'chest', resource: 'chest:6,64,7', target: [6, 64, 7] },
    { player: 'B', kind: 'chest', resource: 'chest:6,64,7', target: [6, 64, 7] }
  ], 300)
  const turn = await takeTurn(second.ctx(botOf('B', blocks)), 'chest', 'chest:6,64,7') // A never comes
  assert.equal(turn.entry, null)
  assert.match(second.events[0].data.reason, /B waited 0 s for A's use of chest \(6, 64, 7\) \(simulated 0 s\), and no shared action was done meanwhile/)
})

test('the stall bound counts the time without progress, not the whole wait in a queue', async () => {
  const blocks = new Map()
  const chest = { kind: 'chest', resource: 'chest:6,64,7', target: [6, 64, 7] }
  const { lockstep, ctx } = lockstepOf([{ player: 'A', ...chest }, { player: 'B', ...chest }, { player: 'C', ...chest }], 400)
  const c = takeTurn(ctx(botOf('C', blocks)), 'chest', 'chest:6,64,7')
  await new Promise(resolve => setTimeout(resolve, 300))
  ;(await takeTurn(ctx(botOf('A', blocks)), 'chest', 'chest:6,64,7')).done([6, 64, 7])
  await new Promise(resolve => setTimeout(resolve, 300)) // 600 ms in the queue, 300 since A's turn
  ;(await takeTurn(ctx(botOf('B', blocks)), 'chest', 'chest:6,64,7')).done([6, 64, 7])
  const turn = await c
  assert.equal(turn.entry.player, 'C')
  turn.done([6, 64, 7])
  assert.deepEqual(lockstep.status(), { diverged: null, done: 3, scheduled: 3, cut: 0 })
})

test('a program stopped by the episode\'s end is cut short, not diverged, and nobody waits for its actions', async () => {
  const blocks = new Map()
  const chest = { kind: 'chest', resource: 'chest:6,64,7', target: [6, 64, 7] }
  const { lockstep, events, ctx } = lockstepOf([{ player: 'A', ...chest }, { player: 'A', ...chest }, { player: 'B', ...chest }])
  const b = takeTurn(ctx(botOf('B', blocks)), 'chest', 'chest:6,64,7')
  lockstep.finished('A', true)
  const turn = await b
  assert.equal(turn.entry.player, 'B')
  turn.done([6, 64, 7])
  assert.deepEqual(lockstep.status(), { diverged: null, done: 1, scheduled: 3, cut: 2 })
  assert.deepEqual(events, [])
})

test('an action the twin never took gives the order up at once, without waiting for the others', async () => {
  const { lockstep, events, ctx } = lockstepOf([
    { player: 'A', kind: 'chest', resource: 'chest:6,64,7', target: [6, 64, 7] },
    { player: 'B', kind: 'find', resource: 'block:iron_ore', target: [1, 0, 0] }
  ], 60000)
  const turn = await takeTurn(ctx(botOf('B', new Map())), 'chest', 'chest:6,64,7')
  assert.equal(turn.entry, null)
  assert.equal(lockstep.on, false)
  assert.match(events[0].data.reason, /B began a chest on chest:6,64,7 that the simulator's B did not take \(its next was the B's search for iron_ore at \(1, 0, 0\)/)
})

test('a placing its twin tried in vain may fail live too; succeeding live gives the order up', async () => {
  const first = lockstepOf([])
  ;(await takeTurn(first.ctx(botOf('A', new Map())), 'place', 'block:dirt')).done([1, 0, 0], false)
  assert.equal(first.lockstep.on, true)
  ;(await takeTurn(first.ctx(botOf('A', new Map())), 'place', 'block:dirt')).done([1, 0, 0], true)
  assert.match(first.events[0].data.reason, /A's place on block:dirt at \(1, 0, 0\) succeeded; the simulator's A did not do it/)
})

test('the cell the twin stood on for its next chest is where the bot walks', () => {
  const { lockstep } = lockstepOf([{ player: 'A', kind: 'chest', resource: 'chest:6,64,7', target: [6, 64, 7], stand: [6, 64, 8] }])
  assert.deepEqual(lockstep.plannedStand('A', 'chest', 'chest:6,64,7'), [6, 64, 8])
  assert.equal(lockstep.plannedStand('A', 'chest', 'chest:1,64,1'), null)
  assert.equal(lockstep.plannedStand('B', 'chest', 'chest:6,64,7'), null)
})

test('digs wait only for what concerns their own cell (and earlier digs that draw drop counts); searches never wait for searches', async () => {
  const blocks = new Map([['1,0,0', 'pumpkin'], ['2,0,0', 'pumpkin'], ['5,0,0', 'melon'], ['6,0,0', 'melon']])
  const { lockstep, ctx } = lockstepOf([
    { player: 'A', kind: 'find', resource: 'block:pumpkin', target: [1, 0, 0] },
    { player: 'B', kind: 'find', resource: 'block:pumpkin', target: [2, 0, 0] },
    { player: 'A', kind: 'dig', resource: 'block:pumpkin', target: [1, 0, 0] },
    { player: 'B', kind: 'dig', resource: 'block:pumpkin', target: [2, 0, 0] },
    { player: 'A', kind: 'dig', resource: 'block:melon', target: [5, 0, 0], draws: true },
    { player: 'B', kind: 'dig', resource: 'block:melon', target: [6, 0, 0], draws: true }
  ])
  const a = botOf('A', blocks)
  const b = botOf('B', blocks)
  const bFind = await takeTurn(ctx(b), 'find', 'block:pumpkin') // A's earlier search changes nothing: at once
  assert.equal(bFind.entry.kind, 'find')
  ;(await takeTurn(ctx(a), 'find', 'block:pumpkin')).done([1, 0, 0])
  bFind.done([2, 0, 0])
  const bDig = await takeTurn(ctx(b), 'dig', 'block:pumpkin') // before A's earlier dig of (1,0,0): another cell
  const aDig = await takeTurn(ctx(a), 'dig', 'block:pumpkin')
  assert.equal(bDig.entry.kind, 'dig')
  blocks.set('2,0,0', 'air')
  bDig.done([2, 0, 0], true)
  blocks.set('1,0,0', 'air')
  aDig.done([1, 0, 0], true)
  let bMelon = null
  const waiting = takeTurn(ctx(b), 'dig', 'block:melon').then(turn => { bMelon = turn; return turn })
  await tick()
  assert.equal(bMelon, null, 'a melon dig draws a drop count: B digs after A, as on the simulator')
  const aMelon = await takeTurn(ctx(a), 'dig', 'block:melon')
  blocks.set('5,0,0', 'air')
  aMelon.done([5, 0, 0], true)
  ;(await waiting).done([6, 0, 0], true)
  assert.deepEqual(lockstep.status(), { diverged: null, done: 6, scheduled: 6, cut: 0 })
})

test('a dig waits for another bot\'s earlier search that found its cell, but not for one that found another', async () => {
  const blocks = new Map([['1,0,0', 'iron_ore'], ['2,0,0', 'iron_ore']])
  const { lockstep, ctx } = lockstepOf([
    { player: 'A', kind: 'find', resource: 'block:iron_ore', target: [1, 0, 0] },
    { player: 'A', kind: 'find', resource: 'block:iron_ore', target: [2, 0, 0] },
    { player: 'B', kind: 'dig', resource: 'block:iron_ore', target: [2, 0, 0] }
  ])
  const a = botOf('A', blocks)
  const b = botOf('B', blocks)
  let dug = false
  const bDig = takeTurn(ctx(b), 'dig', 'block:iron_ore').then(turn => { dug = true; return turn })
  await tick()
  assert.equal(dug, false, 'A\'s search that found (1,0,0) is not in the way, but its next one finds (2,0,0)')
  ;(await takeTurn(ctx(a), 'find', 'block:iron_ore')).done([1, 0, 0])
  await tick()
  assert.equal(dug, false)
  ;(await takeTurn(ctx(a), 'find', 'block:iron_ore')).done([2, 0, 0])
  const turn = await bDig
  blocks.set('2,0,0', 'air')
  turn.done([2, 0, 0], true)
  assert.deepEqual(lockstep.status(), { diverged: null, done: 3, scheduled: 3, cut: 0 })
})

test('a dig that draws a drop count waits for other bots\' earlier digs that draw, of any block kind', async () => {
  const blocks = new Map([['5,0,0', 'melon'], ['9,0,0', 'red_mushroom_block'], ['1,0,0', 'pumpkin']])
  const { lockstep, ctx } = lockstepOf([
    { player: 'A', kind: 'dig', resource: 'block:melon', target: [5, 0, 0], draws: true },
    { player: 'A', kind: 'dig', resource: 'block:pumpkin', target: [1, 0, 0] },
    { player: 'B', kind: 'dig', resource: 'block:red_mushroom_block', target: [9, 0, 0], draws: true }
  ])
  const a = botOf('A', blocks)
  const b = botOf('B', blocks)
  let bTurn = null
  const waiting = takeTurn(ctx(b), 'dig', 'block:red_mushroom_block').then(turn => { bTurn = turn; return turn })
  await tick()
  assert.equal(bTurn, null, 'A\'s melon draws first on the simulator')
  const aMelon = await takeTurn(ctx(a), 'dig', 'block:melon')
  blocks.set('5,0,0', 'air')
  aMelon.done([5, 0, 0], true)
  ;(await waiting).done([9, 0, 0], true) // A's pumpkin draws nothing: not waited for
  ;(await takeTurn(ctx(a), 'dig', 'block:pumpkin')).done([1, 0, 0], true)
  assert.deepEqual(lockstep.status(), { diverged: null, done: 3, scheduled: 3, cut: 0 })
})

test('a dug cell that has grown back does not hold up later searches once the change is older than the wait', async () => {
  const blocks = new Map([['1,0,0', 'pumpkin'], ['2,0,0', 'pumpkin']])
  const { lockstep, ctx } = lockstepOf([
    { player: 'A', kind: 'dig', resource: 'block:pumpkin', target: [1, 0, 0] },
    { player: 'B', kind: 'find', resource: 'block:pumpkin', target: [1, 0, 0] },
    { player: 'B', kind: 'find', resource: 'block:pumpkin', target: [2, 0, 0] }
  ], 5000, 1000)
  const b = botOf('B', blocks)
  const aDig = await takeTurn(ctx(botOf('A', blocks)), 'dig', 'block:pumpkin')
  blocks.set('1,0,0', 'air')
  aDig.done([1, 0, 0], true)
  ;(await takeTurn(ctx(b), 'find', 'block:pumpkin')).done([1, 0, 0]) // saw the dig
  blocks.set('1,0,0', 'pumpkin') // grown back (a dynamics rule)
  await new Promise(resolve => setTimeout(resolve, 1050))
  const since = Date.now()
  ;(await takeTurn(ctx(b), 'find', 'block:pumpkin')).done([2, 0, 0])
  assert.ok(Date.now() - since < 900, // the view wait (1000 ms) not waited again; a margin for a busy machine
    `waited ${Date.now() - since} ms for a change it had seen`)
  assert.deepEqual(lockstep.status(), { diverged: null, done: 3, scheduled: 3, cut: 0 })
})
