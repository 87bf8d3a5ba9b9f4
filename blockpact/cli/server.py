"""`blockpact server`: run the embedded Minecraft server in the foreground until Ctrl-C."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import time
from types import FrameType

from blockpact.bridge.live.embedded_server import EmbeddedServer
from blockpact.settings import settings

POLL_SECONDS = 0.5


def register(sub: argparse._SubParsersAction) -> None:
    server = settings().server
    p = sub.add_parser("server", help="run the embedded Minecraft server (flying-squid) until Ctrl-C")
    p.add_argument("--port", type=int, default=server.port, help=f"port to listen on, 0 = any free port (default {server.port})")
    p.add_argument("--host", default=server.host, help=f"address to bind (default {server.host})")
    p.add_argument("--mc-version", help="Minecraft version (default from defaults.toml)")
    p.add_argument("--op", action="append", default=[], metavar="PLAYER", help="make PLAYER an operator (repeatable)")
    p.add_argument("--everybody-op", action="store_true", help="every player is an operator")
    p.add_argument("--world", help="build this world (built-in name or .toml file) once the server is up")
    p.add_argument("--verbose", action="store_true", help="show the server's log on stderr")
    p.set_defaults(handler=cmd_server)


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def cmd_server(args: argparse.Namespace) -> int:
    server = EmbeddedServer(port=args.port, host=args.host, version=args.mc_version, ops=tuple(args.op),
                            everybody_op=args.everybody_op, verbose=args.verbose)
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)  # SIGTERM stops the server like Ctrl-C
    try:
        server.start()
        if args.world:
            from blockpact.bridge.live.world_compiler import build_world_on_server
            from blockpact.worlds.world_files import load_world

            spec = load_world(args.world, server.version)
            asyncio.run(build_world_on_server(server, spec))
            print(f"built world {spec.name}: spawn points " + ", ".join(f"{p.name} {list(p.spawn)}" for p in spec.players.values()), flush=True)
        print(f"Minecraft {server.version} server (flying-squid) at {server.host}:{server.port}, pid {server.pid}; Ctrl-C stops it", flush=True)
        while server.running:
            time.sleep(POLL_SECONDS)
        print(f"blockpact: the server exited with code {server.stop()}: {server.stderr_tail()}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("stopping the server", file=sys.stderr, flush=True)
        return 0
    finally:
        server.stop()
        signal.signal(signal.SIGTERM, previous)
