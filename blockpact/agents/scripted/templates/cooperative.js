// Cooperative (the last function is the program): carries out the plan compiled from the contract, a list of
// steps with dependencies. Each turn it does the first step in plan order whose dependencies have passed and whose
// time has come; when only waits are left it listens for signals and looks into the chests it waits on. Signals are
// remembered, so those it waits for may come in any order. A step that fails is tried again later (the chest it
// fetches from may not hold the deposit yet, a shared tool may be out); after a few failures it is given up, with
// the steps that need it, and the bot says so.
function heldCount(bot, item) {
  return bot.inventory.items().filter((s) => s.name === item).reduce((n, s) => n + s.count, 0);
}

function vec(p) {
  return new Vec3(p[0], p[1], p[2]);
}

// Most of `step.block` the quota windows still allow now, and when the tightest window next opens.
function allowance(step, now, start) {
  let allowed = step.want === null ? Infinity : step.want - step.mined;
  let opens = Infinity;
  for (const limit of step.limits) {
    const from = start + (limit.from === null ? 0 : limit.from);
    const until = limit.until === null ? Infinity : start + limit.until;
    if (now < from) continue; // not yet in force
    if (now >= until) continue;
    const windowStart = limit.period === null ? from : from + Math.floor((now - from) / limit.period) * limit.period;
    const windowEnd = limit.period === null ? until : Math.min(windowStart + limit.period, until);
    const used = step.digs.filter((t) => t >= windowStart && t < windowEnd).length;
    const left = limit.count - used;
    if (left < allowed) allowed = left;
    if (left <= 0 && windowEnd < opens) opens = windowEnd;
  }
  return { allowed, opens };
}

const COMPARE = { '<': (a, b) => a < b, '<=': (a, b) => a <= b, '>': (a, b) => a > b, '>=': (a, b) => a >= b,
  '==': (a, b) => a === b, '!=': (a, b) => a !== b };

// Whether a clause's condition ("pumpkin in patch < 6") holds now: the blocks counted in the region's box.
function guardHolds(bot, guard) {
  const p = bot.entity.position;
  const far = Math.max(...[0, 1, 2].map((i) => Math.max(Math.abs(guard.lo[i] - [p.x, p.y, p.z][i]),
    Math.abs(guard.hi[i] + 1 - [p.x, p.y, p.z][i]))));
  const cells = [0, 1, 2].reduce((n, i) => n * (guard.hi[i] - guard.lo[i] + 1), 1);
  const found = bot.findBlocks({ matching: guard.block, maxDistance: Math.ceil(far * Math.sqrt(3)) + 1, count: cells + 1 });
  const inside = found.filter((b) => {
    const c = [b.x ?? b[0], b.y ?? b[1], b.z ?? b[2]];
    return [0, 1, 2].every((i) => c[i] >= guard.lo[i] && c[i] <= guard.hi[i]);
  });
  return COMPARE[guard.op](inside.length, guard.count);
}

async function playByContract(bot) {
  const steps = __STEPS__;
  const byId = {};
  for (const s of steps) {
    Object.assign(s, { done: false, passed: false, dead: false, failures: 0, due: 0, mined: 0, digs: [] });
    byId[s.id] = s;
  }
  const heard = new Set();
  const start = bot.time.age / 20;
  const now = () => bot.time.age / 20;
  const lastLook = {};
  // A signal with a deadline is sent by then (`by`, already less a margin) even if what it waits on is not done.
  const deadline = (s) => (s.op === 'signal' && s.by !== null && s.by !== undefined ? start + s.by : Infinity);
  const depsPassed = (s) => now() >= deadline(s) || s.after.every((id) => byId[id].passed);
  const blockedForGood = (s) => s.after.some((id) => byId[id].dead || blockedForGood(byId[id]));
  const isWait = (s) => s.op === 'wait_signal' || s.op === 'wait_items';

  function giveUp(step, why) {
    step.dead = true;
    bot.chat(`Giving up: ${step.what} (${why})`);
  }

  function fail(step, why) {
    step.failures += 1;
    if (step.failures >= __MAX_FAILURES__) giveUp(step, why);
    else step.due = now() + __RETRY_SECONDS__;
  }

  // Off the region a renewed block grows in, once its round is done: a player standing on a cell keeps it from growing.
  async function stepAside(step) {
    if (step.rest === null) return;
    const p = bot.entity.position;
    if (Math.abs(p.x - step.rest[0]) + Math.abs(p.z - step.rest[2]) > 1) await moveTo(bot, vec(step.rest), 1);
  }

  async function mine(step) {
    if (step.harvest_with.length > 0 && !step.harvest_with.some((tool) => heldCount(bot, tool) > 0)) {
      step.passed = true; // the tool it took or was lent does not harvest this block
      step.done = true;
      return;
    }
    if (step.guards.some((guard) => guardHolds(bot, guard))) {
      step.passed = true; // a clause forbids it while the condition holds: look again later
      step.due = now() + __IDLE_SECONDS__;
      if (step.renew) await stepAside(step);
      return;
    }
    const { allowed, opens } = allowance(step, now(), start);
    if (allowed <= 0) {
      step.passed = true;
      if (step.want !== null && step.mined >= step.want && !step.renew) step.done = true;
      else if (opens < Infinity) step.due = opens + __REGROW_DELAY__;
      else step.done = true; // a total quota used up
      if (step.renew) await stepAside(step);
      return;
    }
    if (bot.findBlock({ matching: step.block, maxDistance: __SEARCH_RADIUS__ }) === null) {
      step.passed = true;
      if (step.renew) {
        step.due = now() + __IDLE_SECONDS__;
        await stepAside(step);
      } else step.done = true;
      return;
    }
    if (step.centre !== null && bot.entity.position.distanceTo(vec(step.centre)) > 4) {
      await moveTo(bot, vec(step.centre), 1); // the region it may mine in: the nearest blocks from there
    }
    const got = (await mineBlock(bot, step.block, 1)) || 0;
    if (got > 0) {
      step.mined += got;
      step.digs.push(now());
      step.failures = 0;
      for (const s of steps) if (s.op === 'deposit' && s.again) s.done = false; // deposit what it mined
    } else if (step.renew) {
      step.passed = true; // taken by another player before it got there: try again when more has grown
      step.due = now() + __IDLE_SECONDS__;
    } else {
      fail(step, `could not mine ${step.block}`);
    }
  }

  async function run(step) {
    switch (step.op) {
      case 'take': {
        const lacking = step.count - heldCount(bot, step.item);
        if (lacking > 0) await getItemFromChest(bot, vec(step.chest), { [step.item]: lacking });
        if (heldCount(bot, step.item) >= step.count) step.done = true;
        else fail(step, `no ${step.item} in the chest at ${step.chest}`);
        return;
      }
      case 'take_tool': {
        if (step.options.some(({ item }) => heldCount(bot, item) > 0)) {
          step.done = true;
          return;
        }
        for (const { chest, item } of step.options) {
          await getItemFromChest(bot, vec(chest), { [item]: 1 });
          if (heldCount(bot, item) > 0) {
            step.done = true;
            return;
          }
        }
        fail(step, 'none of the tools is in its chest');
        return;
      }
      case 'craft': {
        const made = (await craftItem(bot, step.item, step.count)) || 0;
        if (made > 0) step.done = true;
        else fail(step, `could not craft ${step.item}`);
        return;
      }
      case 'smelt': {
        const made = (await smeltItem(bot, step.item, step.fuel, step.count)) || 0;
        if (made >= step.count) step.done = true;
        else fail(step, `could not smelt ${step.item}`);
        return;
      }
      case 'place': {
        for (const p of step.positions) {
          if (await placeItem(bot, step.item, vec(p))) {
            step.done = true;
            return;
          }
        }
        fail(step, `no free cell to place the ${step.item}`);
        return;
      }
      case 'mine':
        await mine(step);
        return;
      case 'deposit': {
        const held = heldCount(bot, step.item);
        const wanted = step.count === null ? held : step.count - (step.put || 0);
        const early = step.by !== null && step.by !== undefined && now() < start + step.by;
        if (early && held < wanted) {
          step.due = now() + __RETRY_SECONDS__; // a deadline ahead: wait until it holds them all, or the deadline nears
          return;
        }
        const amount = step.count === null ? held : Math.min(wanted, held);
        if (amount > 0) {
          const put = await depositItemIntoChest(bot, vec(step.chest), { [step.item]: amount });
          step.put = (step.put || 0) + ((put && put[step.item]) || 0);
        }
        step.done = step.count === null || (step.put || 0) >= step.count || step.again;
        if (!step.done) fail(step, `holds too few ${step.item}`);
        return;
      }
      case 'signal':
        await sendSignal(bot, step.task);
        step.done = true;
        return;
      default:
        giveUp(step, `unknown step ${step.op}`);
    }
  }

  // A wait for deposits whose patience has run out is given up after four looks in a row that find no new item
  // in the chest: nobody is still filling it, so the steps that need it fail for good and the fallback runs.
  function noNewItems(w, inside) {
    const seen = Object.entries(w.items).reduce((sum, [item, n]) => sum + Math.min(inside[item] || 0, n), 0);
    if (now() >= start + w.patience && seen <= (w.seen ?? Infinity)) {
      w.failures += 1;
      if (w.failures >= __MAX_FAILURES__) giveUp(w, `no new item in the chest in ${w.failures} looks`);
    } else w.failures = 0;
    w.seen = seen;
  }

  // Look into the chests waited on (at most every few seconds each), and listen for signals, remembering every
  // sender: until the next step is due, or the patience of a wait runs out, when no chest is waited on.
  async function listen(waits, live) {
    for (const w of waits) {
      if (w.op === 'wait_items' && (lastLook[w.id] === undefined || now() - lastLook[w.id] >= __LOOK_SECONDS__)) {
        lastLook[w.id] = now();
        const inside = (await checkItemInsideChest(bot, vec(w.chest))) || {};
        if (Object.entries(w.items).every(([item, n]) => (inside[item] || 0) >= n)) w.done = true;
        else if (w.gives_up) noNewItems(w, inside);
      }
    }
    const open = waits.filter((w) => !w.done);
    if (open.length === 0) return;
    const t = now();
    let until = start + __EPISODE_SECONDS__;
    for (const s of live) if (s.due > t) until = Math.min(until, s.due);
    for (const s of live) if (deadline(s) > t) until = Math.min(until, deadline(s));
    for (const w of open) if (!w.blocking && t < start + w.patience) until = Math.min(until, start + w.patience);
    if (open.some((w) => w.op === 'wait_items')) until = Math.min(until, t + __LOOK_SECONDS__);
    const seconds = Math.max(1, Math.ceil(until - t));
    if (!open.some((w) => w.op === 'wait_signal')) {
      await bot.waitForTicks(seconds * 20);
      return;
    }
    const sender = await waitSignal(bot, open.map((w) => w.what).join('; '), seconds);
    if (sender !== null) heard.add(sender);
  }

  for (;;) {
    for (const s of steps) {
      if (s.op === 'wait_signal' && !s.done && heard.has(s.from)) s.done = true;
      if (s.done || (s.op === 'mine' && s.passed)) s.passed = true;
    }
    const t = now();
    const failed = steps.some((s) => s.dead);
    const live = steps.filter((s) => !s.done && !s.dead && (deadline(s) < Infinity || !blockedForGood(s)) && (!s.fallback || failed));
    if (live.length === 0) return;
    const ready = live.filter((s) => depsPassed(s) && s.due <= t);
    const waits = ready.filter(isWait);
    const work = ready.filter((s) => !isWait(s));
    const urgent = work.find((s) => !s.filler);
    const patient = waits.length > 0 && waits.some((w) => w.blocking || t - start < w.patience);
    const step = urgent || (patient ? undefined : work[0]);
    if (step !== undefined) {
      await run(step);
    } else if (waits.length > 0) {
      await listen(waits, live);
    } else {
      const next = Math.min(...live.filter((s) => s.due > t).map((s) => s.due), ...live.map(deadline).filter((d) => d > t));
      if (!(next < Infinity)) return; // nothing can run any more
      await bot.waitForTicks(Math.max(1, Math.ceil((next - t) * 20)));
    }
  }
}
