'use strict'
// joinGroup / leaveGroup / formGroup: reward-sharing groups whose members change during play (the simulator's
// worlds/membership.py, with the same checks and messages). The world's groups come from setGroups; each change
// is recorded in the journal (group_join, group_leave, group_form) and the judge reads who shared what from it.

const uses = {}

// name -> {members: [name], share}: the groups as they stand now.
function groupTable (groups = []) {
  return new Map(groups.map(g => [g.name, { members: [...g.members], share: g.share }]))
}

function groupName (value, primitive) {
  if (typeof value !== 'string' || value.trim() === '') throw new Error(`group for ${primitive} must be a group's name (a non-empty string)`)
  return value
}

function known (ctx, primitive, name) {
  const group = ctx.world.groups.get(name)
  if (!group) {
    const names = [...ctx.world.groups.keys()].sort().join(', ') || 'none'
    throw new Error(`${primitive}: no group named '${name}' in this world (groups: ${names}; formGroup makes a new one)`)
  }
  return group
}

function changed (ctx, kind, name, data) {
  ctx.world.record(ctx.bot.username, kind, { group: name, ...data })
  return [...data.members]
}

async function joinGroup (ctx, group) {
  const name = groupName(group, 'joinGroup')
  const me = ctx.bot.username
  const entry = known(ctx, 'joinGroup', name)
  if (entry.members.includes(me)) throw new Error(`joinGroup: ${me} is already a member of group '${name}'`)
  entry.members.push(me)
  return changed(ctx, 'group_join', name, { members: [...entry.members] })
}

async function leaveGroup (ctx, group) {
  const name = groupName(group, 'leaveGroup')
  const me = ctx.bot.username
  const entry = known(ctx, 'leaveGroup', name)
  if (!entry.members.includes(me)) {
    throw new Error(`leaveGroup: ${me} is not a member of group '${name}' (members: ${entry.members.join(', ') || 'none'})`)
  }
  entry.members = entry.members.filter(m => m !== me)
  return changed(ctx, 'group_leave', name, { members: [...entry.members] })
}

async function formGroup (ctx, group, share = 1) {
  groupName(group, 'formGroup')
  if (typeof share !== 'number') throw new Error('share for formGroup must be a fraction of rewards in [0, 1]')
  if (ctx.world.groups.has(group)) throw new Error(`formGroup: a group named '${group}' exists already (joinGroup joins it)`)
  if (!(share >= 0 && share <= 1)) {
    throw new Error(`formGroup: share for formGroup must be a fraction of rewards in [0, 1], got ${share}`)
  }
  ctx.world.groups.set(group, { members: [ctx.bot.username], share })
  return changed(ctx, 'group_form', group, { share, members: [ctx.bot.username] })
}

module.exports = { uses, primitives: { joinGroup, leaveGroup, formGroup }, groupTable }
