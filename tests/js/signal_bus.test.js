'use strict'
// The live bus of sendSignal / waitSignal (one per world in the mineflayer body): signals are kept until read,
// a wait for one sender leaves the others' signals queued, and several senders are all seen in either order.
const { describe, it } = require('node:test')
const assert = require('node:assert/strict')
const { signalBus, primitives } = require('../../blockpact/bridge/js/mineflayer/primitives/signals')

function square () {
  const bus = signalBus()
  for (const player of ['Ann', 'Ben', 'Cy']) bus.join(player)
  return bus
}
const never = () => new AbortController().signal

describe('signal bus', () => {
  it('delivers a signal sent before the wait began', async () => {
    const bus = square()
    bus.send('Ann', 'ready')
    assert.equal((await bus.take('Cy', 10, never())).sender, 'Ann')
    assert.equal(await bus.take('Cy', 10, never()), null)
  })

  for (const first of ['Ann', 'Ben']) {
    it(`keeps Ben's signal for the wait after Ann's when ${first} signals first`, async () => {
      const bus = square()
      const second = first === 'Ann' ? 'Ben' : 'Ann'
      bus.send(first, 'done')
      const heard = []
      const waits = (async () => {
        heard.push((await bus.take('Cy', 1000, never(), 'Ann')).sender)
        heard.push((await bus.take('Cy', 1000, never(), 'Ben')).sender)
      })()
      await new Promise(resolve => setTimeout(resolve, 20))
      bus.send(second, 'done')
      await waits
      assert.deepEqual(heard, ['Ann', 'Ben'])
    })
  }

  it('wakes a waiter only for the sender it waits for', async () => {
    const bus = square()
    const waiting = bus.take('Cy', 1000, never(), 'Ann')
    bus.send('Ben', 'b')
    bus.send('Ann', 'a')
    assert.equal((await waiting).sender, 'Ann')
    assert.equal((await bus.take('Cy', 10, never())).sender, 'Ben')
  })

  it('refuses a wait for oneself or for a player of no world', async () => {
    const bus = square()
    const ctx = { world: { bus }, bot: { username: 'Cy' }, abort: never(), say: () => {} }
    await assert.rejects(primitives.waitSignal(ctx, '', 1, 'Cy'), /'Cy' is not another player of this world \(players: Ann, Ben\)/)
    await assert.rejects(primitives.waitSignal(ctx, '', 1, 'Nobody'), /'Nobody' is not another player/)
    bus.send('Ben', 'b')
    assert.equal(await primitives.waitSignal(ctx, '', 1, 'Ben'), 'Ben')
  })
})
