'use strict';
// Behaviour of the sandboxed program runner: RPC, queries, errors, budgets,
// skills, prelude, worker recycling. Real SES lockdown in real worker threads;
// the only stand-in is the host (the bot body), which records what it is asked.

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { Vec3 } = require('vec3');
const { createRunner, drainPool } = require(path.join(__dirname, '../../blockpact/bridge/js/sandbox'));

const MC_VERSION = '1.20.4';

// A recording body. `answers` maps a primitive/query name to a function of the args.
function recordingHost(answers = {}) {
  const host = {
    calls: [],
    queries: [],
    stops: 0,
    async call(name, args) {
      host.calls.push([name, args]);
      return answers[name] ? answers[name](...args) : null;
    },
    query(name, args) {
      host.queries.push([name, args]);
      return answers[name] ? answers[name](...args) : null;
    },
    stop() {
      host.stops += 1;
    },
  };
  return host;
}

const runners = [];
function makeRunner(host, config = {}) {
  const runner = createRunner({ mcVersion: MC_VERSION, ...config }, host);
  runners.push(runner);
  return runner;
}

const OK_PROGRAM = 'async function ok(bot) { return "ok"; }';
async function assertStillWorks(runner) {
  const result = await runner.run(OK_PROGRAM, { budgetMs: 5000 });
  assert.equal(result.success, true, result.error);
  assert.equal(result.returnValue, 'ok');
}

// Every worker and its ports must be gone after close(); handles are released
// a few ticks after a worker's exit, so give them a moment.
async function workerHandlesLeft() {
  const left = () => process.getActiveResourcesInfo().filter((r) => r === 'MessagePort' || r === 'Worker');
  for (let i = 0; i < 50 && left().length > 0; i += 1) await new Promise((r) => setTimeout(r, 20));
  return left();
}

test.after(async () => {
  await Promise.all(runners.map((r) => r.close()));
  await drainPool(); // closed runners park their clean workers for reuse
  assert.deepEqual(await workerHandlesLeft(), []);
});

test('a program calls primitives, reads the bot synchronously, chats, logs and returns', async () => {
  const host = recordingHost({
    mineBlock: (name, count) => ({ mined: count, name }),
    'entity.position': () => new Vec3(10, 64, -3),
    health: () => 17,
    'inventory.items': () => [{ name: 'iron_ore', count: 3 }],
    blockAt: (pos) => ({ name: 'stone', position: pos, drops() {} }),
  });
  const runner = makeRunner(host);
  const result = await runner.run(`async function main(bot) {
  const here = bot.entity.position;
  const above = here.offset(0, 1, 0);
  const block = bot.blockAt(above);
  bot.chat('going mining');
  log('health', bot.health, 'block', block.name, block.position.y);
  console.warn('careful');
  const got = await mineBlock(bot, 'iron_ore', 3);
  return { got, items: bot.inventory.items(), above: above.toArray(), isVec3: block.position instanceof Vec3 };
}`, { budgetMs: 5000 });
  assert.equal(result.success, true, result.error);
  assert.deepEqual(result.returnValue, {
    got: { mined: 3, name: 'iron_ore' },
    items: [{ name: 'iron_ore', count: 3 }],
    above: [10, 65, -3],
    isVec3: true,
  });
  assert.deepEqual(result.chat, ['going mining']);
  assert.deepEqual(result.logs, ['health 17 block stone 65', '[warn] careful']);
  assert.equal(result.error, null);
  assert.ok(result.durationMs >= 0);
  // The bot argument is implied; Vec3 arguments arrive as Vec3 on the host side.
  assert.deepEqual(host.calls, [['chat', ['going mining']], ['mineBlock', ['iron_ore', 3]]]);
  const [, [pos]] = host.queries.find(([name]) => name === 'blockAt');
  assert.ok(pos instanceof Vec3);
  assert.deepEqual(pos.toArray(), [10, 65, -3]);
  assert.equal(host.stops, 0);
});

test('lockdown is applied in the worker and not on the main thread', async () => {
  const runner = makeRunner(recordingHost());
  const result = await runner.run(`async function main(bot) {
  return [Object.prototype, Array.prototype, Function.prototype, Promise.prototype, Object, Math, JSON, bot, Vec3.prototype]
    .map((o) => Object.isFrozen(o));
}`, { budgetMs: 5000 });
  assert.equal(result.success, true, result.error);
  assert.deepEqual(result.returnValue, Array(9).fill(true));
  assert.equal(Object.isFrozen(Object.prototype), false);
  assert.equal(typeof globalThis.lockdown, 'undefined');
});

test('a synchronous query waits for an asynchronous host answer', async () => {
  const host = recordingHost({
    findBlock: (options) => new Promise((resolve) => {
      setTimeout(() => resolve({ name: options.name, position: new Vec3(1, 2, 3) }), 30);
    }),
  });
  const runner = makeRunner(host);
  const result = await runner.run(`async function main(bot) {
  const found = bot.findBlock({ name: 'oak_log', maxDistance: 32 });
  return [found.name, found.position.distanceTo(new Vec3(1, 2, 4))];
}`, { budgetMs: 5000 });
  assert.equal(result.success, true, result.error);
  assert.deepEqual(result.returnValue, ['oak_log', 1]);
});

test('errors report the line of the user program, not of any wrapper', async () => {
  const host = recordingHost({
    craftItem: () => { throw new Error('no crafting table nearby'); },
    heldItem: () => Promise.reject(new Error('body is gone')),
  });
  const runner = makeRunner(host);

  const thrown = await runner.run('async function main(bot) {\n  const x = 1;\n  throw new Error("boom " + x);\n}', { budgetMs: 5000 });
  assert.equal(thrown.success, false);
  assert.equal(thrown.error, 'Error: boom 1');
  assert.equal(thrown.errorLine, 3);
  assert.match(thrown.stack, /^Error: boom 1\n {4}at main \(program:3:\d+\)$/);

  const primitive = await runner.run('async function main(bot) {\n  await mineBlock(bot, "dirt", 1);\n  await craftItem(bot, "stick", 4);\n}', { budgetMs: 5000 });
  assert.equal(primitive.error, 'Error: no crafting table nearby');
  assert.equal(primitive.errorLine, 3);

  const query = await runner.run('async function main(bot) {\n\n  return bot.heldItem;\n}', { budgetMs: 5000 });
  assert.equal(query.error, 'Error: bot.heldItem: body is gone');
  assert.equal(query.errorLine, 3);

  const syntax = await runner.run('async function main(bot) {\n  const a = 1;\n  if (a {\n}', { budgetMs: 5000 });
  assert.equal(syntax.success, false);
  assert.match(syntax.error, /^SyntaxError: Unexpected token \(line 3, column 9\)$/);
  assert.equal(syntax.errorLine, 3);

  const typeError = await runner.run('async function main(bot) {\n  const o = undefined;\n  return o.x;\n}', { budgetMs: 5000 });
  assert.match(typeError.error, /^TypeError: /);
  assert.equal(typeError.errorLine, 3);

  const notAnError = await runner.run('async function main(bot) { throw "plain string"; }', { budgetMs: 5000 });
  assert.equal(notAnError.error, 'Uncaught "plain string"');
  assert.equal(notAnError.errorLine, null);

  const noFunction = await runner.run('const x = 1;', { budgetMs: 5000 });
  assert.match(noFunction.error, /must declare its entry function/);
});

test('library skills share the scope, keep their own line numbers, and the entry can be chosen', async () => {
  const host = recordingHost({ mineBlock: (name, count) => count });
  const runner = makeRunner(host);
  const skills = [
    'async function mineTwice(bot, name) {\n  const a = await mineBlock(bot, name, 1);\n  return a + await mineBlock(bot, name, 2);\n}',
    'async function failingSkill(bot) {\n\n  throw new Error("skill broke");\n}',
  ];
  const result = await runner.run(
    'async function helper() { return 40; }\nasync function main(bot) {\n  return (await helper()) + await mineTwice(bot, "dirt") - 1;\n}',
    { budgetMs: 5000, skills });
  assert.equal(result.success, true, result.error);
  assert.equal(result.returnValue, 42);

  const failing = await runner.run('async function main(bot) {\n  await failingSkill(bot);\n}', { budgetMs: 5000, skills });
  assert.equal(failing.error, 'Error: skill broke');
  assert.match(failing.stack, /at (Object\.)?failingSkill \(skill:failingSkill:3:\d+\)/);
  assert.match(failing.stack, /at main \(program:2:\d+\)/);
  assert.equal(failing.errorLine, 2);

  const chosen = await runner.run('async function first(bot) { return 1; }\nasync function second(bot) { return 2; }',
    { budgetMs: 5000, entry: 'first' });
  assert.equal(chosen.returnValue, 1);

  const brokenSkill = await runner.run(OK_PROGRAM, { budgetMs: 5000, skills: ['async function (bot) {}'] });
  assert.match(brokenSkill.stack, /at skill:#1:1:\d+/);
  assert.equal(brokenSkill.errorLine, null);
});

test('the prelude builds JS helpers on the RPC and its host stays hidden from programs', async () => {
  const host = recordingHost({ digAt: (pos) => `dug ${pos.x},${pos.y},${pos.z}` });
  const prelude = `
    async function digBelow(bot) {
      const p = bot.entity.position;
      return host.call('digAt', [p.offset(0, -1, 0)]);
    }
    return { digBelow };`;
  const runner = makeRunner({ ...host, query: () => new Vec3(5, 70, 5) }, {
    prelude, hostCalls: ['digAt'], queries: ['entity.position'],
  });
  // Spread copies the methods; keep the original recorder for assertions.
  const result = await runner.run('async function main(bot) {\n  return [await digBelow(bot), typeof host, typeof digAt];\n}', { budgetMs: 5000 });
  assert.equal(result.success, true, result.error);
  assert.deepEqual(result.returnValue, ['dug 5,69,5', 'undefined', 'undefined']);
  assert.deepEqual(host.calls.map(([name]) => name), ['digAt']);
});

test('configured async bot methods are forwarded as host calls', async () => {
  const host = recordingHost({ 'bot.equip': (item, destination) => `${item} in ${destination}` });
  const runner = makeRunner(host, { botCalls: ['equip', 'pathfinder.goto'], queries: ['heldItem'] });
  const result = await runner.run(
    'async function main(bot) {\n  await bot.pathfinder.goto({ x: 1, y: 2, z: 3 });\n  return [await bot.equip("iron_pickaxe", "hand"), typeof bot.findBlock];\n}',
    { budgetMs: 5000 });
  assert.equal(result.success, true, result.error);
  assert.deepEqual(result.returnValue, ['iron_pickaxe in hand', 'undefined']);
  assert.deepEqual(host.calls, [['bot.pathfinder.goto', [{ x: 1, y: 2, z: 3 }]], ['bot.equip', ['iron_pickaxe', 'hand']]]);
});

test('a broken prelude makes run() reject with the reason', async () => {
  const runner = makeRunner(recordingHost(), { prelude: 'return {' });
  await assert.rejects(runner.run(OK_PROGRAM, { budgetMs: 5000 }), /failed to start: prelude: Unexpected token/);
});

test('mcData is a frozen data view of the configured version', async () => {
  const runner = makeRunner(recordingHost());
  const result = await runner.run(`async function main(bot) {
  const iron = mcData.blocksByName.iron_ore;
  return [mcData.version.minecraftVersion, mcData.items[mcData.itemsByName.stick.id].name, Object.isFrozen(iron), typeof iron.id];
}`, { budgetMs: 10000 });
  assert.equal(result.success, true, result.error);
  assert.deepEqual(result.returnValue, ['1.20.4', 'stick', true, 'number']);
});

test('cancel(runId, reason) stops the program and the body; the runner keeps working', async () => {
  let release;
  const host = recordingHost({ moveTo: () => new Promise((resolve) => { release = resolve; }) });
  const runner = makeRunner(host);
  const pending = runner.run('async function main(bot) {\n  log("walking");\n  await moveTo(bot, 1, 2, 3);\n  return "arrived";\n}',
    { budgetMs: 30000, runId: 'sim-7' });
  while (host.calls.length === 0) await new Promise((r) => setTimeout(r, 5));
  assert.equal(runner.activeRunId, 'sim-7');
  assert.equal(runner.cancel('other-run', 'nope'), false);
  assert.equal(runner.cancel('sim-7', 'simulated time budget exhausted'), true);
  const result = await pending;
  assert.equal(result.success, false);
  assert.equal(result.error, 'simulated time budget exhausted');
  assert.deepEqual(result.logs, ['walking']);
  assert.equal(host.stops, 1);
  release('late'); // a late host answer goes nowhere
  await assertStillWorks(runner);
  assert.equal(runner.activeRunId, null);
});

test('a query the host never answers is cut by the budget', async () => {
  const host = recordingHost({ players: () => new Promise(() => {}) });
  const runner = makeRunner(host);
  const result = await runner.run('async function main(bot) { return bot.players; }', { budgetMs: 300 });
  assert.equal(result.error, 'timed out after 300 ms');
  assert.equal(host.stops, 1);
  await assertStillWorks(runner);
});

// A host that answers each call after `delayMs` of real time: the simulator while other programs
// take their turns, or a loaded machine.
function slowHost(delayMs) {
  return recordingHost({
    moveTo: (x) => new Promise((resolve) => setTimeout(() => resolve(x), delayMs)),
    'bot.waitForTicks': () => new Promise((resolve) => setTimeout(resolve, delayMs)),
  });
}

test('on the compute clock, time spent awaiting the host does not count', async () => {
  const runner = makeRunner(slowHost(400), { budgetClock: 'compute', botCalls: ['waitForTicks'] });
  const result = await runner.run(`async function main(bot) {
  const first = await moveTo(bot, 1);
  await bot.waitForTicks(20);
  return first + await moveTo(bot, 2);
}`, { budgetMs: 250 });
  assert.equal(result.success, true, result.error);
  assert.equal(result.returnValue, 3);
  assert.ok(result.durationMs >= 1150, `durationMs ${result.durationMs}`);
  assert.ok(result.computeMs < 250, `computeMs ${result.computeMs}`);
});

test('on the wall clock (the default), the same waiting times out', async () => {
  const runner = makeRunner(slowHost(400));
  const result = await runner.run('async function main(bot) {\n  await moveTo(bot, 1);\n  await moveTo(bot, 2);\n}', { budgetMs: 250 });
  assert.equal(result.error, 'timed out after 250 ms');
});

test('on the compute clock, a spin after a slow call is still stopped, by its own computing only', async () => {
  const host = slowHost(400);
  const runner = makeRunner(host, { budgetClock: 'compute' });
  const result = await runner.run('async function main(bot) {\n  await moveTo(bot, 1);\n  for (;;) {}\n}', { budgetMs: 300 });
  assert.equal(result.error, 'timed out after 300 ms of computing time');
  assert.ok(result.durationMs >= 690, `durationMs ${result.durationMs}`);
  assert.ok(result.computeMs >= 290 && result.computeMs < result.durationMs - 300, `computeMs ${result.computeMs}`);
  assert.equal(host.stops, 1);
  await assertStillWorks(runner);
});

test('on the compute clock, waiting for a slow query answer does not count, the computing around it does', async () => {
  // A host answering each synchronous query after 100 ms: Python on a loaded machine. The worker is
  // blocked (busy) for those 500 ms, but they are the host's time, not the program's.
  const slowAnswer = () => new Promise((resolve) => setTimeout(resolve, 100, ['Gizmo']));
  const runner = makeRunner(recordingHost({ players: slowAnswer }), { budgetClock: 'compute' });
  const reads = 'async function main(bot) {\n  let n = 0;\n  for (let i = 0; i < 5; i++) n += bot.players.length;\n  return n;\n}';
  const result = await runner.run(reads, { budgetMs: 250 });
  assert.equal(result.success, true, result.error);
  assert.equal(result.returnValue, 5);
  assert.ok(result.durationMs >= 490, `durationMs ${result.durationMs}`);
  assert.ok(result.computeMs < 250, `computeMs ${result.computeMs}`);
  const spin = await makeRunner(recordingHost({ players: slowAnswer }), { budgetClock: 'compute' }).run(
    'async function main(bot) {\n  bot.players;\n  for (;;) {}\n}', { budgetMs: 250 });
  assert.equal(spin.error, 'timed out after 250 ms of computing time');
});

test('on the compute clock, a query the host never answers is still cut by the budget', async () => {
  const host = recordingHost({ players: () => new Promise(() => {}) });
  const runner = makeRunner(host, { budgetClock: 'compute' });
  const result = await runner.run('async function main(bot) { return bot.players; }', { budgetMs: 300 });
  assert.equal(result.error, 'timed out after 300 ms of computing time');
  await assertStillWorks(runner);
});

test('a worker that does not start in time is a named failure, not "exited during start"', async () => {
  const runner = makeRunner(recordingHost(), { startTimeoutMs: 1 });
  await assert.rejects(runner.run(OK_PROGRAM), /sandbox worker did not start within 1 ms \(limit startTimeoutMs\)/);
  await runner.close();
});

test('a primitive left running when the program returns is stopped and its result dropped', async () => {
  let release;
  const host = recordingHost({ mineBlock: () => new Promise((resolve) => { release = resolve; }) });
  const runner = makeRunner(host);
  const result = await runner.run('async function main(bot) {\n  mineBlock(bot, "dirt", 64).then(() => log("late"));\n  return 1;\n}', { budgetMs: 5000 });
  assert.equal(result.success, true, result.error);
  assert.equal(host.stops, 1);
  release(64);
  await assertStillWorks(runner);
  assert.deepEqual(result.logs, []);
});

test('a loop left behind by a finished program is charged to it and does not break the next run', async () => {
  const runner = makeRunner(recordingHost(), { pingTimeoutMs: 200, idleTimeoutMs: 300 });
  const result = await runner.run(
    'async function main(bot) {\n  (async () => { for (;;) await null; })();\n  return "left a loop";\n}', { budgetMs: 5000 });
  assert.equal(result.success, false);
  assert.equal(result.limit, 'idleTimeoutMs');
  assert.match(result.error, /^the program left code running after it returned: its sandbox did not answer within 300 ms \(limit idleTimeoutMs\)$/);
  await assertStillWorks(runner);
});

test('one run at a time per runner; bad arguments are refused', async () => {
  const host = recordingHost({ waitSignal: () => new Promise((r) => setTimeout(r, 200, 'signal')) });
  const runner = makeRunner(host);
  const first = runner.run('async function main(bot) { return waitSignal(bot, "go"); }', { budgetMs: 5000 });
  await assert.rejects(runner.run(OK_PROGRAM), /busy/);
  assert.equal((await first).returnValue, 'signal');
  await assert.rejects(runner.run(42), /source must be a string/);
  const fnArg = await runner.run('async function main(bot) { return bot.findBlock({ matching: (b) => b.name === "x" }); }', { budgetMs: 5000 });
  assert.match(fnArg.error, /bot.findBlock: functions cannot be sent to the game/);
  const huge = await runner.run('async function main(bot) { await moveTo(bot, new Array(200000).fill({ x: 1 })); }', { budgetMs: 5000 });
  assert.match(huge.error, /^RangeError: moveTo: argument too large: over 1048576 bytes, limit 32768 \(limit maxArgumentBytes\)/);
  assert.equal(host.calls.some(([name]) => name === 'moveTo'), false);
  assert.throws(() => createRunner({}, host), /mcVersion is required/);
  assert.throws(() => createRunner({ mcVersion: MC_VERSION, queries: ['entity', 'entity.position'] }, host), /conflicts/);
  assert.throws(() => createRunner({ mcVersion: MC_VERSION, queries: ['equip()'], botCalls: ['equip'] }, host), /duplicate/);
  assert.throws(() => createRunner({ mcVersion: MC_VERSION, budgetClock: 'cpu' }, host),
    /config.budgetClock must be one of wall, compute, got "cpu"/);
  await assert.rejects(runner.run(OK_PROGRAM, { entry: 'main; process' }), /invalid entry function name/);
  assert.throws(() => createRunner({ mcVersion: MC_VERSION, primitives: ['bot'] }, host), /reserved/);
});

test('close() ends an active run and leaves nothing running', async () => {
  const host = recordingHost();
  const runner = createRunner({ mcVersion: MC_VERSION }, host);
  const pending = runner.run('async function main(bot) { for (;;) {} }', { budgetMs: 30000 });
  await new Promise((r) => setTimeout(r, 300));
  await runner.close();
  assert.equal((await pending).error, 'runner closed');
  assert.equal(host.stops, 1);
  await assert.rejects(runner.run(OK_PROGRAM), /closed/);
});

test('a skill cannot replace a primitive or an endowment, and its top-level code does not run', async () => {
  const host = recordingHost({ mineBlock: (name, n) => `mined ${n} ${name}` });
  const runner = makeRunner(host);
  const skills = [
    'async function mineBlock(bot, name, n) {\n  return "forged";\n}\nbot.chat("top level ran");\nlog("top level ran");',
    'function log(...args) {}\nasync function helper(bot) {\n  return mineBlock(bot, "stone", 2);\n}',
    'globalThis.mineBlock = () => "replaced";\nasync function mcData() {}',
  ];
  const result = await runner.run('async function main(bot) {\n  log("mine");\n  return [await mineBlock(bot, "dirt", 1), await helper(bot)];\n}',
    { budgetMs: 5000, skills });
  assert.equal(result.success, true, result.error);
  assert.deepEqual(result.returnValue, ['mined 1 dirt', 'mined 2 stone']);
  assert.deepEqual(result.chat, []);
  assert.deepEqual(result.logs, [
    "[skill mineBlock not loaded: it would replace the program's own mineBlock]",
    "[skill log not loaded: it would replace the program's own log]",
    "[skill mcData not loaded: it would replace the program's own mcData]",
    'mine',
  ]);
});
