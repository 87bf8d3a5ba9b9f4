'use strict';
// log(...) and console.* for programs. Lines go to `emit`, which forwards them
// to the main thread at once, so a run that is later terminated keeps its logs.

const { utf8Bytes } = require('./codec');

class TooLarge extends Error {}

// An object is measured as it is written, so logging a huge value costs at most `maxBytes`.
function formatArg(value, maxBytes) {
  if (typeof value === 'string') return value;
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  if (value !== null && typeof value === 'object') {
    let bytes = 0;
    const measure = (key, item) => {
      bytes += utf8Bytes(key) + (typeof item === 'string' ? utf8Bytes(item) : 8);
      if (bytes > maxBytes) throw new TooLarge();
      return item;
    };
    try {
      return JSON.stringify(value, measure);
    } catch (err) {
      if (err instanceof TooLarge) return `[value too large to log: over ${maxBytes} bytes]`;
      // a Proxy or getter that throws: fall back to String()
    }
  }
  return String(value);
}

// maxBytes: the longest line worth building (lines are cut to the configured length anyway).
function makeLogger(emit, maxBytes = 8192) {
  const line = (prefix, args) => emit(prefix + args.map((arg) => formatArg(arg, maxBytes)).join(' '));
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
