"""One attempt of one delivery: sign, send through the guarded client, and judge the answer."""

from __future__ import annotations

import time

from printcloud.core.http.egress import EgressFailed, EgressGuard, EgressRefused
from printcloud.webhooks.domain.attempts import EXCERPT_BYTES, Outcome
from printcloud.webhooks.domain.endpoints import schemes_for
from printcloud.webhooks.domain.envelope import body_bytes
from printcloud.webhooks.domain.signing import signed_headers
from printcloud.webhooks.persistence.deliveries import Claim


class Sender:
    def __init__(self, guard: EgressGuard, *, answer_timeout: float, user_agent: str) -> None:
        self.guard = guard
        self.answer_timeout = answer_timeout
        self.user_agent = user_agent

    async def attempt(self, claim: Claim) -> Outcome:
        """The URL rules are checked again here, before every send (the guard does it at connect
        time). Any port is allowed: receivers commonly listen on others than 80 and 443, and the
        address rule is what keeps private networks out."""
        body = body_bytes(claim.payload)
        headers = signed_headers(claim.secret, str(claim.event_id), int(time.time()), body, self.user_agent)
        try:
            response = await self.guard.request(
                "POST",
                claim.url,
                content=body,
                headers=headers,
                timeout=self.answer_timeout,
                max_body_bytes=EXCERPT_BYTES,
                truncate=True,
                schemes=schemes_for(claim.mode),
                ports=None,
            )
        except EgressRefused as refused:
            return Outcome.no_answer(f"Not sent: {refused.reason}")
        except EgressFailed as failed:
            return Outcome.no_answer(failed.reason, headers)
        return Outcome.answered(response.status, response.body, headers)
