'use strict';
// log(...) and console.* for programs. Lines go to `emit`, which forwards them
// to the main thread at once, so a run that is later terminated keeps its logs.

function formatArg(value) {
  if (typeof value === 'string') return value;
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  if (value !== null && typeof value === 'object') {
    try {
      return JSON.stringify(value);
    } catch {
      // cycles, BigInt: fall back to String()
    }
  }
  return String(value);
}

function makeLogger(emit) {
  const line = (prefix, args) => emit(prefix + args.map(formatArg).join(' '));
  const log = (...args) => line('', args);
  const console = {
    log,
    info: log,
    debug: log,
    warn: (...args) => line('[warn] ', args),
    error: (...args) => line('[error] ', args),
  };
  return harden({ log, console });
}

module.exports = { makeLogger };
