// Craft __ITEM__ __TIMES__ time(s).
async function craftStep(bot) {
  const made = await craftItem(bot, __ITEM__, __TIMES__);
  if (!made) throw new Error(`could not craft ${__ITEM__}`);
}
