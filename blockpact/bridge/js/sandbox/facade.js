'use strict';
// The `bot` a program sees: not a mineflayer bot but a hardened object whose
// members are generated from configuration: synchronous queries to the main
// thread (bot.entity.position, bot.findBlock(...)) and async calls
// (await bot.equip(...)). Runs in the worker, after lockdown.

// members: [{ path: 'entity.position', kind: 'get' | 'query' | 'call' }]
function buildFacade(members, { query, call, chat }) {
  const bot = {};
  for (const { path, kind } of members) {
    const parts = path.split('.');
    const leaf = parts.pop();
    let owner = bot;
    for (const part of parts) owner = owner[part] ??= {};
    if (kind === 'call') {
      owner[leaf] = (...args) => call(`bot.${path}`, args);
    } else if (kind === 'query') {
      owner[leaf] = (...args) => query(path, args);
    } else {
      Object.defineProperty(owner, leaf, { get: () => query(path, []), enumerable: true });
    }
  }
  bot.chat = (message) => chat(message);
  return harden(bot);
}

module.exports = { buildFacade };
