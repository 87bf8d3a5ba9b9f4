'use strict';
// The CPU time of one thread of this process, read from Linux's /proc: the "compute" budget clock
// (budget.js) of a sandbox worker. Busy time as Node measures it (event-loop utilisation) is real time
// while the loop runs, so on a loaded machine, where the worker waits for a core, it grows several
// times faster than the program computes; a thread's CPU time does not. Elsewhere than Linux there is
// no such file: threadId() is null and the caller keeps the busy time.

const { readFileSync, readlinkSync } = require('node:fs');

const TICKS_PER_SECOND = 100; // USER_HZ: the unit of /proc's utime and stime on every Linux build

// The calling thread's id in /proc/self/task, or null (not Linux). Call it on the thread itself.
function threadId() {
  try {
    const id = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(id) ? id : null;
  } catch {
    return null;
  }
}

// () -> milliseconds of CPU (user + system) thread `id` (of process `pid`, default this one) has used, or null
// once it has exited.
function threadCpuMs(id, pid = 'self') {
  const path = `/proc/${pid}/task/${id}/stat`;
  return () => {
    let stat;
    try {
      stat = readFileSync(path, 'latin1');
    } catch {
      return null;
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // from field 3 (state) on
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND; // fields 14, 15
  };
}

module.exports = { threadId, threadCpuMs };
