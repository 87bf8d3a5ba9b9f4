'use strict';
// The program extractor with the real acorn parser: entry selection, helpers,
// dropped top-level calls, and the failures an LLM reply can have.

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const acorn = require(path.join(__dirname, '../../node_modules/acorn'));
const { createExtractor } = require(path.join(__dirname, '../../blockpact/bridge/js/parse/extract.js'));

const { extract } = createExtractor(acorn);
const run = (source) => JSON.parse(extract(source));

test('the last async function taking bot is the entry; others are helpers', () => {
  const source = [
    'function count(bot, name) { return 1; }',
    'async function mineWood(bot) { await mineBlock(bot, "oak_log", 1); }',
    'async function mineIron(bot) { await mineWood(bot); await mineBlock(bot, "iron_ore", 2); }',
  ].join('\n');
  const out = run(source);
  assert.equal(out.ok, true);
  assert.equal(out.entry, 'mineIron');
  assert.deepEqual(out.helpers, ['count', 'mineWood']);
  assert.equal(out.code, source); // nothing to change: the reply's own lines
});

test('top-level calls of the entry are dropped, with or without await', () => {
  const source = 'async function go(bot) {\n  bot.chat("hi");\n}\nawait go(bot);\ngo(bot);\n';
  const out = run(source);
  assert.equal(out.ok, true);
  assert.equal(out.entry, 'go');
  assert.deepEqual(out.dropped, ['await go(bot);', 'go(bot);']);
  assert.equal(out.code, 'async function go(bot) {\n  bot.chat("hi");\n}\n');
});

test('a helper declared after the entry is moved before it, so the sandbox runs the entry', () => {
  const source = 'async function main(bot) { helper(); }\nfunction helper() {}\nconst N = 3;';
  const out = run(source);
  assert.equal(out.entry, 'main');
  assert.equal(out.code, 'function helper() {}\n\nconst N = 3;\n\nasync function main(bot) { helper(); }\n');
  const reparsed = acorn.parse(out.code, { ecmaVersion: 'latest' });
  assert.equal(reparsed.body.filter((n) => n.type === 'FunctionDeclaration').at(-1).id.name, 'main');
});

test('a syntax error is reported with line and column', () => {
  const out = run('async function main(bot) {\n  await mineBlock(bot, "iron_ore", 1\n}\n');
  assert.equal(out.ok, false);
  assert.equal(out.kind, 'syntax');
  assert.equal(out.line, 3);
  assert.equal(out.column, 0);
  assert.match(out.message, /Unexpected token/);
  assert.doesNotMatch(out.message, /\(\d+:\d+\)$/);
});

test('another top-level await is reported where it was written', () => {
  const out = run('async function main(bot) {}\nawait bot.chat("x");\n');
  assert.equal(out.ok, false);
  assert.equal(out.kind, 'syntax');
  assert.equal(out.line, 2);
});

test('functions without an async bot entry are rejected', () => {
  for (const source of [
    'function main(bot) { }',                 // not async
    'async function main(agent) { }',         // no bot parameter
    'async function main() { }',
    'const main = async (bot) => { };',        // not a declaration
    '',
  ]) {
    const out = run(source);
    assert.equal(out.ok, false, source);
    assert.equal(out.kind, 'no_entry', source);
    assert.match(out.message, /async function taking `bot`/);
  }
});
