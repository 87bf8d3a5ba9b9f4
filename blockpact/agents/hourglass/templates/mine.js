// Mine until __COUNT__ more __YIELDS__ are held; fail when no more __BLOCK__ can be mined.
async function mineStep(bot) {
  const target = held(bot, __YIELDS__) + __COUNT__;
  while (held(bot, __YIELDS__) < target) {
    const got = await mineBlock(bot, __BLOCK__, target - held(bot, __YIELDS__));
    if (!got) throw new Error(`no more ${__BLOCK__} to mine: ${__COUNT__ - (target - held(bot, __YIELDS__))} of ${__COUNT__} mined`);
  }
}
