// expect: program none, the path's failure named (No path / could not get to), or the budget
// One moveTo to a target no path reaches, not caught: it must end within the budget with its cause, not spin.
async function main(bot) {
  await moveTo(bot, new Vec3(1e6, 64, -1e6), 0);
  return 'arrived';
}
