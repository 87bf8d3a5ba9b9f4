'use strict'
// Test helper (tests/test_mineflayer_body.py): gives a LiveWorld's bot a physicsTick listener that throws once,
// on the first tick while the bot runs a program, as mineflayer-pathfinder's monitorMovement throws from its A*
// on an undefined position.
function throwWhileRunning (world, name) {
  const { bot, runner } = world.bodies.get(name)
  const listener = () => {
    if (runner.activeRunId === null) return
    bot.off('physicsTick', listener)
    const position = undefined
    return position.y
  }
  bot.on('physicsTick', listener)
}

module.exports = { throwWhileRunning }
