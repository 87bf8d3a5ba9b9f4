"""The live backend: a `World` on a Minecraft server (the embedded flying-squid or yours) with
mineflayer bots as bodies, the world compiler and the world master that keeps the mirror."""
