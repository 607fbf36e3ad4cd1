/**
 * Webhook signatures as the API signs deliveries (Standard Webhooks), with WebCrypto so that it
 * runs wherever `crypto.subtle` does. Pass the raw body as received, not re-serialised JSON.
 */

import { WebhookVerificationError } from "./errors.js";
import type { components } from "./schema.js";

export type WebhookPayload = components["schemas"]["WebhookPayload"];
export const TOLERANCE_SECONDS = 300;

function base64ToBytes(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}

function bytesToBase64(bytes: ArrayBuffer): string {
  return btoa(String.fromCharCode(...new Uint8Array(bytes)));
}

/** The `webhook-signature` value of `body` sent with this id at this Unix time. */
export async function sign(secret: string, id: string, timestamp: number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    base64ToBytes(secret.replace(/^whsec_/, "")),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const signed = new TextEncoder().encode(`${id}.${timestamp}.${body}`);
  return `v1,${bytesToBase64(await crypto.subtle.sign("HMAC", key, signed))}`;
}

function header(headers: Headers | Record<string, string | string[] | undefined>, name: string): string {
  const value = headers instanceof Headers ? headers.get(name) : (headers[name] ?? headers[name.toLowerCase()]);
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) throw new WebhookVerificationError(`missing header ${name}`);
  return text;
}

function sameText(a: string, b: string): boolean {
  // Length first, then every character: the time taken does not tell how much matched.
  let difference = a.length ^ b.length;
  for (let i = 0; i < Math.min(a.length, b.length); i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/**
 * The event a webhook request delivers, once one `v1,` entry of its signature matches `body` and
 * its timestamp is within 300 seconds of now; a `WebhookVerificationError` otherwise. Skip
 * `webhook-id`s already processed: deliveries come at least once.
 */
export async function verifyWebhook(
  secret: string,
  body: string,
  headers: Headers | Record<string, string | string[] | undefined>,
  tolerance = TOLERANCE_SECONDS,
): Promise<WebhookPayload> {
  const id = header(headers, "webhook-id");
  const timestamp = Number(header(headers, "webhook-timestamp"));
  if (!Number.isInteger(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > tolerance) {
    throw new WebhookVerificationError("webhook-timestamp is missing or too far from now");
  }
  const expected = await sign(secret, id, timestamp, body);
  const entries = header(headers, "webhook-signature").split(" ");
  if (!entries.some((entry) => entry.startsWith("v1,") && sameText(entry, expected))) {
    throw new WebhookVerificationError("no matching signature");
  }
  return JSON.parse(body) as WebhookPayload;
}
