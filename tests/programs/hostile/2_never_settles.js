// Awaits a promise nothing can ever settle: no primitive pending, no timer.
async function main(bot) {
  await waitSignal(bot, 'nobody', 1);
  await new Promise(() => {});
}
