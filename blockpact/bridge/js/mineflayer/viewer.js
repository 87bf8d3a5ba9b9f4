'use strict'
// A live 3D page of one bot's view (prismarine-viewer's browser client and its WorldView), served on
// 127.0.0.1 only. prismarine-viewer's own mineflayer() helper listens on every interface and needs the
// native `canvas` package, so the page server is put together here from its parts.
const http = require('http')
const path = require('path')

// prismarine-viewer's own dependencies (express, socket.io), resolved from where it installed them.
const viewerRoot = path.dirname(require.resolve('prismarine-viewer/package.json'))
const fromViewer = (name) => require(require.resolve(name, { paths: [viewerRoot] }))

// options: {port (0: any free one), viewDistance, firstPerson}; resolves with {url, close()}.
function startViewer (bot, { port = 0, viewDistance = 4, firstPerson = false } = {}) {
  const { WorldView } = require('prismarine-viewer/viewer/lib/worldView')
  const { setupRoutes } = require('prismarine-viewer/lib/common')
  const app = fromViewer('express')()
  setupRoutes(app)
  const server = http.createServer(app)
  const io = fromViewer('socket.io')(server)
  const detach = new Set()

  io.on('connection', (socket) => {
    socket.emit('version', bot.version)
    const view = new WorldView(bot.world, viewDistance, bot.entity.position, socket)
    view.init(bot.entity.position).catch(() => {})
    const follow = () => {
      socket.emit('position', { pos: bot.entity.position, yaw: bot.entity.yaw, addMesh: true, ...(firstPerson ? { pitch: bot.entity.pitch } : {}) })
      view.updatePosition(bot.entity.position).catch(() => {})
    }
    bot.on('move', follow)
    view.listenToBot(bot)
    const stop = () => {
      bot.removeListener('move', follow)
      if (view.listeners[bot.username]) view.removeListenersFromBot(bot)
    }
    detach.add(stop)
    socket.on('disconnect', () => { stop(); detach.delete(stop) })
  })

  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject)
      const url = `http://127.0.0.1:${server.address().port}/`
      resolve({
        url,
        close: () => new Promise(done => {
          for (const stop of detach) stop()
          io.close()
          server.closeAllConnections?.()
          server.close(() => done())
        })
      })
    })
  })
}

module.exports = { startViewer }
