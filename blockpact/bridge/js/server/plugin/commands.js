'use strict'
// Operator commands flying-squid lacks (/fill, /clear, /gamerule, /blockpact, and the forms of vanilla's
// /data and /item that fill chests on servers without this plugin) or gets wrong: its
// /give overfills stacks, /setblock crashes the server on an unknown block, /tp is player-only.
// Every command answers in chat (or into ctx.output for the control channel). What a command
// changes is journaled under ctx.cause (the control channel's), else 'command'.
const { Vec3 } = require('vec3')
const { UserError } = require('flying-squid')

function registerCommands (serv, api, tools) {
  const { region } = api
  const gameRules = gameRuleTable(serv)

  function reply (ctx, text) {
    if (ctx.output) ctx.output.push(text)
    else if (ctx.player) ctx.player.chat(text)
    else serv.info(text)
  }

  function add (spec) {
    serv.commands.add({
      ...spec,
      op: true,
      async action (args, ctx) {
        try {
          return await spec.run(args.trim().split(/\s+/).filter(Boolean), ctx)
        } catch (err) {
          throw err instanceof UserError ? err : new UserError(err.message)
        }
      }
    })
  }

  // Three coordinates, "~" relative to the player issuing the command.
  function position (args, ctx) {
    if (args.length < 3) throw new UserError('expected x y z')
    const base = ctx.player?.position ?? new Vec3(0, 0, 0)
    const [x, y, z] = args.slice(0, 3).map((a, i) => serv.posFromString(a, base[['x', 'y', 'z'][i]]))
    if ([x, y, z].some(Number.isNaN)) throw new UserError(`bad coordinates '${args.slice(0, 3).join(' ')}'`)
    return new Vec3(x, y, z)
  }

  function players (selector, ctx) {
    const found = selector === undefined ? [ctx.player].filter(Boolean) : serv.getPlayers(selector, ctx.player)
    if (found.length === 0) throw new UserError(`no player matches '${selector ?? '@s'}'`)
    return found
  }

  const worldOf = (ctx) => ctx.player?.world ?? serv.overworld
  const originOf = (ctx) => ({ agent: ctx.player?.username ?? null, cause: ctx.cause ?? 'command' })

  add({
    base: 'fill',
    info: 'fill a box with a block',
    usage: '/fill <x1> <y1> <z1> <x2> <y2> <z2> <block> [replace [<filter>]|keep]',
    async run (args, ctx) {
      if (args.length < 7) throw new UserError('Usage: ' + this.usage)
      const stateId = region.parseBlockState(args[6])
      const options = { keep: args[7] === 'keep', filter: args[7] === 'replace' ? args[8] ?? null : null, origin: originOf(ctx) }
      const changed = await region.fill(worldOf(ctx), position(args, ctx), position(args.slice(3), ctx), stateId, options)
      reply(ctx, `Successfully filled ${changed} block(s)`)
    }
  })

  add({
    base: 'setblock',
    info: 'set a block at a position',
    usage: '/setblock <x> <y> <z> <block> [replace|keep]',
    async run (args, ctx) {
      if (args.length < 4) throw new UserError('Usage: ' + this.usage)
      const pos = position(args, ctx).floored()
      const changed = await region.fill(worldOf(ctx), pos, pos, region.parseBlockState(args[3]), { keep: args[4] === 'keep', origin: originOf(ctx) })
      reply(ctx, changed ? `Changed the block at ${pos.x}, ${pos.y}, ${pos.z}` : 'Could not set the block')
    }
  })

  add({
    base: 'give',
    info: 'give items to players',
    usage: '/give <player> <item> [count]',
    async run ([selector, name, countText = '1'], ctx) {
      if (!name) throw new UserError('Usage: ' + this.usage)
      const count = parseCount(countText)
      const item = tools.make(name, count)
      for (const player of players(selector, ctx)) {
        const left = tools.addToPlayer(player, item)
        if (left > 0) api.drop(player, item, left)
        api.journal.syncInventory(player, ctx.cause ?? 'give')
      }
      reply(ctx, `Gave ${count} [${item.name}] to ${selector}`)
    }
  })

  add({
    base: 'clear',
    info: 'remove items from player inventories',
    usage: '/clear [player] [item] [maxCount]',
    async run ([selector, name, maxText], ctx) {
      const type = name && name !== '*' ? tools.itemType(name).id : null
      const max = maxText === undefined ? Infinity : parseCount(maxText, 0)
      for (const player of players(selector, ctx)) {
        if (max === 0) {
          const found = player.inventory.slots.slice(5).reduce((n, it) => n + (it && (type === null || it.type === type) ? it.count : 0), 0)
          reply(ctx, `Found ${found} matching item(s) on player ${player.username}`)
          continue
        }
        const removed = tools.removeFromPlayer(player, type, max)
        api.journal.syncInventory(player, ctx.cause ?? 'clear')
        reply(ctx, `Removed ${removed} item(s) from player ${player.username}`)
      }
    }
  })

  add({
    base: 'teleport',
    aliases: ['tp'],
    info: 'teleport players',
    usage: '/tp [player] <x> <y> <z> | /tp [player] <destination player>',
    async run (args, ctx) {
      const targets = args.length === 1 || args.length === 3 ? players(undefined, ctx) : players(args[0], ctx)
      const rest = args.length === 1 || args.length === 3 ? args : args.slice(1)
      for (const player of targets) {
        let to
        if (rest.length === 1) {
          to = players(rest[0], ctx)[0].position.clone()
        } else {
          to = position(rest, { player })
          // integer x/z mean the block centre, as in vanilla
          if (!rest[0].includes('.')) to.x += 0.5
          if (!rest[2].includes('.')) to.z += 0.5
        }
        player.blockpactTeleported = true
        await player.teleport(to)
        reply(ctx, `Teleported ${player.username} to ${to.x}, ${to.y}, ${to.z}`)
      }
    }
  })

  add({
    base: 'gamerule',
    info: 'read or set a game rule',
    usage: '/gamerule <rule> [true|false]',
    async run ([name, value], ctx) {
      const rule = gameRules[name]
      if (!rule) throw new UserError(`the embedded server does not support game rule '${name}' (supported: ${Object.keys(gameRules).join(', ')})`)
      if (value === undefined) return reply(ctx, `Gamerule ${name} is currently set to: ${rule.get()}`)
      if (value !== 'true' && value !== 'false') throw new UserError(`game rule ${name} takes true or false, got '${value}'`)
      rule.set(value === 'true')
      reply(ctx, `Gamerule ${name} is now set to: ${value}`)
    }
  })

  add({
    base: 'data',
    info: 'empty a chest (the one form of vanilla /data the world compiler uses)',
    usage: '/data merge block <x> <y> <z> {Items:[]}',
    async run (args, ctx) {
      if (args[0] !== 'merge' || args[1] !== 'block' || args.slice(5).join('') !== '{Items:[]}') {
        throw new UserError(`the embedded server supports only ${this.usage}`)
      }
      const pos = position(args.slice(2), ctx).floored()
      await api.setChest(pos, [])
      reply(ctx, `Modified block data of ${pos.x}, ${pos.y}, ${pos.z}`)
    }
  })

  add({
    base: 'item',
    info: "put items in a chest's slot (the one form of vanilla /item the world compiler uses)",
    usage: '/item replace block <x> <y> <z> container.<slot> with <item> [count]',
    async run (args, ctx) {
      const slot = /^container\.(\d+)$/.exec(args[5] ?? '')
      if (args[0] !== 'replace' || args[1] !== 'block' || !slot || args[6] !== 'with' || !args[7]) {
        throw new UserError(`the embedded server supports only ${this.usage}`)
      }
      const pos = position(args.slice(2), ctx).floored()
      const name = args[7].replace(/^minecraft:/, '')
      const items = (await api.getChest(pos)).filter(item => item.slot !== Number(slot[1]))
        .map(({ slot, name, count }) => ({ slot, name, count }))
      items.push({ slot: Number(slot[1]), name, count: parseCount(args[8] ?? '1') })
      await api.setChest(pos, items)
      reply(ctx, `Replaced a slot at ${pos.x}, ${pos.y}, ${pos.z} with [${name}]`)
    }
  })

  add({
    base: 'blockpact',
    info: 'blockpact world queries',
    usage: '/blockpact count <x1> <y1> <z1> <x2> <y2> <z2> [block] | /blockpact chest <x> <y> <z>',
    async run ([sub, ...args], ctx) {
      if (sub === 'count') {
        const counts = await region.countBlocks(worldOf(ctx), position(args, ctx), position(args.slice(3), ctx), args[6] ?? null)
        return reply(ctx, JSON.stringify(counts))
      }
      if (sub === 'chest') return reply(ctx, JSON.stringify(await api.getChest(position(args, ctx))))
      throw new UserError('Usage: ' + this.usage)
    }
  })
}

// The game rules scenarios need. flying-squid never spawns mobs by itself and never drops a dead
// player's items, so those two rules can only be set to what the server does anyway.
function gameRuleTable (serv) {
  const fixed = (name, value, why) => ({
    get: () => value,
    set (wanted) { if (wanted !== value) throw new UserError(`the embedded server cannot set ${name} to ${wanted}: ${why}`) }
  })
  return {
    doDaylightCycle: { get: () => serv.doDaylightCycle, set (on) { serv.doDaylightCycle = on } },
    doMobSpawning: fixed('doMobSpawning', false, 'flying-squid has no natural mob spawning'),
    keepInventory: fixed('keepInventory', true, 'flying-squid keeps inventories on death')
  }
}

// Commands anyone may run: they only print. flying-squid leaves many others open to every player (/kill @a killed
// every player, /summon, /time, /gamemode, ...); players are given no command by a world, so every other one,
// flying-squid's and ours, needs operator rights. Run after every command is registered.
const OPEN_COMMANDS = new Set(['help', 'ping', 'version'])

function operatorsOnly (serv) {
  for (const command of new Set(Object.values(serv.commands.uniqueHash))) {
    if (command.params.base && !OPEN_COMMANDS.has(command.params.base)) command.setOp(true)
  }
}

function parseCount (text, min = 1) {
  const count = Number(text)
  if (!Number.isInteger(count) || count < min) throw new UserError(`bad count '${text}'`)
  return count
}

module.exports = { registerCommands, operatorsOnly }
