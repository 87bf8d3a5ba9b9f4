'use strict';
// Values crossing between the main thread and the sandbox worker. Structured
// clone alone is not enough: mineflayer objects carry functions and cycles, and
// Vec3 instances must arrive as Vec3 on the other side (several vec3 copies
// exist in node_modules, hence the duck typing instead of instanceof).
//
// Every value is measured as it is encoded, in bytes of its JSON form (UTF-8), each
// reference counted again (JSON and Python copy a string referenced 300 times 300 times)
// and typed arrays as the number arrays they become: one 1 MB string referenced 300
// times is refused after the first two references, not copied 300 times.

const VEC3_TAG = '$vec3';
const DEFAULT_DEPTH = 24;
const DEFAULT_BYTES = 1_048_576;

class ValueLimitError extends RangeError {
  constructor(message, limit) {
    super(message);
    this.name = 'RangeError';
    this.limit = limit; // "maxMessageBytes", "maxArgumentBytes" or "maxDepth"
  }
}

function isVec3(value) {
  return typeof value.x === 'number' && typeof value.y === 'number' &&
    typeof value.z === 'number' && value.constructor != null &&
    value.constructor.name === 'Vec3';
}

const utf8Bytes = (text) => Buffer.byteLength(text, 'utf8');

function primitiveBytes(value) {
  if (typeof value === 'string') return utf8Bytes(value) + 2;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value).length : 4;
  if (typeof value === 'boolean') return value ? 4 : 5;
  if (typeof value === 'bigint') return String(value).length;
  return 4; // null, undefined
}

// options:
//   onFunction(): what a function becomes: the worker throws (a program passed a callback the host
//     cannot run), the main thread drops it (undefined).
//   what: names the value in errors ("mineBlock: arguments", "the return value").
//   maxBytes: the JSON form may not exceed this (ValueLimitError naming maxMessageBytes).
//   accessors: "throw": an accessor property is refused (TypeError) instead of read; default: read.
//   maxDepth, deep: "null" (default: deeper values become null, as for mineflayer objects) or
//     "throw" (ValueLimitError naming maxDepth).
// Cycles become null; repeated (non-cyclic) references are copied, and counted, each time.
function encode(root, onFunction, options = {}) {
  const what = options.what ?? 'value';
  const maxBytes = options.maxBytes ?? DEFAULT_BYTES;
  const maxDepth = options.maxDepth ?? DEFAULT_DEPTH;
  const throwDeep = options.deep === 'throw';
  const noAccessors = options.accessors === 'throw'; // a getter would run program code while it is encoded
  let bytes = 0;
  const add = (n) => {
    bytes += n;
    if (bytes > maxBytes) {
      throw new ValueLimitError(`${what} too large: over ${maxBytes} bytes as JSON (limit maxMessageBytes)`, 'maxMessageBytes');
    }
  };
  const ancestors = new Set();
  const walk = (value, depth) => {
    if (typeof value === 'function') return onFunction();
    if (typeof value === 'symbol') return undefined;
    if (value === null || typeof value !== 'object') {
      add(primitiveBytes(value));
      return typeof value === 'bigint' ? Number(value) : value;
    }
    if (depth > maxDepth) {
      if (throwDeep) throw new ValueLimitError(`${what} too deep: over ${maxDepth} levels of nesting (limit maxDepth)`, 'maxDepth');
      add(4);
      return null;
    }
    if (ancestors.has(value)) {
      add(4);
      return null;
    }
    if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) {
      const view = value instanceof ArrayBuffer ? new Uint8Array(value)
        : value instanceof DataView ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength) : value;
      add(2);
      const out = [];
      for (let i = 0; i < view.length; i += 1) {
        const item = typeof view[i] === 'bigint' ? Number(view[i]) : view[i];
        add(primitiveBytes(item) + 1);
        out.push(item);
      }
      return out;
    }
    if (isVec3(value)) {
      add(14 + primitiveBytes(value.x) + primitiveBytes(value.y) + primitiveBytes(value.z));
      return { [VEC3_TAG]: [value.x, value.y, value.z] };
    }
    ancestors.add(value);
    let out;
    add(2);
    if (Array.isArray(value)) {
      out = [];
      for (let i = 0; i < value.length; i += 1) {
        add(1);
        const item = walk(value[i], depth + 1);
        out.push(item === undefined ? null : item);
      }
    } else {
      out = {};
      for (const key of Object.keys(value)) {
        if (noAccessors && 'get' in (Object.getOwnPropertyDescriptor(value, key) ?? {})) {
          throw new TypeError(`${what} has a getter (accessor property ${JSON.stringify(key.slice(0, 40))}): return plain data`);
        }
        const item = walk(value[key], depth + 1);
        if (item !== undefined) {
          add(utf8Bytes(key) + 4);
          defineData(out, key, item);
        }
      }
    }
    ancestors.delete(value);
    return out;
  };
  return walk(root, 0);
}

function decode(value, makeVec3) {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return value;
  if (Array.isArray(value)) return value.map((item) => decode(item, makeVec3));
  const tagged = value[VEC3_TAG];
  if (Array.isArray(tagged) && Object.keys(value).length === 1) {
    return makeVec3(tagged[0], tagged[1], tagged[2]);
  }
  const out = {};
  for (const key of Object.keys(value)) defineData(out, key, decode(value[key], makeVec3));
  return out;
}

// defineProperty, not assignment: a "__proto__" key must stay a plain key.
function defineData(target, key, value) {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

module.exports = { encode, decode, ValueLimitError, utf8Bytes };
