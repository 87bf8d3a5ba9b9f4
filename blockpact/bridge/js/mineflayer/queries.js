'use strict'
// Answers the sandbox's synchronous bot queries (bot.entity.position, bot.findBlock(...)) from the
// real bot, as plain data in the shapes primitives.toml documents.

function blockIds (bot, matching) {
  const list = Array.isArray(matching) ? matching : [matching]
  return list.map(m => {
    if (typeof m === 'number') return m
    const block = bot.registry.blocksByName[m]
    if (!block) throw new Error(`no block named ${JSON.stringify(m)}`)
    return block.id
  })
}

const describeBlock = (block) => block ? { name: block.name, position: block.position } : null
const describeItem = (item) => item ? { name: item.name, count: item.count } : null

function findOptions (bot, options = {}) {
  if (options.matching === undefined) throw new Error('findBlock needs { matching: name or id }')
  return { matching: blockIds(bot, options.matching), maxDistance: options.maxDistance ?? 16, count: options.count ?? 1 }
}

const answers = {
  username: (bot) => bot.username,
  'entity.position': (bot) => bot.entity.position,
  health: (bot) => bot.health,
  food: (bot) => bot.food,
  heldItem: (bot) => describeItem(bot.heldItem),
  time: (bot) => ({ age: Number(bot.time.age), timeOfDay: bot.time.timeOfDay, day: bot.time.day }),
  players: (bot) => Object.fromEntries(Object.values(bot.players).map(p =>
    [p.username, { username: p.username, entity: p.entity ? { position: p.entity.position } : null }])),
  'inventory.items': (bot) => bot.inventory.items().map(describeItem),
  blockAt: (bot, [position]) => describeBlock(bot.blockAt(position)),
  findBlock: (bot, [options]) => describeBlock(bot.findBlock(findOptions(bot, options))),
  findBlocks: (bot, [options]) => bot.findBlocks(findOptions(bot, options))
}

function answerQuery (bot, name, args) {
  const answer = answers[name]
  if (!answer) throw new Error(`unknown query: ${name}`)
  return answer(bot, args)
}

module.exports = { answerQuery, queryNames: Object.keys(answers) }
