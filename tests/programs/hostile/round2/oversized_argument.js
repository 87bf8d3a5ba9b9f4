// expect: limit maxArgumentBytes
// One 600 KB argument to a primitive (past 64 KB it once broke the bridge to the host when a second player was
// there). The call is refused in the sandbox; the program sees the refusal, logs it, goes on and ends.
async function main(bot) {
  let seen = 'not refused';
  try { await moveTo(bot, 'x'.repeat(600000), 1); } catch (err) { seen = err.message; }
  log(seen);
  await bot.waitForTicks(2);
  return seen;
}
