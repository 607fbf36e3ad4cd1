/** What the SDK throws: the API's error envelope as an exception, after the retries the spec allows. */

export class PrintCloudError extends Error {
  override name = "PrintCloudError";
}

export interface ErrorEnvelope {
  error: { code: string; message: string; request_id: string; upgrade_url?: string };
}

/** An error answer: its HTTP status and the envelope's stable `code`, `message` and `requestId`. */
export class ApiError extends PrintCloudError {
  override name = "ApiError";

  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly requestId: string,
    readonly upgradeUrl?: string,
  ) {
    super(`${status} ${code}: ${detail} (request ${requestId})`);
  }

  /** The exception for an error answer (a proxy's non-envelope answer keeps its status). */
  static async from(response: Response): Promise<ApiError> {
    let envelope: Partial<ErrorEnvelope> = {};
    try {
      envelope = (await response.clone().json()) as Partial<ErrorEnvelope>;
    } catch {
      // not JSON: the status says what there is to say
    }
    const error = envelope.error;
    return new ApiError(
      response.status,
      error?.code ?? "unknown",
      error?.message ?? response.statusText,
      error?.request_id ?? response.headers.get("x-request-id") ?? "",
      error?.upgrade_url,
    );
  }
}

/** No answer: the connection failed or timed out, after every retry. */
export class ApiConnectionError extends PrintCloudError {
  override name = "ApiConnectionError";
}

/** A webhook request whose signature or timestamp does not hold: do not process it. */
export class WebhookVerificationError extends PrintCloudError {
  override name = "WebhookVerificationError";
}
