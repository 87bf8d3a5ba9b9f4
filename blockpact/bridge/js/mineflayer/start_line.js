'use strict'
// The start line of a batch of programs that play one episode together: each waits, with its sandbox
// worker ready, until every program of the batch is ready, then all start in the same turn of Node's
// event loop, in the players' name order. Why: on the simulator every program starts at time 0; live,
// workers that start at different speeds would otherwise give one bot a head start of up to a few
// hundred milliseconds on a busy machine, enough to win a race for a chest the simulator gives the other.

// A batch whose programs are not all ready after this long starts anyway (a safety net: a run that ends
// before it is ready leaves the line at once, see `leave`).
const WAIT_MS = 20000

function startLine () {
  const batches = new Map() // batch id -> {size, arrived: Set of names, waiting: [{name, go}], timer}
  const started = new Set() // ids of the batches already released

  function batchOf (id, size) {
    let batch = batches.get(id)
    if (!batch) {
      batch = { size, arrived: new Set(), waiting: [], timer: setTimeout(() => release(id), WAIT_MS) }
      batch.timer.unref?.()
      batches.set(id, batch)
    }
    return batch
  }

  function release (id) {
    const batch = batches.get(id)
    if (!batch) return
    batches.delete(id)
    started.add(id)
    clearTimeout(batch.timer)
    for (const { go } of batch.waiting.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) go()
  }

  function arrive (id, batch, name) {
    batch.arrived.add(name)
    // After the caller of the last one awaits it: all go in name order.
    if (batch.arrived.size >= batch.size) queueMicrotask(() => release(id))
  }

  // Resolves when the batch `id` of `size` programs may start (at once if there is no batch).
  function ready (id, size, name) {
    if (id == null || !(size > 1)) return Promise.resolve()
    return new Promise(resolve => {
      const batch = batchOf(id, size)
      batch.waiting.push({ name, go: resolve })
      arrive(id, batch, name)
    })
  }

  // `name`'s run ended, ready or not (a program refused before it started): the others need not wait for it.
  function leave (id, size, name) {
    if (id == null || !(size > 1) || started.has(id)) return
    const batch = batchOf(id, size)
    if (!batch.arrived.has(name)) arrive(id, batch, name)
  }

  return { ready, leave }
}

module.exports = { startLine }
