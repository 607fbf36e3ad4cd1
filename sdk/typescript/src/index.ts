export { PrintCloud, EventFollower, TERMINAL_JOB_STATES } from "./client.js";
export type { PrintCloudOptions, Schemas, PrintJob, Printer, PrintOptions, Event, JobState } from "./client.js";
export { ApiError, ApiConnectionError, PrintCloudError, WebhookVerificationError } from "./errors.js";
export { DEFAULT_RETRY, retryWait, isRetryable, retryingFetch } from "./retry.js";
export type { RetryPolicy } from "./retry.js";
export { verifyWebhook, sign, TOLERANCE_SECONDS } from "./webhooks.js";
export type { WebhookPayload } from "./webhooks.js";
export type { components, paths } from "./schema.js";
