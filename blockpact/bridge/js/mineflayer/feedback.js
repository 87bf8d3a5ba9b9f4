'use strict'
// Feedback and error messages come from skills/primitives.toml (passed in by Python as JSON), so
// the simulator body, this body and the prompts say the same thing. A primitive names a message
// by the start of its template ("No {name} nearby"); every name is checked when the world starts,
// so an edited primitives.toml fails loudly instead of sending an empty chat line.

function formatTemplate (template, vars) {
  return template.replace(/\{(\w+)\}/g, (whole, key) => (key in vars ? String(vars[key]) : whole))
}

// primitives: {name: {feedback: [template], errors: [template]}}; uses: {name: {feedback: [prefix], errors: [prefix]}}
function messageTable (primitives, uses) {
  const problems = []
  const find = (primitive, kind, prefix) => {
    const templates = primitives?.[primitive]?.[kind] ?? []
    const found = templates.filter(t => t.startsWith(prefix))
    if (found.length !== 1) problems.push(`${primitive}.${kind}: ${found.length} templates start with ${JSON.stringify(prefix)} (expected 1)`)
    return found[0]
  }
  const table = new Map()
  for (const [primitive, kinds] of Object.entries(uses)) {
    for (const kind of ['feedback', 'errors']) {
      for (const prefix of kinds[kind] ?? []) table.set(`${primitive}\0${kind}\0${prefix}`, find(primitive, kind, prefix))
    }
  }
  if (problems.length) throw new Error(`primitives.toml does not match the mineflayer primitives:\n${problems.join('\n')}`)
  const lookup = (primitive, kind, prefix) => {
    const template = table.get(`${primitive}\0${kind}\0${prefix}`)
    if (template === undefined) throw new Error(`message ${primitive}.${kind} ${JSON.stringify(prefix)} was not declared`)
    return template
  }
  return {
    // The chat line a primitive says.
    feedback: (primitive, prefix, vars = {}) => formatTemplate(lookup(primitive, 'feedback', prefix), vars),
    // The Error a primitive throws.
    error: (primitive, prefix, vars = {}) => new Error(formatTemplate(lookup(primitive, 'errors', prefix), vars))
  }
}

// "(x, y, z)" as the simulator writes positions.
function formatPosition (p) {
  return `(${Math.floor(p.x)}, ${Math.floor(p.y)}, ${Math.floor(p.z)})`
}

module.exports = { messageTable, formatTemplate, formatPosition }
