'use strict'
// Crafting recipes from minecraft-data (the same data mineflayer's bot.craft uses),
// matched against a crafting grid held by the server.

function ingredientId (ingredient) {
  if (ingredient === null || ingredient === undefined) return null
  const id = typeof ingredient === 'number' ? ingredient : ingredient.id
  return id >= 0 ? id : null
}

// Drops empty outer rows and columns so a shape matches wherever it sits in the grid.
function trim (rows) {
  const width = Math.max(...rows.map(r => r.length))
  const grid = rows.map(r => Array.from({ length: width }, (_, x) => r[x] ?? null))
  const used = (cells) => cells.some(id => id !== null)
  const ys = grid.map((row, y) => used(row) ? y : null).filter(y => y !== null)
  const xs = grid[0].map((_, x) => used(grid.map(row => row[x])) ? x : null).filter(x => x !== null)
  if (ys.length === 0) return []
  return grid.slice(ys[0], ys[ys.length - 1] + 1).map(row => row.slice(xs[0], xs[xs.length - 1] + 1))
}

function sameShape (a, b) {
  return a.length === b.length && a.every((row, y) => row.length === b[y].length && row.every((id, x) => id === b[y][x]))
}

function keyOf (ids) {
  return ids.filter(id => id !== null).sort((a, b) => a - b).join(',')
}

function crafter (registry) {
  const Item = require('prismarine-item')(registry)
  // Recipes indexed by their multiset of ingredients, so a grid only checks a few candidates.
  const byIngredients = new Map()
  for (const recipes of Object.values(registry.recipes)) {
    for (const recipe of recipes) {
      const shape = recipe.inShape ? trim(recipe.inShape.map(row => row.map(ingredientId))) : null
      const ids = shape ? shape.flat() : recipe.ingredients.map(ingredientId)
      const key = keyOf(ids)
      if (!byIngredients.has(key)) byIngredients.set(key, [])
      byIngredients.get(key).push({ shape, result: recipe.result })
    }
  }

  // The item a width×width grid (window slots 1..width²) crafts, or null.
  function result (slots, width) {
    const rows = Array.from({ length: width }, (_, y) =>
      Array.from({ length: width }, (_, x) => slots[1 + x + width * y]?.type ?? null))
    const grid = trim(rows)
    const candidates = byIngredients.get(keyOf(grid.flat())) ?? []
    const mirrored = grid.map(row => [...row].reverse())
    const match = candidates.find(({ shape }) => !shape || sameShape(shape, grid) || sameShape(shape, mirrored))
    return match ? new Item(match.result.id, match.result.count) : null
  }

  return { result }
}

module.exports = { crafter }
