// Waits for a signal from `other` (signals from anyone else are passed over).
async function waitSignalFrom(bot, other, timeout) {
  for (;;) {
    const sender = await waitSignal(bot, `a signal from ${other}`, timeout);
    if (sender === null || sender === other) return sender;
  }
}

// The quota window of `target` at `now` (seconds since the start), or null: [{ from, to, count, perPeriod, used }].
function windowAt(target, now) {
  return target.windows.find((w) => now >= w.from && (w.to === null || now < w.to)) || null;
}

// Mines each target up to its count this round, what its episode total and its quota window still allow.
async function mineRound(bot, targets, now) {
  let mined = 0;
  for (const target of targets) {
    let want = target.total === null ? target.count : Math.min(target.count, target.total);
    const window = windowAt(target, now);
    if (window !== null) want = Math.min(want, window.perPeriod ? window.count : window.count - window.used);
    if (want <= 0 || bot.findBlock({ matching: target.block, maxDistance: __SEARCH_RADIUS__ }) === null) continue;
    const got = (await mineBlock(bot, target.block, want)) || 0;
    if (target.total !== null) target.total -= got;
    if (window !== null && !window.perPeriod) window.used += got;
    mined += got;
  }
  return mined;
}

// Takes [{ chest, item, count }] from chests (what a clause says it takes), or returns [{ chest, item }] to them.
async function takeOrReturn(bot, moves, back) {
  for (const { chest, item, count } of moves) {
    const at = new Vec3(chest[0], chest[1], chest[2]);
    const held = bot.inventory.items().filter((s) => s.name === item).reduce((n, s) => n + s.count, 0);
    if (back && held > 0) await depositItemIntoChest(bot, at, { [item]: held });
    if (!back) await getItemFromChest(bot, at, { [item]: count });
  }
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
  await takeOrReturn(bot, __WITHDRAWALS__, false);
  await takeFirstAvailable(bot, __TOOLS__);
  const centre = __REGION_CENTRE__; // [x, y, z] of the region it may mine in, or null
  for (let round = 0; ; round += 1) {
    await craftOnce(bot, crafts);
    await depositAll(bot, __DEPOSITS__); // what it holds already (materials others wait for)
    if (round === 0 && __SIGNAL__ && !__SIGNAL_LATE__) await sendSignal(bot, 'done');
    if (centre !== null) await moveTo(bot, new Vec3(centre[0], centre[1], centre[2]), 1);
    const mined = await mineRound(bot, targets, bot.time.age / 20 - start);
    await craftOnce(bot, crafts);
    await depositAll(bot, __DEPOSITS__);
    if (round === 0 && __SIGNAL__ && __SIGNAL_LATE__) await sendSignal(bot, 'done');
    if (round === 0) await takeOrReturn(bot, __RETURNS__, true);
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
