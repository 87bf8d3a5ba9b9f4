// ArrayBuffers filled between primitive calls.
async function main(bot) {
  const keep = [];
  for (let i = 0; i < 30; i++) { keep.push(new Uint8Array(5e7).fill(1)); await bot.waitForTicks(1); }
}
