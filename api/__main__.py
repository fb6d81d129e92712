"""Command line: `python -m api serve | web | create-user NAME [--instructor]`."""

from __future__ import annotations

import argparse
import getpass
import secrets
import sys

from config import Settings
from store.models import Role


def create_user(name: str, instructor: bool, password: str | None) -> None:
    from api.accounts import upsert_user
    from api.security import Passwords
    from store.db import make_engine, make_session_factory

    generated = False
    if password is None:
        if sys.stdin.isatty():
            password = getpass.getpass(f"password for {name}: ")
        else:
            password, generated = secrets.token_urlsafe(12), True
    role = Role.INSTRUCTOR if instructor else Role.STUDENT
    settings = Settings()
    engine = make_engine(settings.db_url)
    with make_session_factory(engine)() as session:
        created = upsert_user(
            session=session,
            passwords=Passwords.configured(settings),
            username=name,
            password=password,
            role=role,
        )
    engine.dispose()
    print(
        f"{'created' if created else 'updated'} {role} {name}"
        + (f" with password {password}" if generated else "")
    )


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m api")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("serve", help="migrate, then run API + worker + sweeper (make run)")
    sub.add_parser("prestart", help="migrate and create the first instructor (compose)")
    web = sub.add_parser("web", help="run the HTTP API only (docker-compose)")
    web.add_argument("--host")
    web.add_argument("--port", type=int)
    user = sub.add_parser("create-user", help="create a user, or reset its password and role")
    user.add_argument("name")
    user.add_argument("--instructor", action="store_true")
    user.add_argument("--password", help="default: prompt, or generate and print")
    args = parser.parse_args()

    if args.command == "serve":
        from api.serve import serve

        serve()
    elif args.command == "prestart":
        from api.serve import prestart

        settings = Settings()
        password = prestart(settings)
        if password and not settings.admin_password:
            print(f"instructor: {settings.admin_user} / {password}   (generated; shown only now)")
    elif args.command == "web":
        import uvicorn

        from api.main import create_app

        settings = Settings()
        uvicorn.run(
            create_app(settings),
            host=args.host or settings.host,
            port=args.port or settings.port,
            log_level="info",
        )
    else:
        create_user(args.name, args.instructor, args.password)


if __name__ == "__main__":
    main()
