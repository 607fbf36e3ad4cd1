/**
 * The PrintCloud client: every operation of the OpenAPI document, typed from it (`api`), with the
 * spec's retries and one `Idempotency-Key` per print job created, plus what API users do most
 * (print a file, wait for a job, page through lists, follow the event feed) with typed errors.
 */

import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import createClient, { type Client } from "openapi-fetch";

import { ApiError } from "./errors.js";
import { DEFAULT_RETRY, type RetryPolicy, retryingFetch } from "./retry.js";
import type { components, paths } from "./schema.js";

export type Schemas = components["schemas"];
export type PrintJob = Schemas["PrintJob"];
export type Printer = Schemas["Printer"];
export type PrintOptions = Schemas["PrintOptions"];
export type Event = Schemas["Event"];
export type JobState = Schemas["JobState"];

export const TERMINAL_JOB_STATES: ReadonlySet<JobState> = new Set(["done", "error", "cancelled", "expired"]);

export interface PrintCloudOptions {
  /** Default: the environment's PRINTCLOUD_BASE_URL. */
  baseUrl?: string;
  /** Default: the environment's PRINTCLOUD_API_KEY. */
  apiKey?: string;
  retry?: Partial<RetryPolicy>;
  fetch?: typeof fetch;
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a successful answer; an `ApiError` for any other. */
async function unwrap<T>(answer: Answer<T>): Promise<T> {
  if (answer.response.ok) {
    return answer.data as T;
  }
  const envelope = answer.error as { error?: { code?: string; message?: string; request_id?: string; upgrade_url?: string } };
  const detail = envelope?.error;
  throw new ApiError(
    answer.response.status,
    detail?.code ?? "unknown",
    detail?.message ?? answer.response.statusText,
    detail?.request_id ?? answer.response.headers.get("x-request-id") ?? "",
    detail?.upgrade_url,
  );
}

/** `fetch` that gives every `POST /v1/printjobs` an Idempotency-Key, once, before any retry. */
function withIdempotencyKeys(inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    if (request.method === "POST" && new URL(request.url).pathname.endsWith("/v1/printjobs")) {
      if (!request.headers.has("Idempotency-Key")) {
        request.headers.set("Idempotency-Key", crypto.randomUUID());
      }
    }
    return inner(request);
  };
}

function looksLikeId(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}

const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

export class PrintCloud {
  /** Every operation of the document, typed: `api.GET("/v1/printers/{id}", { params: { path: { id } } })`. */
  readonly api: Client<paths>;

  constructor(options: PrintCloudOptions = {}) {
    const baseUrl = options.baseUrl ?? process.env.PRINTCLOUD_BASE_URL;
    const apiKey = options.apiKey ?? process.env.PRINTCLOUD_API_KEY;
    if (!baseUrl || !apiKey) {
      throw new Error("PrintCloud needs baseUrl and apiKey (or PRINTCLOUD_BASE_URL and PRINTCLOUD_API_KEY)");
    }
    const retry = { ...DEFAULT_RETRY, ...options.retry };
    this.api = createClient<paths>({
      baseUrl: baseUrl.replace(/\/+$/, ""),
      headers: { Authorization: `Bearer ${apiKey}`, "User-Agent": "printcloud-sdk-typescript/1.0.0" },
      fetch: withIdempotencyKeys(retryingFetch(retry, options.fetch ?? globalThis.fetch)),
    });
  }

  async whoami(): Promise<Schemas["Whoami"]> {
    return unwrap(await this.api.GET("/v1/whoami"));
  }

  /** Every printer of the key's mode, page after page. */
  async *printers(): AsyncGenerator<Printer> {
    yield* this.pages<Printer>(async (after) => unwrap(await this.api.GET("/v1/printers", { params: { query: { limit: 100, after } } })));
  }

  /** The printer with this name (else display name); an Error when none or several have it. */
  async findPrinter(name: string): Promise<Printer> {
    const printers: Printer[] = [];
    for await (const printer of this.printers()) printers.push(printer);
    for (const field of ["name", "displayName"] as const) {
      const found = printers.filter((printer) => printer[field] === name);
      if (found.length === 1) return found[0] as Printer;
      if (found.length > 1) throw new Error(`${found.length} printers are named ${JSON.stringify(name)}: give an id`);
    }
    throw new Error(`no printer named ${JSON.stringify(name)} in this key's mode`);
  }

  /** Creates a job; one Idempotency-Key (made here unless given) goes with every try. */
  async createPrintJob(body: Schemas["PrintJobCreate"], idempotencyKey?: string): Promise<PrintJob> {
    const headers = { "Idempotency-Key": idempotencyKey ?? crypto.randomUUID() };
    return unwrap(await this.api.POST("/v1/printjobs", { body, params: { header: headers } }));
  }

  /**
   * Prints a local file on `printer` (an id or a name): a PDF as `pdf_base64`, anything else as raw
   * printer data. The title defaults to the file's name.
   */
  async printFile(
    path: string,
    printer: string,
    options: { options?: PrintOptions; title?: string; qty?: number; idempotencyKey?: string } = {},
  ): Promise<PrintJob> {
    const document = await readFile(path);
    const isPdf = document.subarray(0, 5).toString("latin1") === "%PDF-";
    const printerId = looksLikeId(printer) ? printer : (await this.findPrinter(printer)).id;
    const common = { printerId, title: options.title ?? basename(path), options: options.options, qty: options.qty };
    const content = document.toString("base64");
    const body: Schemas["PrintJobCreate"] = isPdf
      ? { ...common, contentType: "pdf_base64", content }
      : { ...common, contentType: "raw_base64", content };
    return this.createPrintJob(body, options.idempotencyKey);
  }

  async getPrintJob(id: string): Promise<PrintJob> {
    return unwrap(await this.api.GET("/v1/printjobs/{id}", { params: { path: { id } } }));
  }

  /** The job once in a final state (`done`, `error`, `cancelled`, `expired`). */
  async waitForPrintJob(id: string, { timeout = 120, pollInterval = 1 } = {}): Promise<PrintJob> {
    const deadline = Date.now() + timeout * 1000;
    for (;;) {
      const job = await this.getPrintJob(id);
      if (TERMINAL_JOB_STATES.has(job.state)) return job;
      if (Date.now() >= deadline) throw new Error(`job ${id} is still ${job.state} after ${timeout} seconds`);
      await sleep(pollInterval);
    }
  }

  /**
   * The event feed from `after` (from its first event without it), then each new event as it
   * appears. `after` moves to an event only when the loop asks for the next one, so the spec's rule
   * holds: the last processed id, never skipping ahead. Keep `follower.after` to resume from.
   */
  followEvents(options: { after?: string; pollInterval?: number } = {}): EventFollower {
    return new EventFollower(this, options.after, options.pollInterval ?? 2);
  }

  async *pages<T>(page: (after: string | undefined) => Promise<Page<T>>): AsyncGenerator<T> {
    let after: string | undefined;
    for (;;) {
      const current = await page(after);
      yield* current.data;
      if (!current.hasMore || current.nextCursor === null) return;
      after = current.nextCursor;
    }
  }
}

export class EventFollower implements AsyncIterable<Event> {
  constructor(
    private readonly client: PrintCloud,
    public after: string | undefined,
    private readonly pollInterval: number,
  ) {}

  async *[Symbol.asyncIterator](): AsyncGenerator<Event> {
    for (;;) {
      const page = await unwrap(
        await this.client.api.GET("/v1/events", { params: { query: { after: this.after, dir: "asc", limit: 100 } } }),
      );
      for (const event of page.data) {
        yield event;
        this.after = event.id;
      }
      if (!page.hasMore) await sleep(this.pollInterval);
    }
  }
}
