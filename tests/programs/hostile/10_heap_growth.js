// Unbounded heap growth, awaiting a primitive between steps.
async function main(bot) {
  const keep = [];
  for (;;) { keep.push(new Array(1e6).fill(1.5)); await bot.waitForTicks(1); }
}
