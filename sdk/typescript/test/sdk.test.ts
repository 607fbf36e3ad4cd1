/**
 * The TypeScript SDK against a running PrintCloud named by PRINTCLOUD_BASE_URL and
 * PRINTCLOUD_API_KEY (a test-mode key, so that the virtual printers are there).
 */

import assert from "node:assert/strict";
import { createServer } from "node:http";
import { mkdtemp, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Webhook } from "standardwebhooks";

import { ApiError, PrintCloud, WebhookVerificationError, sign, verifyWebhook } from "../src/index.js";

const PDF = "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n";
const SECRET = "whsec_" + Buffer.from("a key of thirty-two bytes, fixed").toString("base64");

async function pdfFile(name: string): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), "printcloud-")), name);
  await writeFile(path, PDF);
  return path;
}

test("prints a PDF by printer name and waits until it is done", async () => {
  const client = new PrintCloud();
  const identity = await client.whoami();
  assert.equal(identity.mode, "test");
  const office = await client.findPrinter("virtual-office");
  assert.equal(office.capabilities.duplex, true);
  const job = await client.printFile(await pdfFile("ts.pdf"), "virtual-office", { options: { copies: 2, duplex: "long-edge" } });
  assert.equal(job.state, "queued");
  assert.equal(job.contentType, "pdf_base64");
  const final = await client.waitForPrintJob(job.id, { timeout: 60, pollInterval: 0.5 });
  assert.equal(final.state, "done");
  assert.equal(final.options.copies, 2);
});

test("errors are thrown with the API's code and request id", async () => {
  const client = new PrintCloud();
  await assert.rejects(client.getPrintJob("00000000-0000-4000-8000-000000000000"), (error: unknown) => {
    assert.ok(error instanceof ApiError);
    assert.equal(error.status, 404);
    assert.equal(error.code, "not_found");
    assert.match(error.requestId, /^req_/);
    return true;
  });
  const office = await client.findPrinter("virtual-office");
  await assert.rejects(
    client.createPrintJob({ printerId: office.id, title: "bad", contentType: "pdf_base64", content: "QUJD" }),
    (error: unknown) => error instanceof ApiError && error.status === 422 && error.code === "invalid_content",
  );
});

test("the same Idempotency-Key twice is the same job", async () => {
  const client = new PrintCloud();
  const path = await pdfFile("once.pdf");
  const key = `ts-${Date.now()}`;
  const first = await client.printFile(path, "virtual-photo", { idempotencyKey: key });
  const again = await client.printFile(path, "virtual-photo", { idempotencyKey: key });
  assert.equal(again.id, first.id);
});

test("429 and 5xx are retried, honouring Retry-After, with one Idempotency-Key for every try", async () => {
  const keys: string[] = [];
  const answers = [
    { status: 503, headers: {} },
    { status: 429, headers: { "Retry-After": "1" } },
    { status: 201, headers: {} },
  ];
  const server = createServer((request, response) => {
    keys.push(String(request.headers["idempotency-key"]));
    const answer = answers.shift() ?? { status: 500, headers: {} };
    const body = answer.status === 201 ? { id: "job" } : { error: { code: "x", message: "try again", request_id: "req_x" } };
    response.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
    response.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const client = new PrintCloud({ baseUrl: `http://127.0.0.1:${port}`, apiKey: "svc_test_x", retry: { initialWait: 0.01 } });
    const started = Date.now();
    const job = await client.createPrintJob({ printerId: "p", title: "t", contentType: "raw_base64", content: "QQ==" });
    assert.equal(job.id, "job");
    assert.ok(Date.now() - started >= 1000, "Retry-After: 1 was honoured");
    assert.equal(keys.length, 3);
    assert.equal(new Set(keys).size, 1);
    assert.notEqual(keys[0], "undefined");
  } finally {
    server.close();
  }
});

test("a 400 is not retried", async () => {
  let requests = 0;
  const server = createServer((_, response) => {
    requests++;
    response.writeHead(400, { "content-type": "application/json" });
    response.end(JSON.stringify({ error: { code: "invalid_request", message: "no", request_id: "req_1" } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const client = new PrintCloud({ baseUrl: `http://127.0.0.1:${port}`, apiKey: "svc_test_x" });
    await assert.rejects(client.whoami(), (error: unknown) => error instanceof ApiError && error.code === "invalid_request");
    assert.equal(requests, 1);
  } finally {
    server.close();
  }
});

test("webhook signatures agree with the standardwebhooks package both ways", async () => {
  const body = JSON.stringify({ id: "e1", type: "ping", timestamp: "2026-11-26T08:00:00+00:00", mode: "test", data: {} });
  const now = new Date();
  const theirs = new Webhook(SECRET).sign("e1", now, body);
  const headers = { "webhook-id": "e1", "webhook-timestamp": String(Math.floor(now.getTime() / 1000)), "webhook-signature": theirs };
  const event = await verifyWebhook(SECRET, body, headers);
  assert.equal(event.type, "ping");
  const ours = await sign(SECRET, "e1", Math.floor(now.getTime() / 1000), body);
  new Webhook(SECRET).verify(body, { ...headers, "webhook-signature": ours });
  await assert.rejects(verifyWebhook(SECRET, body.replace("test", "live"), headers), WebhookVerificationError);
  const stale = { ...headers, "webhook-timestamp": String(Math.floor(now.getTime() / 1000) - 301) };
  await assert.rejects(verifyWebhook(SECRET, body, stale), WebhookVerificationError);
});

test("the event feed, followed from the start, reaches a job's printjob.done", async () => {
  const client = new PrintCloud();
  const job = await client.printFile(await pdfFile("feed.pdf"), "virtual-office");
  const follower = client.followEvents({ pollInterval: 0.5 });
  const seen: string[] = [];
  for await (const event of follower) {
    if (event.type.startsWith("printjob.") && "data" in event && (event.data as { id: string }).id === job.id) {
      seen.push(event.type);
      if (event.type === "printjob.done") break;
    }
  }
  assert.deepEqual(seen, ["printjob.queued", "printjob.sent", "printjob.received", "printjob.printing", "printjob.done"]);
  assert.ok(follower.after, "the follower keeps the last processed id");
});
