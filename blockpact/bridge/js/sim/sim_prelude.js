// Sandbox prelude for the simulator body (a function body receiving `host`; returns extra globals).
// exploreUntil takes a callback, and functions cannot cross to Python, so the loop runs here:
// short simulated walks (host call "exploreStep") with the callback checked after each.
async function exploreUntil(bot, direction, maxTime = 60, callback = () => false) {
  if (typeof maxTime !== 'number') throw new Error('maxTime must be a number');
  if (typeof callback !== 'function') throw new Error('callback must be a function');
  let found = callback();
  let elapsed = 0;
  while (!found && elapsed < maxTime) {
    const step = await host.call('exploreStep', [direction, maxTime - elapsed]);
    elapsed += step.elapsed;
    found = callback();
    if (!found && step.blocked) return null;
  }
  if (found) {
    bot.chat('Explore success.');
    return found;
  }
  bot.chat('Max exploration time reached');
  return null;
}
return { exploreUntil };
