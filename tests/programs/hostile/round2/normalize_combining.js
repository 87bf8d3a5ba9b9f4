// expect: budget compute_budget_seconds
// Normalising 400,000 combining marks in a loop: each call is long native work.
async function main(bot) {
  const s = '\u0301'.repeat(4e5);
  for (;;) s.normalize('NFD');
}
