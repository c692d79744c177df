/**
 * Lumen JavaScript/TypeScript client: a thin, typed wrapper over the HTTP API.
 */

export type DocumentId = string;

/** Sort direction for structured queries. */
export enum SortOrder {
  Ascending = 1,
  Descending = -1,
}

/** Options accepted by {@link LumenClient.search}. */
export interface SearchOptions {
  fields?: string[];
  filter?: Record<string, unknown>;
  limit?: number;
  offset?: number;
  highlight?: boolean;
}

export interface SearchHit<T> {
  id: DocumentId;
  score: number;
  doc: T;
  snippets?: string[];
}

/** Raised for any non-2xx answer of the server. */
export class LumenError extends Error {
  constructor(public readonly status: number, public readonly code: string, message: string) {
    super(`${code} (${status}): ${message}`);
    this.name = "LumenError";
  }
}

/** A handle to one collection; cheap to create, holds no state. */
export class Collection<T extends { _id: DocumentId }> {
  constructor(private readonly client: LumenClient, readonly name: string) {}

  /** Index one document or a batch of documents. */
  async insert(docs: T | T[]): Promise<void> {
    await this.client.request("POST", `/v1/index?collection=${encodeURIComponent(this.name)}`, docs);
  }

  /** Full-text search, ranked by BM25. */
  async search(text: string, options: SearchOptions = {}): Promise<SearchHit<T>[]> {
    const params = new URLSearchParams({ q: text, collection: this.name, limit: String(options.limit ?? 10) });
    if (options.offset) params.set("offset", String(options.offset));
    const body = await this.client.request("GET", `/v1/search?${params}`);
    return (body as { hits: SearchHit<T>[] }).hits;
  }

  async remove(id: DocumentId): Promise<boolean> {
    const body = await this.client.request("DELETE", `/v1/docs/${this.name}/${id}`);
    return (body as { deleted: boolean }).deleted;
  }
}

export class LumenClient {
  private readonly baseUrl: string;

  /**
   * @param baseUrl server address, e.g. `http://localhost:7700`
   * @param apiKey  an API key created with `lumen key create`
   */
  constructor(baseUrl: string, private readonly apiKey?: string) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
  }

  collection<T extends { _id: DocumentId }>(name: string): Collection<T> {
    return new Collection<T>(this, name);
  }

  async request(method: string, path: string, body?: unknown): Promise<unknown> {
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    if (this.apiKey) headers["Authorization"] = `Bearer ${this.apiKey}`;
    const res = await fetch(this.baseUrl + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json().catch(() => ({}));
    if (!res.ok) {
      const err = (json as { error?: { code: string; message: string } }).error;
      throw new LumenError(res.status, err?.code ?? "unknown", err?.message ?? res.statusText);
    }
    return json;
  }
}

export namespace Retry {
  /** Exponential backoff with jitter, in milliseconds. */
  export function backoff(attempt: number, baseMs = 100, capMs = 5_000): number {
    const exp = Math.min(capMs, baseMs * 2 ** attempt);
    return Math.round(exp / 2 + Math.random() * (exp / 2));
  }
}

export function isRetryable(error: unknown): boolean {
  return error instanceof LumenError && (error.status === 503 || error.status === 429);
}
