// Megabyte-long names and tasks, retried forever, the errors caught (they would reappear in feedback and the log).
async function main(bot) {
  const long = 'n'.repeat(1e6 - 100);
  for (;;) {
    try { await sendSignal(bot, long); } catch (err) { log(err.message); }
  }
}
