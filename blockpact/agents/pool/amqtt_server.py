"""`python -m blockpact.agents.pool.amqtt_server --host H --port P`: the amqtt broker as a child process,
for machines without mosquitto. Anonymous, in-memory: sessions and retained history end with it."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal

from amqtt.broker import Broker


def broker_config(host: str, port: int) -> dict:
    return {
        "listeners": {"default": {"type": "tcp", "bind": f"{host}:{port}"}},
        "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}},
    }


async def serve(host: str, port: int) -> None:
    broker = Broker(broker_config(host, port))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await broker.start()
    print(f"amqtt listening on {host}:{port}", flush=True)
    try:
        await stop.wait()
    finally:
        await broker.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", required=True)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    asyncio.run(serve(args.host, args.port))


if __name__ == "__main__":
    main()
