// expect: budget compute_budget_seconds
// A sort whose comparator queries the host on every comparison.
async function main(bot) {
  const a = Array.from({ length: 1e6 }, (_, i) => i);
  for (;;) a.sort((x, y) => (bot.blockAt(bot.entity.position) ? 1 : -1) * (x - y));
}
