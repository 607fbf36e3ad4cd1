/**
 * The spec's client behaviour: retry 429, 5xx and network errors with growing, jittered waits,
 * honouring `Retry-After`; never other 4xx. A POST is sent again after a network error only with
 * an `Idempotency-Key` (the same on every try), since it may have reached the server.
 */

import { ApiConnectionError } from "./errors.js";

export interface RetryPolicy {
  /** Tries after the first. */
  maxRetries: number;
  /** Seconds before the first retry; each next wait is `multiplier` times longer, up to `maxWait`. */
  initialWait: number;
  multiplier: number;
  maxWait: number;
  /** Each wait is drawn from [1 - jitter, 1] times its ceiling. */
  jitter: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 4, initialWait: 0.5, multiplier: 2, maxWait: 30, jitter: 0.5 };

export function retryWait(policy: RetryPolicy, retry: number, retryAfter?: number): number {
  const ceiling = Math.min(policy.maxWait, policy.initialWait * policy.multiplier ** retry);
  return Math.max(ceiling * (1 - policy.jitter * Math.random()), retryAfter ?? 0);
}

export function isRetryable(status: number): boolean {
  return status === 429 || status >= 500;
}

function retryAfterSeconds(response: Response): number | undefined {
  const value = Number(response.headers.get("retry-after") ?? Number.NaN);
  return Number.isFinite(value) ? Math.max(0, value) : undefined;
}

/** True when the connection never opened, so even a POST without a key cannot have arrived. */
function wasNotSent(error: unknown): boolean {
  const code = (error as { cause?: { code?: string } } | undefined)?.cause?.code;
  return code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN";
}

const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

/** A `fetch` that retries as the spec asks; the last answer (error or not) is returned. */
export function retryingFetch(policy: RetryPolicy, inner: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const repeatable = request.method !== "POST" || request.headers.has("Idempotency-Key");
    for (let retry = 0; ; retry++) {
      let response: Response;
      try {
        response = await inner(request.clone());
      } catch (error) {
        if (retry >= policy.maxRetries || !(repeatable || wasNotSent(error))) {
          throw new ApiConnectionError(`${request.method} ${request.url}: ${String(error)}`, { cause: error });
        }
        await sleep(retryWait(policy, retry));
        continue;
      }
      if (!isRetryable(response.status) || retry >= policy.maxRetries) {
        return response;
      }
      await sleep(retryWait(policy, retry, retryAfterSeconds(response)));
    }
  };
}
