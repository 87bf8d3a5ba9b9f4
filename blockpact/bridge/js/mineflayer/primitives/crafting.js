'use strict'
// craftItem (mineflayer's recipes and bot.craft) and smeltItem (a furnace window; the embedded
// flying-squid server has no furnaces, which smeltItem reports instead of hanging).
const { goals } = require('mineflayer-pathfinder')
const { checkCancelled, goto, countOf, sleep } = require('./common')
const { bounded, boundSeconds } = require('./bounds')
const { formatPosition } = require('../feedback')

const uses = {
  craftItem: {
    feedback: ['I can make', 'I cannot make {name} because', 'I cannot make {name}: it has no', 'Craft without', 'I did the recipe', 'I cannot do the recipe'],
    errors: ['No item named', 'count for craftItem']
  },
  smeltItem: {
    feedback: ['No {itemName} to smelt', 'No {fuelName} as fuel', 'Smelted', 'Failed to smelt'],
    errors: ['No item named', 'No furnace nearby', '{itemName} is not a valid input', '{fuelName} is not a valid fuel']
  }
}

const FURNACE_OPEN_TIMEOUT_MS = 5000
const SMELT_TICKS = 12 * 20 // one item, with margin over the furnace's 10 s

function nearest (ctx, blockName) {
  const { bot, settings } = ctx
  return bot.findBlock({ matching: bot.registry.blocksByName[blockName].id, maxDistance: settings.searchRadius })
}

// "2 more oak_planks, a crafting_table nearby" for the recipe the bot is closest to doing.
function missingFor (bot, recipes, count, needsTable) {
  let best = null
  for (const recipe of recipes) {
    const missing = []
    for (const { id, count: delta } of recipe.delta) {
      if (delta >= 0) continue
      const item = bot.registry.items[id]
      const have = countOf(bot, item.name)
      if (have < -delta * count) missing.push(`${-delta * count - have} more ${item.name}`)
    }
    if (!best || missing.length < best.length) best = missing
  }
  return [...(best ?? []), ...(needsTable ? ['a crafting_table nearby'] : [])].join(', ')
}

async function craftItem (ctx, name, count = 1) {
  const { bot } = ctx
  const item = typeof name === 'string' ? bot.registry.itemsByName[name] : undefined
  if (!item) throw ctx.fail('No item named', { name })
  if (!Number.isInteger(count) || count < 1) throw ctx.fail('count for craftItem')
  let table = nearest(ctx, 'crafting_table')
  if (!table) {
    ctx.say('Craft without')
  } else {
    try {
      await goto(ctx, new goals.GoalLookAtBlock(table.position, bot.world))
    } catch (err) {
      checkCancelled(ctx)
      table = null
    }
  }
  const anyRecipe = bot.recipesAll(item.id, null, true)
  if (anyRecipe.length === 0) {
    ctx.say('I cannot make {name}: it has no', { name })
    return 0
  }
  const recipe = bot.recipesFor(item.id, null, count, table)[0]
  if (!recipe) {
    const withoutTable = bot.recipesAll(item.id, null, null)
    const needsTable = !table && withoutTable.length === 0
    ctx.say('I cannot make {name} because', { name, missing: missingFor(bot, needsTable ? anyRecipe : bot.recipesAll(item.id, null, table), count, needsTable) })
    return 0
  }
  ctx.say('I can make', { name })
  const before = countOf(bot, name)
  try {
    bot.blockpact.crafting = true // what the inventory gains and loses meanwhile is crafting
    // Past its bound (window clicks, one round per recipe) the open table window is closed: the recipe failed.
    const closeWindow = () => { if (bot.currentWindow) bot.closeWindow(bot.currentWindow) }
    await bounded('crafting', boundSeconds(ctx.settings, { seconds: count }), () => bot.craft(recipe, count, table ?? undefined), closeWindow)
  } catch (err) {
    checkCancelled(ctx)
    ctx.say('I cannot do the recipe', { name, count })
    return 0
  } finally {
    bot.blockpact.crafting = false
  }
  ctx.say('I did the recipe', { name, count })
  return countOf(bot, name) - before
}

async function openFurnace (ctx, block) {
  let timer
  const timeout = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(
      `this server does not support furnaces: no furnace window opened at ${formatPosition(block.position)} within ${FURNACE_OPEN_TIMEOUT_MS / 1000} s`)),
    FURNACE_OPEN_TIMEOUT_MS)
  })
  try {
    return await Promise.race([ctx.bot.openFurnace(block), timeout])
  } finally {
    clearTimeout(timer)
  }
}

async function smeltItem (ctx, itemName, fuelName, count = 1) {
  const { bot } = ctx
  for (const name of [itemName, fuelName]) {
    if (typeof name !== 'string' || !bot.registry.itemsByName[name]) throw ctx.fail('No item named', { name })
  }
  const furnaceBlock = nearest(ctx, 'furnace')
  if (!furnaceBlock) throw ctx.fail('No furnace nearby')
  await goto(ctx, new goals.GoalLookAtBlock(furnaceBlock.position, bot.world))
  const furnace = await openFurnace(ctx, furnaceBlock)
  const input = bot.registry.itemsByName[itemName]
  const fuel = bot.registry.itemsByName[fuelName]
  let smelted = 0
  try {
    for (let i = 0; i < count; i++) {
      checkCancelled(ctx)
      if (countOf(bot, itemName) < 1) { ctx.say('No {itemName} to smelt', { itemName }); break }
      if (furnace.fuelSeconds < 15 && furnace.fuelItem()?.name !== fuelName) {
        if (countOf(bot, fuelName) < 1) { ctx.say('No {fuelName} as fuel', { fuelName }); break }
        await bounded('putting fuel in', boundSeconds(ctx.settings), () => furnace.putFuel(fuel.id, null, 1))
        await sleep(ctx, 1000)
        if (!furnace.fuel && furnace.fuelItem()?.name !== fuelName) throw ctx.fail('{fuelName} is not a valid fuel', { fuelName })
      }
      await bounded('putting input in', boundSeconds(ctx.settings), () => furnace.putInput(input.id, null, 1))
      await sleep(ctx, SMELT_TICKS * 50)
      if (!furnace.outputItem()) throw ctx.fail('{itemName} is not a valid input', { itemName })
      await bounded('taking the output', boundSeconds(ctx.settings), () => furnace.takeOutput())
      smelted++
    }
  } catch (err) {
    if (err.name !== 'Bounded') throw err // a furnace that stops answering: what was smelted is reported
  } finally {
    furnace.close()
  }
  if (smelted > 0) ctx.say('Smelted', { count: smelted, itemName })
  else ctx.say('Failed to smelt', { itemName })
  return smelted
}

module.exports = { uses, primitives: { craftItem, smeltItem } }
