// Place __ITEM__ on the given cells, in order, passing over them again while that helps (a cell
// may need a neighbour another agent is still building); log the cells left unplaced.
async function placeStep(bot) {
  const cells = __CELLS__.map(([x, y, z]) => new Vec3(x, y, z));
  const missing = () => cells.filter((c) => { const b = bot.blockAt(c); return !b || b.name !== __ITEM__; });
  let left = missing();
  for (let pass = 0; left.length > 0 && pass < __PASSES__; pass++) {
    const before = left.length;
    for (const cell of left) {
      const block = bot.blockAt(cell);
      if (block && block.name === 'air') await placeItem(bot, __ITEM__, cell);
    }
    left = missing();
    if (left.length === before) break;
  }
  for (const cell of left) log(`unplaced ${cell.x},${cell.y},${cell.z}`);
  if (left.length > 0) throw new Error(`could not place ${left.length} of ${cells.length} ${__ITEM__}`);
}
