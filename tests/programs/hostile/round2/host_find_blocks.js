// expect: budget compute_budget_seconds
// Queries that make the host search the whole world, in a loop: the host's time must be charged.
async function main(bot) {
  const ids = Array.from({ length: 1000 }, (_, i) => i);
  for (;;) bot.findBlocks({ matching: ids, maxDistance: 1e6, count: 1e6 });
}
