"""`blockpact broker`: a local MQTT broker for agents in separate processes, until Ctrl-C or SIGTERM."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path
from types import FrameType

from blockpact.agents.broker import KINDS, BrokerError, Credentials, LocalBroker
from blockpact.agents.pool.settings import pool_settings
from blockpact.errors import UserError


def register(subparsers: argparse._SubParsersAction) -> None:
    defaults = pool_settings().broker
    broker = subparsers.add_parser(
        "broker",
        help="run a local MQTT broker for the message pool",
        description="Start mosquitto (if installed, else amqtt) on 127.0.0.1, print its URL, and stop it on exit.",
    )
    broker.add_argument("--host", default=defaults.host, help=f"address to listen on (default: {defaults.host})")
    broker.add_argument("--port", type=int, default=defaults.port, help=f"port (default: {defaults.port}; 0 = any free port)")
    broker.add_argument("--kind", choices=KINDS, default=defaults.kind, help=f"which broker (default: {defaults.kind})")
    broker.add_argument("--data-dir", type=Path, help="keep config, persistence and log here (default: a temporary directory)")
    broker.add_argument("--username", help="require this username (mosquitto only)")
    broker.add_argument("--password-env", metavar="VAR", help="environment variable holding the password for --username")
    broker.set_defaults(handler=run_broker)


def credentials_from_args(args: argparse.Namespace) -> Credentials | None:
    if args.username is None and args.password_env is None:
        return None
    if args.username is None or args.password_env is None:
        raise UserError("--username and --password-env go together")
    password = os.environ.get(args.password_env)
    if not password:
        raise UserError(f"--password-env {args.password_env}: that environment variable is not set or empty")
    return Credentials(args.username, password)


def run_broker(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        raise UserError(f"--port {args.port} is not a port number (0-65535)")
    broker = LocalBroker(
        args.host, args.port or None, kind=args.kind, data_dir=args.data_dir, credentials=credentials_from_args(args)
    )
    previous = signal.signal(signal.SIGTERM, _stop_on_sigterm)
    try:
        broker.start()
        print(broker.url, flush=True)
        print(f"{broker.kind} (pid {broker.pid}) is running; Ctrl-C stops it", file=sys.stderr, flush=True)
        code = broker.wait()
        raise BrokerError(f"{broker.kind} stopped by itself with code {code}:\n{broker.log_tail()}")
    except (KeyboardInterrupt, Stopped):
        print(f"{broker.kind} stopped", file=sys.stderr, flush=True)
        return 0
    finally:
        broker.close()
        signal.signal(signal.SIGTERM, previous)


class Stopped(Exception):
    """SIGTERM arrived: stop the broker as on Ctrl-C."""


def _stop_on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise Stopped
