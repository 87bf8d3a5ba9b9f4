'use strict'
// Bounds of live primitives: work past its bound is stopped and fails with Bounded; tick waits count
// ticks however slowly they come (mineflayer's own waitForTicks rejects after ticks * 50 ms + 5 s),
// end when physics is silent, and are cancelled by the program's stop. A bound given the bot counts its
// physics ticks: a late main thread slows the work and the bound alike.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { EventEmitter } = require('node:events')
const { bounded, boundSeconds, waitTicks, SILENT_SECONDS } = require('../../blockpact/bridge/js/mineflayer/primitives/bounds')

const never = () => new Promise(() => {})

test('a bound grows with the work: base + slack x (walking time + seconds)', () => {
  const settings = { bound: { baseSeconds: 10, slack: 3 } }
  assert.equal(boundSeconds(settings), 10)
  assert.equal(boundSeconds(settings, { blocks: 43 }), 40) // 10 s at 4.3 blocks/s
  assert.equal(boundSeconds(settings, { blocks: 43, seconds: 2 }), 46)
  assert.equal(boundSeconds({}, { seconds: 1 }), 13) // defaults
})

test('work past its bound is stopped and rejected; work within it keeps its result or error', async () => {
  let stopped = 0
  const started = Date.now()
  await assert.rejects(bounded('mining', 0.2, never, () => stopped++), { name: 'Bounded', message: 'mining took longer than 0.2 s' })
  assert.equal(stopped, 1)
  assert.ok(Date.now() - started < 1000)
  assert.equal(await bounded('x', 1, async () => 7, () => stopped++), 7)
  await assert.rejects(bounded('x', 1, async () => { throw new Error('no path') }, () => stopped++), /no path/)
  assert.equal(stopped, 1)
})

test('a bound given the bot counts its physics ticks: slow ticks stretch it, and it lets go of the bot after', async () => {
  const bot = new EventEmitter()
  const ticker = setInterval(() => bot.emit('physicsTick'), 100) // a main thread running at half speed
  try {
    let stopped = 0
    const started = Date.now()
    // 0.5 s of bound is 10 ticks: 1 s of wall time at this pace; work done after 0.7 s is within it.
    const done = new Promise(resolve => setTimeout(() => resolve('arrived'), 700))
    assert.equal(await bounded('the walk', 0.5, () => done, () => stopped++, bot), 'arrived')
    await assert.rejects(bounded('the walk', 0.5, never, () => stopped++, bot), { name: 'Bounded' })
    const took = (Date.now() - started) / 1000
    assert.ok(took > 1.6 && took < 2.5, took)
    assert.equal(stopped, 1)
    assert.equal(bot.listenerCount('physicsTick'), 0)
  } finally {
    clearInterval(ticker)
  }
})

test('a tick wait counts ticks that come slower than mineflayer allows, and no more', async () => {
  const bot = new EventEmitter()
  const ticker = setInterval(() => bot.emit('physicsTick'), 2200) // 3 ticks: 6.6 s > 3 x 50 ms + 5 s
  const started = Date.now()
  await waitTicks(bot, 3, null, () => new Error('stopped'))
  clearInterval(ticker)
  const took = (Date.now() - started) / 1000
  assert.ok(took > 6 && took < 8, took)
  assert.equal(bot.listenerCount('physicsTick'), 0)
})

test('a tick wait ends when physics is silent, and is cancelled by the program stop', async () => {
  const bot = new EventEmitter()
  const started = Date.now()
  await waitTicks(bot, SILENT_SECONDS * 20, null, () => new Error('stopped'))
  const took = (Date.now() - started) / 1000
  assert.ok(took >= SILENT_SECONDS - 0.1 && took < SILENT_SECONDS + 2, took)
  const abort = new AbortController()
  const waiting = waitTicks(bot, 1000, abort.signal, () => new Error('the program was stopped'))
  abort.abort()
  await assert.rejects(waiting, /stopped/)
  assert.equal(bot.listenerCount('physicsTick'), 0)
  assert.equal(await waitTicks(bot, 0, null, null), undefined)
})
