'use strict';
// Runner configuration: defaults and validation, done once on the main thread
// so the worker receives names it can trust.

const { BUDGET_CLOCKS } = require('./budget');

const VOYAGER_PRIMITIVES = Object.freeze([
  'mineBlock', 'craftItem', 'smeltItem', 'placeItem', 'killMob', 'exploreUntil',
  'getItemFromChest', 'depositItemIntoChest', 'checkItemInsideChest', 'moveTo',
  'sendSignal', 'waitSignal',
]);

// A trailing "()" marks a method (bot.findBlock(...)); otherwise a property read.
const DEFAULT_QUERIES = Object.freeze([
  'findBlock()', 'findBlocks()', 'blockAt()', 'inventory.items()', 'entity.position',
  'heldItem', 'health', 'food', 'time', 'players', 'username',
]);

// Globals the runner itself provides; primitives may not shadow them.
const RESERVED = new Set(['bot', 'log', 'console', 'Vec3', 'mcData', 'host', 'chat',
  'globalThis', 'eval', 'Function', 'Compartment', 'harden']);
const ISOLATIONS = Object.freeze(['thread', 'process']);
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

const DEFAULTS = Object.freeze({
  memoryMb: 128, // worker old-generation heap cap; also the cap on its ArrayBuffer (external) memory
  youngMemoryMb: 16, // worker young-generation (semi-space) cap
  busyGrowthMb: 256, // the Node process may grow this much while a program computes without pausing
  memoryCheckMs: 25, // how often memory is checked (worker reports and the process's resident set)
  maxMessageBytes: 1_048_576, // one answer to the program, the return value: bytes of JSON
  maxArgumentBytes: 32_768, // one primitive call's arguments: bytes of JSON, refused before the call leaves the sandbox
  maxSourceBytes: 4_194_304, // a program's source and its skills together
  maxReturnDepth: 32, // nesting of the return value (Python's JSON reader stops near 1000)
  maxPendingCalls: 64, // primitive calls (and bot.chat) started and not yet answered, per program
  maxChatMessages: 200, // bot.chat lines per program
  maxChatLength: 256, // characters per chat line (Minecraft's limit); longer lines are cut
  defaultBudgetMs: 60_000,
  // "compute" clock: each synchronous query is charged this much besides the work the host reports (runner.charge):
  // a round trip to the simulator costs 0.4-0.55 ms of CPU, Python and Node together (bench/sandbox_host_charge.py)
  queryChargeMs: 0.5,
  budgetCheckMs: 20, // "compute" budget clock: the shortest wait between two checks of the worker's active time
  startTimeoutMs: 15_000, // worker boot (SES lockdown) must finish within this
  pingTimeoutMs: 500, // an idle worker that cannot answer is wedged by a leftover loop
  // a program that returned is reported once its sandbox answers within this; else it left code running. Longer than
  // pingTimeoutMs: a sandbox process on a loaded machine (load 20) took over 500 ms to answer for a clean program
  idleTimeoutMs: 5_000,
  stopTimeoutMs: 5_000, // host.stop() may hang (e.g. a wedged JSPyBridge call)
  poolIdleMs: 10_000, // a closed runner's clean worker waits this long for a new owner (worker-pool.js)
  programsPerWorker: 64, // programs of packed runners sharing one worker (worker-pack.js)
  maxLogLines: 1_000,
  maxLineLength: 2_000,
});

const isIdentifier = (name) => typeof name === 'string' && IDENTIFIER.test(name);

function checkName(kind, name) {
  if (!isIdentifier(name) || FORBIDDEN_KEYS.has(name)) {
    throw new TypeError(`invalid ${kind} name: ${JSON.stringify(name)}`);
  }
}

function parsePath(kind, path) {
  if (typeof path !== 'string') throw new TypeError(`invalid ${kind}: ${JSON.stringify(path)}`);
  for (const part of path.split('.')) checkName(kind, part);
  if (path === 'chat') throw new TypeError(`${kind} "chat" is reserved for bot.chat`);
  return path;
}

// Members of the bot facade: kind "get" (property, sync query), "query" (sync
// method) or "call" (async method, forwarded to host.call as "bot.<path>").
function parseBotMembers(querySpecs, callSpecs) {
  const members = [
    ...querySpecs.map((spec) => {
      const method = typeof spec === 'string' && spec.endsWith('()');
      return { path: parsePath('query', method ? spec.slice(0, -2) : spec), kind: method ? 'query' : 'get' };
    }),
    ...callSpecs.map((path) => ({ path: parsePath('bot call', path), kind: 'call' })),
  ];
  const paths = new Set();
  for (const { path } of members) {
    if (paths.has(path)) throw new TypeError(`duplicate bot member: ${path}`);
    paths.add(path);
  }
  // "entity" and "entity.position" cannot both exist: bot.entity is either a value or a namespace.
  for (const a of paths) {
    for (const b of paths) {
      if (b.startsWith(`${a}.`)) throw new TypeError(`bot member "${a}" conflicts with "${b}"`);
    }
  }
  return members;
}

function normalizeConfig(config = {}) {
  const primitives = [...(config.primitives ?? VOYAGER_PRIMITIVES)];
  const hostCalls = [...(config.hostCalls ?? [])];
  for (const name of [...primitives, ...hostCalls]) {
    checkName('primitive', name);
    if (RESERVED.has(name)) throw new TypeError(`primitive name is reserved: ${name}`);
  }
  if (typeof config.mcVersion !== 'string' || config.mcVersion === '') {
    throw new TypeError('config.mcVersion is required (e.g. "1.20.4")');
  }
  if (config.prelude != null && typeof config.prelude !== 'string') {
    throw new TypeError('config.prelude must be JavaScript source text');
  }
  const budgetClock = config.budgetClock ?? 'wall';
  if (!BUDGET_CLOCKS.includes(budgetClock)) {
    throw new TypeError(`config.budgetClock must be one of ${BUDGET_CLOCKS.join(', ')}, got ${JSON.stringify(budgetClock)}`);
  }
  // "thread": the program's worker thread lives in this process (trusted programs: cheap to start, many per
  // process); "process": in a child process of its own, killed at the budget (untrusted programs: a builtin
  // that a worker's termination cannot interrupt ends with its process, not with everyone's).
  const isolation = config.isolation ?? 'thread';
  if (!ISOLATIONS.includes(isolation)) {
    throw new TypeError(`config.isolation must be one of ${ISOLATIONS.join(', ')}, got ${JSON.stringify(isolation)}`);
  }
  const chatPerSecond = config.chatPerSecond ?? 0;
  if (!Number.isFinite(chatPerSecond) || chatPerSecond < 0) throw new TypeError('config.chatPerSecond must be a number >= 0 (0: no rate limit)');
  const out = {
    chatPerSecond, // wall-clock chat rate (a live server kicks spammers); 0 on the simulator, where chat is counted
    chatBurst: config.chatBurst ?? 10,
    stallCheck: config.stallCheck === true, // end a program that can never make progress at once
    packed: config.packed === true, // trusted programs only: share a worker with other runners' (worker-pack.js)
    primitives,
    hostCalls,
    botMembers: parseBotMembers([...(config.queries ?? DEFAULT_QUERIES)], [...(config.botCalls ?? [])]),
    prelude: config.prelude ?? null,
    mcVersion: config.mcVersion,
    budgetClock,
    isolation,
  };
  for (const [key, fallback] of Object.entries(DEFAULTS)) {
    const value = config[key] ?? fallback;
    if (!Number.isFinite(value) || value <= 0) throw new TypeError(`config.${key} must be a positive number`);
    out[key] = value;
  }
  return out;
}

module.exports = { normalizeConfig, isIdentifier, VOYAGER_PRIMITIVES, DEFAULT_QUERIES, DEFAULTS, ISOLATIONS };
