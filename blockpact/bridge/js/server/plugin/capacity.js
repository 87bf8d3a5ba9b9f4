'use strict'
// Joins the server cannot take. flying-squid counts players among its entities and refuses a new one past
// its `max-entities` setting by throwing inside its login handler: the joining client hears nothing and
// waits out its own spawn timeout (how 27 of 128 bench bots failed, as "did not spawn within 37 s").
// Here such a client is disconnected at once, with the reason.

// Registered once every plugin is loaded, so it runs after flying-squid's own 'playerJoin' listener (its login
// plugin loads after this one, alphabetically as "external"): a client it admitted is some entity's `_client`
// by then, since it creates the player before its first await.
function refuseUnadmittedJoins (serv, settings) {
  serv.once('pluginsReady', () => {
    serv._server.on('playerJoin', (client) => {
      if (Object.values(serv.entities).some(entity => entity._client === client)) return
      client.end(`the server is full: it holds its most entities (max-entities ${settings['max-entities']}, players included)`)
    })
  })
}

module.exports = { refuseUnadmittedJoins }
