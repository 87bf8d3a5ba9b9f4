// expect: budget compute_budget_seconds
// One builtin call over an array-like of length 2**53-1: V8's indexOf never returns to JS.
async function main(bot) {
  return Array.prototype.indexOf.call({ length: 2 ** 53 - 1 }, 1);
}
