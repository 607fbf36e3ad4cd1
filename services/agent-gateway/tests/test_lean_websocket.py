"""The WebSocket protocol the gateway serves agents with: uvicorn's, holding less for an idle
connection. Its receive queue and write gate on their own, then the protocol under a real server
and a real client on 127.0.0.1."""

from __future__ import annotations

import asyncio
import logging

import pytest
import websockets
from starlette.types import Receive, Scope, Send

from printcloud.agent_gateway.app import start_http
from printcloud.agent_gateway.transport.lean_websocket import Gate, Inbox, LeanWebSocketProtocol
from printcloud.core.telemetry.ops import bound_port, stop_app


async def test_the_inbox_hands_items_out_in_order_and_a_get_waits_for_one() -> None:
    inbox = Inbox()
    waiting = asyncio.create_task(inbox.get())
    await asyncio.sleep(0)
    assert not waiting.done() and inbox.empty()
    inbox.put_nowait("first")
    inbox.put_nowait("second")
    assert await waiting == "first"
    assert not inbox.empty()
    assert await inbox.get() == "second"
    assert inbox.empty()


async def test_a_woken_getter_cancelled_before_it_took_the_item_leaves_it_for_the_next() -> None:
    inbox = Inbox()
    first = asyncio.create_task(inbox.get())
    second = asyncio.create_task(inbox.get())
    await asyncio.sleep(0)
    inbox.put_nowait("item")  # wakes the first getter
    first.cancel()
    assert await asyncio.wait_for(second, 5) == "item"


async def test_the_gate_is_open_until_cleared_and_holds_writers_until_set_again() -> None:
    gate = Gate()
    await asyncio.wait_for(gate.wait(), 5)
    gate.clear()
    writer = asyncio.create_task(gate.wait())
    await asyncio.sleep(0)
    assert not writer.done() and not gate.is_set()
    gate.set()
    await asyncio.wait_for(writer, 5)


async def test_after_the_accept_the_server_holds_no_request_headers_and_messages_still_flow() -> None:
    seen_after_accept: list[object] = []

    async def echo(scope: Scope, receive: Receive, send: Send) -> None:
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        seen_after_accept.append(list(scope["headers"]))
        while (message := await receive())["type"] == "websocket.receive":
            await send({"type": "websocket.send", "text": message["text"].upper()})

    server, task = await start_http(echo, "127.0.0.1", 0, 30.0)
    try:
        url = f"ws://127.0.0.1:{bound_port(server)}/agent/v1/ws"
        async with websockets.connect(url, additional_headers={"Authorization": "Bearer secret-credential"}) as agent:
            await agent.send("hello")
            assert await asyncio.wait_for(agent.recv(), 5) == "HELLO"
            (protocol,) = server.server_state.connections
            assert isinstance(protocol, LeanWebSocketProtocol)
            # Typed as always set by uvicorn, which never forgets them itself.
            assert vars(protocol)["request"] is None and vars(protocol)["response"] is None
            assert seen_after_accept == [[]]
    finally:
        await stop_app(server, task)


async def test_connections_accepted_and_refused_are_not_logged_one_by_one_nor_as_errors(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)

    async def refuse_or_accept(scope: Scope, receive: Receive, send: Send) -> None:
        await receive()
        if scope["path"] == "/refused":
            await send({"type": "websocket.http.response.start", "status": 503, "headers": []})
            await send({"type": "websocket.http.response.body", "body": b"busy"})
            return
        await send({"type": "websocket.accept"})
        while (await receive())["type"] != "websocket.disconnect":
            pass

    server, task = await start_http(refuse_or_accept, "127.0.0.1", 0, 30.0)
    caplog.clear()  # the server's own start
    try:
        base = f"ws://127.0.0.1:{bound_port(server)}"
        with pytest.raises(websockets.InvalidStatus) as refused:
            await websockets.connect(f"{base}/refused")
        assert refused.value.response.status_code == 503
        async with websockets.connect(f"{base}/agent/v1/ws") as agent:
            await agent.ping()
        # Neither a line for each nor an error for the refusal (the application answered it), from
        # the server's loggers: a consumer an earlier test left behind in this process may log its
        # broker's absence meanwhile.
        served = [r for r in caplog.records if r.name.split(".")[0] in ("uvicorn", "websockets", "printcloud")]
        assert [record.getMessage() for record in served] == []
    finally:
        await stop_app(server, task)
