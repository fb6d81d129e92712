"""`python -m store upgrade`: migrate the configured database (the compose `migrate` step)."""

from __future__ import annotations

import argparse

from config import Settings
from store.migrate import upgrade


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m store")
    parser.add_argument("command", choices=["upgrade"])
    parser.parse_args()
    settings = Settings()
    upgrade(settings.db_url)
    print("database schema is up to date")


if __name__ == "__main__":
    main()
