// expect: budget compute_budget_seconds
// Returns at once, leaving a wedging builtin queued on a pending promise: it must be charged here, not to the next program.
async function main(bot) {
  bot.waitForTicks(1).then(() => Array.prototype.indexOf.call({ length: 2 ** 53 - 1 }, 1));
  return 'done';
}
