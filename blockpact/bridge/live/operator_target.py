"""World operations as chat commands of an operator bot, for servers without a control channel (vanilla 1.17+):
the WorldTarget the world compiler builds through when the plugin is not there."""

from __future__ import annotations

from blockpact.bridge.live.mineflayer_body import BotError, MineflayerWorld
from blockpact.bridge.live.world_compiler import chest_commands
from blockpact.settings import default_mc_version
from blockpact.worlds.spec import mcdata
from blockpact.worlds.spec.schema import Vec


class OperatorBotTarget:
    """World operations as chat commands of an operator bot, for servers without a control channel (vanilla 1.17+)."""

    def __init__(self, world: MineflayerWorld, operator: str, version: str | None = None) -> None:
        self.world = world
        self.operator = operator
        self.data = mcdata.load(version or world.address.version or default_mc_version())

    async def command(self, text: str) -> object:
        return await self.world.command(self.operator, text)

    async def set_chest(self, position: Vec, items: tuple[tuple[str, int], ...]) -> object:
        return [await self.command(text) for text in chest_commands(position, items, lambda name: self.data.stack_sizes.get(name, 64))]

    async def set_drops(self, block: str, item: str, low: int, high: int, counts: tuple[int, ...] = (),
                        weights: tuple[float, ...] = ()) -> object:
        raise BotError(f"custom drops for {block} need the embedded server (a vanilla server would need a data pack)")

    async def reset_drops(self, seed: int) -> object:
        """Nothing to do: a server without the plugin rolls its own drops, and a world's own tables are refused."""
        return None

    async def set_harvest(self, block: str, tools: tuple[str, ...]) -> object:
        raise BotError(f"harvest rules for {block} need the embedded server (a vanilla server has its own)")
