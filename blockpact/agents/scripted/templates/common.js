// Scripted baseline player (blockpact, deterministic, no LLM). Helpers shared by the scripted
// programs; the __NAMES__ in the player templates are filled in from the world spec.

function hasItem(bot, name) {
  return bot.inventory.items().some((stack) => stack.name === name && stack.count > 0);
}

// Take the first tool of `options` ([{ chest: [x, y, z], item }], best first) still in its chest.
async function takeFirstAvailable(bot, options) {
  for (const { item } of options) {
    if (hasItem(bot, item)) return item;
  }
  for (const { chest, item } of options) {
    await getItemFromChest(bot, new Vec3(chest[0], chest[1], chest[2]), { [item]: 1 });
    if (hasItem(bot, item)) return item;
  }
  return null;
}

// Mine each target ([{ block, count }]) in order; returns how many blocks were mined.
async function mineTargets(bot, targets) {
  let mined = 0;
  for (const { block, count } of targets) {
    mined += (await mineBlock(bot, block, count)) || 0;
  }
  return mined;
}

// For blocks that grow back: keep mining them until the scenario ends, waiting quietly (20 ticks a
// second) when none are left. `searchRadius` is how far mineBlock looks, so only blocks it can
// reach are tried.
async function mineWhileTheyGrowBack(bot, targets, idleSeconds, searchRadius) {
  for (;;) {
    const present = targets.filter(({ block }) => bot.findBlock({ matching: block, maxDistance: searchRadius }) !== null);
    if (present.length === 0 || (await mineTargets(bot, present)) === 0) {
      await bot.waitForTicks(idleSeconds * 20);
    }
  }
}
