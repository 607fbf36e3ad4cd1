"""The feed follower never skips an event: `after` stays at the last one processed, so following
again from it hands out the event being processed when the loop stopped, then every later one."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from printcloud_sdk import PrintCloud, UnknownEvent, models


def _event(number: int, event_type: str = "computer.online") -> dict[str, Any]:
    return {
        "id": f"00000000-0000-4000-8000-{number:012d}", "type": event_type, "timestamp": "2026-11-26T08:00:00+00:00",
        "mode": "test", "data": {"id": "c", "name": "pc", "state": "online"},
    }  # fmt: skip


FEED = [_event(1), _event(2), _event(3, "brand.new"), _event(4), _event(5)]
IDS = [event["id"] for event in FEED]


class Feed:
    """The spec's feed, two events a page, recording each `after` asked for."""

    def __init__(self) -> None:
        self.afters: list[str | None] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        assert request.url.params["dir"] == "asc"
        after = request.url.params.get("after")
        self.afters.append(after)
        start = IDS.index(after) + 1 if after else 0
        page = FEED[start : start + 2]
        more = start + 2 < len(FEED)
        return httpx.Response(
            200, json={"data": page, "hasMore": more, "nextCursor": page[-1]["id"] if page else after}
        )


@pytest.fixture
def feed(monkeypatch: pytest.MonkeyPatch) -> Feed:
    monkeypatch.setattr("printcloud_sdk._sync_client.time.sleep", lambda _: None)
    return Feed()


def _client(feed: Feed) -> PrintCloud:
    return PrintCloud(
        "k", base_url="http://printcloud.invalid", http_client=httpx.Client(transport=httpx.MockTransport(feed))
    )


def test_after_stays_at_the_last_processed_event(feed: Feed) -> None:
    follower = _client(feed).events.follow()
    seen: list[Any] = []
    for event in follower:
        seen.append(event)
        assert follower.after == (IDS[len(seen) - 2] if len(seen) > 1 else None), "not processed until the loop goes on"
        if len(seen) == 4:
            break  # the fourth is being processed: it does not count as done
    assert [event.id for event in seen] == IDS[:4]
    assert follower.after == IDS[2]
    assert set(feed.afters) <= {None, *IDS[:3]}, "never asked beyond an event handed out"
    again = _client(feed).events.follow(after=follower.after)
    assert [event.id for _, event in zip(range(2), again, strict=False)] == IDS[3:5]


def test_events_are_typed_by_type_and_unknown_types_are_kept(feed: Feed) -> None:
    events = [event for _, event in zip(range(5), _client(feed).events.follow(), strict=False)]
    assert isinstance(events[0], models.ComputerOnlineEvent) and events[0].data.name == "pc"
    assert isinstance(events[2], UnknownEvent) and events[2].data == FEED[2]["data"]
    assert events[2].received_json() == FEED[2]


def test_types_filter_what_is_handed_out_but_not_where_it_resumes(feed: Feed) -> None:
    follower = _client(feed).events.follow(types={"brand.new"})
    first = next(iter(follower))
    assert first.id == IDS[2]
