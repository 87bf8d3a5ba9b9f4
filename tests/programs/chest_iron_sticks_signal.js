// Parity program (simulator and mineflayer run the same source on world tests/worlds/bridge_parity.toml).
// Gizmo takes the pickaxe from the chest, mines 3 iron ore, deposits the raw iron, crafts sticks from
// planks and signals; Glitch waits for the signal, then takes one raw iron from the chest.
const CHEST = new Vec3(4, 64, 4);

async function gizmoWork(bot) {
  await getItemFromChest(bot, CHEST, { stone_pickaxe: 1 });
  const mined = await mineBlock(bot, 'iron_ore', 3);
  const raw = bot.inventory.items().filter((item) => item.name === 'raw_iron')
    .reduce((sum, item) => sum + item.count, 0);
  log(`mined ${mined}, holding ${raw} raw_iron`);
  await depositItemIntoChest(bot, CHEST, { raw_iron: raw });
  await craftItem(bot, 'stick', 1);
  await sendSignal(bot, 'iron deposited');
}

async function glitchWait(bot) {
  const sender = await waitSignal(bot, 'iron deposited', 120);
  bot.chat(`signal from ${sender}`);
  await getItemFromChest(bot, CHEST, { raw_iron: 1 });
}

async function chestIronSticksSignal(bot) {
  if (bot.username === 'Gizmo') await gizmoWork(bot);
  else await glitchWait(bot);
}
