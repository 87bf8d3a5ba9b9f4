'use strict';
// Values crossing between the main thread and the sandbox worker. Structured
// clone alone is not enough: mineflayer objects carry functions and cycles, and
// Vec3 instances must arrive as Vec3 on the other side (several vec3 copies
// exist in node_modules, hence the duck typing instead of instanceof).

const VEC3_TAG = '$vec3';
const MAX_DEPTH = 24;
// Decoding runs on the main thread next to mineflayer: a program must not be
// able to stall it with one giant argument.
const MAX_NODES = 100_000;
const MAX_STRING = 1_000_000;

function isVec3(value) {
  return typeof value.x === 'number' && typeof value.y === 'number' &&
    typeof value.z === 'number' && value.constructor != null &&
    value.constructor.name === 'Vec3';
}

// `onFunction()` decides what a function becomes: the worker throws (a program
// passed a callback the host cannot run), the main thread drops it (undefined).
// Cycles become null; repeated (non-cyclic) references are copied.
function encode(root, onFunction) {
  let nodes = 0;
  const ancestors = new Set();
  const walk = (value, depth) => {
    if (typeof value === 'function') return onFunction();
    if (typeof value === 'symbol') return undefined;
    if (typeof value === 'string' && value.length > MAX_STRING) {
      throw new RangeError(`string too long to send (${value.length} > ${MAX_STRING} characters)`);
    }
    if (value === null || typeof value !== 'object') return value;
    if (++nodes > MAX_NODES) throw new RangeError(`value too large to send (over ${MAX_NODES} objects)`);
    if (ArrayBuffer.isView(value)) return value;
    if (depth > MAX_DEPTH || ancestors.has(value)) return null;
    if (isVec3(value)) return { [VEC3_TAG]: [value.x, value.y, value.z] };
    ancestors.add(value);
    let out;
    if (Array.isArray(value)) {
      out = value.map((item) => walk(item, depth + 1));
    } else {
      out = {};
      for (const key of Object.keys(value)) {
        const item = walk(value[key], depth + 1);
        if (item !== undefined) defineData(out, key, item);
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

module.exports = { encode, decode };
