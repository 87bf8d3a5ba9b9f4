// expect: budget compute_budget_seconds, or the path's failure named
// moveTo targets no path reaches (far off the map, under the floor, high in the air), retried without end and
// each failure caught: the host's path searches are its work, charged to the program, which ends within its budget.
async function main(bot) {
  const targets = [new Vec3(1e6, 64, 1e6), new Vec3(5, 40, 5), new Vec3(5, 200, 5)];
  for (;;) {
    for (const target of targets) {
      try { await moveTo(bot, target, 0); } catch (err) {}
    }
  }
}
