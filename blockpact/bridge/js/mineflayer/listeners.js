'use strict'
// One bot's event listener that throws must not take the Node runtime, and with it every other bot, down.
// mineflayer emits physicsTick from a timer and the bot's packets from its socket's data handler, so an
// exception in any listener (mineflayer-pathfinder's monitorMovement throws from its A* on an undefined
// position: PrismarineJS/mineflayer-pathfinder#285, #53) is uncaught and ends the process. Here each
// listener of an isolated emitter runs on its own: one that throws (or whose promise rejects) is reported
// to `onError(event, error)` for its bot alone, and the event's other listeners still run.

// Makes `emitter.emit` call every listener in a try of its own; an 'error' nobody listens to still throws,
// as EventEmitter's does. Returns the emitter.
function isolateListeners (emitter, onError) {
  const emit = emitter.emit
  emitter.emit = function isolatedEmit (event, ...args) {
    if (event === 'error' && this.listenerCount('error') === 0) return emit.call(this, event, ...args)
    const listeners = this.rawListeners(event) // a copy: a listener that removes itself or another is safe
    for (const listener of listeners) {
      try {
        const result = Reflect.apply(listener, this, args)
        if (typeof result?.then === 'function') result.then(null, err => report(onError, event, err))
      } catch (err) {
        report(onError, event, err)
      }
    }
    return listeners.length > 0
  }
  return emitter
}

// The handler of a failure must not fail the emit itself.
function report (onError, event, err) {
  try {
    onError(event, err instanceof Error ? err : new Error(String(err)))
  } catch { /* a handler that fails has nothing more to say; the emit goes on */ }
}

module.exports = { isolateListeners }
