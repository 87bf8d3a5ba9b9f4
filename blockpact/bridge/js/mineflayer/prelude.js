'use strict'
// exploreUntil runs in the sandbox, next to the program's callback (functions cannot leave the
// sandbox): it alternates short host moves ("exploreStep") with callback checks. Compartments
// have no clock (SES tames Date.now), so time is counted in steps of a known length.

/* global host */
function explorePrelude (host, m) {
  async function exploreUntil (_bot, direction, maxTime = 60, callback = () => false) {
    if (typeof maxTime !== 'number') throw new Error(m.maxTime)
    if (typeof callback !== 'function') throw new Error(m.callback)
    const dx = Math.sign(direction?.x ?? 0)
    const dz = Math.sign(direction?.z ?? 0)
    if (dx === 0 && dz === 0) throw new Error(m.direction)
    for (let step = 0; ; step++) {
      const found = await callback()
      if (found) {
        await host.call('chat', [m.success])
        return found
      }
      if (step * m.stepSeconds >= maxTime) {
        await host.call('chat', [m.timeUp])
        return null
      }
      if (!(await host.call('exploreStep', [{ x: dx, y: 0, z: dz }]))) return null
    }
  }
  return { exploreUntil }
}

// The prelude source for the runner, with its messages from primitives.toml.
function explorePreludeSource (messages, stepSeconds) {
  const m = {
    maxTime: messages.error('exploreUntil', 'maxTime must be a number').message,
    callback: messages.error('exploreUntil', 'callback must be a function').message,
    direction: messages.error('exploreUntil', 'Direction for exploreUntil').message,
    success: messages.feedback('exploreUntil', 'Explore success.'),
    timeUp: messages.feedback('exploreUntil', 'Max exploration time reached'),
    stepSeconds
  }
  return `return (${explorePrelude.toString()})(host, ${JSON.stringify(m)})`
}

const uses = {
  exploreUntil: {
    feedback: ['Explore success.', 'Max exploration time reached'],
    errors: ['maxTime must be a number', 'callback must be a function', 'Direction for exploreUntil']
  }
}

module.exports = { explorePreludeSource, uses }
