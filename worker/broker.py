"""The embedded broker: kombu's SQLAlchemy transport on a SQLite file, with two fixes.

kombu hands every transport option to create_engine, so its own `polling_interval` (virtual
transports poll; the 1 s default adds a second to every submission) cannot be set through the
URL alone; and several processes share the file, so they should wait for its lock rather
than fail.
"""

from __future__ import annotations

from kombu.transport import sqlalchemy as sqla
from sqlalchemy import create_engine, event

from store.files import private_sqlite

TRANSPORT = "worker.broker:Transport"


class Channel(sqla.Channel):
    def _engine_from_config(self):
        url = self.connection.client.hostname
        private_sqlite(url)  # 0600, as the judge's own database
        engine = create_engine(url, connect_args={"timeout": 30})

        @event.listens_for(engine, "connect")
        def _wal(dbapi_connection, _record) -> None:
            dbapi_connection.execute("PRAGMA journal_mode=WAL")

        return engine


class Transport(sqla.Transport):
    Channel = Channel
