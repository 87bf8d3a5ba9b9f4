// expect: budget compute_budget_seconds, or limit idleTimeoutMs
// Returns at once, leaving wedging builtins queued on a pending primitive and on promise chains that run out
// after the return: they must be charged here, not to the next program.
async function main(bot) {
  const wedge = () => Array.prototype.indexOf.call({ length: 2 ** 53 - 1 }, 1);
  bot.waitForTicks(1).then(wedge);
  let chain = Promise.resolve();
  for (let i = 0; i < 20; i++) chain = chain.then(() => null);
  chain.then(wedge);
  return 'done';
}
