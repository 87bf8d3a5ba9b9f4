// Place a crafting table on free ground next to the agent.
async function placeTableStep(bot) {
  const here = bot.entity.position;
  const x = Math.floor(here.x), y = Math.floor(here.y), z = Math.floor(here.z);
  for (const [dx, dz] of __OFFSETS__) {
    const spot = new Vec3(x + dx, y, z + dz);
    const block = bot.blockAt(spot);
    const ground = bot.blockAt(new Vec3(x + dx, y - 1, z + dz));
    if (block && block.name === 'air' && ground && ground.name !== 'air') {
      if (await placeItem(bot, 'crafting_table', spot)) return;
    }
  }
  throw new Error('found no free ground next to me for the crafting table');
}
