'use strict';
// A hardened, data-only view of minecraft-data for programs. Built on first
// use: loading and hardening it costs ~150 ms, which most programs never need
// (minecraft-data is plain JSON plus lookups, so loading it after lockdown works).

const KEYS = [
  'blocks', 'blocksByName', 'blocksArray', 'items', 'itemsByName', 'itemsArray',
  'foods', 'foodsByName', 'foodsArray', 'entities', 'entitiesByName', 'entitiesArray',
  'biomes', 'biomesByName', 'biomesArray', 'enchantments', 'enchantmentsByName',
  'effects', 'effectsByName', 'materials', 'recipes', 'blockLoot', 'entityLoot',
];

function mcDataLoader(version) {
  let view = null;
  return () => {
    if (view) return view;
    const data = require('minecraft-data')(version);
    if (!data) throw new Error(`minecraft-data has no data for version ${version}`);
    const built = {};
    for (const key of KEYS) if (data[key] !== undefined) built[key] = data[key];
    // data.version also holds comparison functions; keep its plain fields.
    built.version = {};
    for (const [key, value] of Object.entries(data.version)) {
      if (typeof value !== 'function') built.version[key] = value;
    }
    view = harden(built);
    return view;
  };
}

module.exports = { mcDataLoader };
