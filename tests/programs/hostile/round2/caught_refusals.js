// expect: limit maxArgumentBytes
// Breaks the argument-size limit 100 times, catching every refusal, then returns as if all was well.
async function main(bot) {
  const s = 'x'.repeat(2e6);
  for (let i = 0; i < 100; i++) {
    try { await moveTo(bot, s, 1); } catch (e) {}
  }
  return 'fine';
}
