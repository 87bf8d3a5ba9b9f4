// Waits for a signal from `other` (signals from anyone else are passed over).
async function waitSignalFrom(bot, other, timeout) {
  for (;;) {
    const sender = await waitSignal(bot, `a signal from ${other}`, timeout);
    if (sender === null || sender === other) return sender;
  }
}

// Mines each target up to its count this round and what its episode total still allows.
async function mineRound(bot, targets) {
  let mined = 0;
  for (const target of targets) {
    const want = target.total === null ? target.count : Math.min(target.count, target.total);
    if (want <= 0 || bot.findBlock({ matching: target.block, maxDistance: __SEARCH_RADIUS__ }) === null) continue;
    const got = (await mineBlock(bot, target.block, want)) || 0;
    if (target.total !== null) target.total -= got;
    mined += got;
  }
  return mined;
}

// Crafts each of [{ item, count, fetch: [{ chest, item, count }] }] once, first taking from chests the
// ingredients it lacks (other players may have deposited them there).
async function craftOnce(bot, crafts) {
  for (const craft of crafts) {
    if (craft.done) continue;
    for (const { chest, item, count } of craft.fetch) {
      const held = bot.inventory.items().filter((s) => s.name === item).reduce((n, s) => n + s.count, 0);
      if (held < count) await getItemFromChest(bot, new Vec3(chest[0], chest[1], chest[2]), { [item]: count - held });
    }
    craft.done = ((await craftItem(bot, craft.item, craft.count)) || 0) > 0;
  }
}

// Deposits [{ chest: [x, y, z], item, count }] (count null: all it holds).
async function depositAll(bot, deposits) {
  for (const { chest, item, count } of deposits) {
    const held = bot.inventory.items().filter((s) => s.name === item).reduce((n, s) => n + s.count, 0);
    const amount = count === null ? held : Math.min(count, held);
    if (amount > 0) await depositItemIntoChest(bot, new Vec3(chest[0], chest[1], chest[2]), { [item]: amount });
  }
}

// Cooperative (the last function is the program): does what the contract asks of it. It waits for the signals it must wait for, takes
// its tools, crafts, mines its targets (never more than a quota allows in a period), deposits what
// it must, hands a shared tool back, and signals once its first deposits and crafts are done.
async function playByContract(bot) {
  const turn = __TURN__; // null, or { role: 'first' | 'then', item, chest: [x, y, z], other }
  const period = __PERIOD__; // seconds of a quota period, or null
  const targets = __TARGETS__; // [{ block, count, total }]: count per round, total (or null) over the episode
  const crafts = __CRAFTS__.map((c) => ({ ...c, done: false })); // [{ item, count }]
  const start = bot.time.age / 20;
  for (const other of __WAIT_FOR__) {
    await waitSignalFrom(bot, other, __WAIT_SECONDS__);
  }
  if (turn !== null && turn.role === 'then') {
    await waitSignal(bot, `${turn.other} returns the ${turn.item}`, __WAIT_SECONDS__);
  }
  await takeFirstAvailable(bot, __TOOLS__);
  for (let round = 0; ; round += 1) {
    await craftOnce(bot, crafts);
    await depositAll(bot, __DEPOSITS__); // what it holds already (materials others wait for)
    if (round === 0 && __SIGNAL__) await sendSignal(bot, 'done');
    const mined = await mineRound(bot, targets);
    await craftOnce(bot, crafts);
    await depositAll(bot, __DEPOSITS__);
    if (round === 0 && turn !== null && turn.role === 'first') {
      await depositItemIntoChest(bot, new Vec3(turn.chest[0], turn.chest[1], turn.chest[2]), { [turn.item]: 1 });
      await sendSignal(bot, `the ${turn.item} is back in the chest`);
    }
    if (period !== null) {
      const next = start + (round + 1) * period + 1; // one second in: what grows at the period start has grown
      const now = bot.time.age / 20;
      if (next > now) await bot.waitForTicks(Math.ceil((next - now) * 20));
    } else if (!__RENEWING__) {
      return;
    } else if (mined === 0) {
      await bot.waitForTicks(__IDLE_SECONDS__ * 20);
    }
  }
}
