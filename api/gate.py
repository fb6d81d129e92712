"""At most as many requests at work as the database pool has connections.

A sync endpoint holds its session's connection until FastAPI has serialised the response,
which takes a thread of its own: with more requests at work than connections, threads
waiting for a connection and requests holding one while waiting for a thread deadlock until
the pool times out. So requests wait here, holding nothing, for one of `slots` places; a place
is given back when the response starts (by then the request's session is closed), so a
long-lived event stream holds one only while it authenticates.
"""

from __future__ import annotations

import asyncio
import weakref

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class RequestGate:
    def __init__(self, app: ASGIApp, slots: int) -> None:
        self.app = app
        self.slots = slots
        # One per event loop, as the thread limiter is (a server runs one; tests may run more).
        self._semaphores: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore]
        self._semaphores = weakref.WeakKeyDictionary()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        semaphore = self._semaphores.get(loop)
        if semaphore is None:
            semaphore = self._semaphores[loop] = asyncio.Semaphore(self.slots)
        await semaphore.acquire()
        held = True

        def give_back() -> None:
            nonlocal held
            if held:
                held = False
                semaphore.release()

        async def send_and_give_back(message: Message) -> None:
            if message["type"] == "http.response.start":
                give_back()
            await send(message)

        try:
            await self.app(scope, receive, send_and_give_back)
        finally:
            give_back()
