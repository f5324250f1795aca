import { Pool } from 'undici';
import { EngineError, engineErrorFromStatus, engineErrorMessage } from '../engine-error';
import { SseParser, SseProtocolError } from './sse-parser';

export interface EngineHttpOptions {
  /** Base URL of the engine, e.g. `http://127.0.0.1:8000` (a path prefix is kept). */
  url: string;
  /** Sent as `Authorization: Bearer …` when set. */
  apiKey?: string;
  /** Keep-alive connections to the engine; each running stream holds one. */
  maxConnections?: number;
  connectTimeoutMs?: number;
  /** From sending the request to the first streamed event, across retries. */
  firstTokenTimeoutMs?: number;
  /** Longest silence of the engine between events once streaming started. */
  idleTimeoutMs?: number;
  /** Attempts in total for failures before the first event (refused, reset, 503). */
  maxAttempts?: number;
  retryBaseDelayMs?: number;
}

export interface StreamCall {
  path: string;
  payload: unknown;
  signal: AbortSignal;
  requestId?: string;
}

const ERROR_BODY_LIMIT = 64 * 1024;
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);

/**
 * HTTP transport shared by the token and chat engines: one keep-alive undici pool per engine,
 * JSON-over-SSE streaming with first-event and idle timeouts, bounded retries before the first
 * event, and classification of every failure as an EngineError.
 */
export class EngineHttpClient {
  readonly baseUrl: string;
  private readonly pool: Pool;
  private readonly basePath: string;
  private readonly headers: Record<string, string>;
  private readonly firstTokenTimeoutMs: number;
  private readonly idleTimeoutMs: number;
  private readonly maxAttempts: number;
  private readonly retryBaseDelayMs: number;

  constructor(
    options: EngineHttpOptions,
    /** How errors name the engine, e.g. "the vLLM engine at http://…". */
    readonly label: string,
  ) {
    const url = new URL(options.url);
    this.baseUrl = options.url.replace(/\/+$/, '');
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.pool = new Pool(url.origin, {
      connections: options.maxConnections ?? 512,
      keepAliveTimeout: 30_000,
      connect: { timeout: options.connectTimeoutMs ?? 5_000 },
    });
    this.headers = { 'content-type': 'application/json', accept: 'text/event-stream' };
    if (options.apiKey) this.headers.authorization = `Bearer ${options.apiKey}`;
    this.firstTokenTimeoutMs = options.firstTokenTimeoutMs ?? 120_000;
    this.idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 3);
    this.retryBaseDelayMs = options.retryBaseDelayMs ?? 100;
  }

  /**
   * POSTs `payload` and yields the streamed events as parsed JSON, ending at `[DONE]` or at the
   * end of the body. Events arrive in batches: all those completed by one read from the socket,
   * so a fast stream costs one async step per read, not per event. An `{"error": …}` event is
   * thrown as an EngineError (after the events before it).
   */
  async *streamEvents(call: StreamCall): AsyncGenerator<unknown[], void, undefined> {
    if (call.signal.aborted) throw this.aborted(call.signal);
    const body = JSON.stringify(call.payload);
    const deadline = Date.now() + this.firstTokenTimeoutMs;
    for (let attempt = 1; ; attempt++) {
      let started = false;
      try {
        for await (const batch of this.attempt(call, body, deadline)) {
          started = true;
          yield batch;
        }
        return;
      } catch (error) {
        const retry =
          !started &&
          error instanceof EngineError &&
          error.retryable &&
          attempt < this.maxAttempts &&
          !call.signal.aborted;
        if (!retry) throw error;
        const delay = Math.min(this.retryBaseDelayMs * 2 ** (attempt - 1), 2_000);
        if (Date.now() + delay >= deadline) throw error;
        await sleep(delay, call.signal).catch(() => {
          throw this.aborted(call.signal);
        });
      }
    }
  }

  /** GET returning parsed JSON, for model lists and health. */
  async getJson(path: string, timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
    const text = await this.get(path, timeoutMs, signal);
    try {
      return JSON.parse(text);
    } catch {
      throw new EngineError('protocol', `${this.label} answered GET ${path} with invalid JSON`);
    }
  }

  /** GET returning the body text of a 2xx answer. */
  async get(path: string, timeoutMs: number, signal?: AbortSignal): Promise<string> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const onAbort = (): void => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const response = await this.pool.request({
        path: this.basePath + path,
        method: 'GET',
        headers: this.headers.authorization ? { authorization: this.headers.authorization } : {},
        signal: controller.signal,
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      const text = await readLimited(response.body, ERROR_BODY_LIMIT * 16);
      if (response.statusCode < 200 || response.statusCode >= 300) {
        throw engineErrorFromStatus(response.statusCode, engineErrorMessage(text), this.label);
      }
      return text;
    } catch (error) {
      if (error instanceof EngineError) throw error;
      if (signal?.aborted) throw this.aborted(signal);
      if (controller.signal.aborted) {
        throw new EngineError('timeout', `${this.label} did not answer GET ${path} within ${timeoutMs} ms`, { cause: error });
      }
      throw this.networkError(error, false);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }

  private async *attempt(call: StreamCall, body: string, deadline: number): AsyncGenerator<unknown[], void, undefined> {
    const controller = new AbortController();
    const onAbort = (): void => controller.abort();
    call.signal.addEventListener('abort', onAbort, { once: true });
    let timedOut: 'first' | 'idle' | undefined;
    let streaming = false; // an event arrived: the idle clock applies from now on
    let waiting = true; // we are waiting on the engine, not on our consumer
    let waitStart = 0;
    let done = false;
    const checkIdle = (): void => {
      if (waiting) {
        const silent = Date.now() - waitStart;
        if (silent >= this.idleTimeoutMs) {
          timedOut = 'idle';
          controller.abort();
          return;
        }
        timer = setTimeout(checkIdle, this.idleTimeoutMs - silent);
      } else {
        timer = setTimeout(checkIdle, this.idleTimeoutMs);
      }
    };
    let timer = setTimeout(() => {
      timedOut = 'first';
      controller.abort();
    }, Math.max(0, deadline - Date.now()));
    try {
      const headers = call.requestId ? { ...this.headers, 'x-request-id': call.requestId } : this.headers;
      const response = await this.pool.request({
        path: this.basePath + call.path,
        method: 'POST',
        headers,
        body,
        signal: controller.signal,
        // Our own timers decide: undici's would fire while a slow consumer holds the stream.
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      if (response.statusCode !== 200) {
        const text = await readLimited(response.body, ERROR_BODY_LIMIT);
        throw engineErrorFromStatus(response.statusCode, engineErrorMessage(text), this.label);
      }
      const contentType = String(response.headers['content-type'] ?? '');
      if (contentType.startsWith('application/json')) {
        const text = await readLimited(response.body, ERROR_BODY_LIMIT);
        const message = engineErrorMessage(text);
        throw new EngineError('protocol', `${this.label} answered with JSON instead of an event stream${message ? `: ${message}` : ''}`);
      }
      const parser = new SseParser();
      let received = 0;
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        waiting = false;
        received += chunk.length;
        if (done) continue; // drain to the end so the connection can be reused
        const events = parser.push(chunk);
        if (events.length === 0) continue;
        const batch: unknown[] = [];
        let failure: unknown;
        for (let i = 0; i < events.length; i++) {
          const data = events[i]!;
          if (data === '[DONE]') {
            done = true;
            break;
          }
          try {
            batch.push(parseEvent(data, this.label));
          } catch (error) {
            failure = error;
            break;
          }
          if (!streaming) {
            // The stream's first event goes on alone, before the rest of its read is parsed:
            // a fast engine's first read can hold the whole answer (time to first token).
            streaming = true;
            clearTimeout(timer);
            timer = setTimeout(checkIdle, this.idleTimeoutMs);
            yield batch.splice(0);
          }
        }
        if (batch.length > 0) {
          if (!streaming) {
            streaming = true;
            clearTimeout(timer);
            timer = setTimeout(checkIdle, this.idleTimeoutMs);
          }
          yield batch;
        }
        if (failure !== undefined) throw failure;
        waiting = true;
        waitStart = Date.now();
      }
      parser.end();
      if (!done && !streaming && received > 0) {
        throw new EngineError('protocol', `${this.label} answered with something that is not an event stream`);
      }
    } catch (error) {
      // After [DONE] the answer is complete; a stall or reset while draining does not matter.
      if (done) return;
      throw this.classify(error, call.signal, timedOut, streaming);
    } finally {
      clearTimeout(timer);
      call.signal.removeEventListener('abort', onAbort);
      // Left early (consumer stopped, error): closing the connection is what makes vLLM stop.
      if (!done) controller.abort();
    }
  }

  private classify(error: unknown, signal: AbortSignal, timedOut: 'first' | 'idle' | undefined, streaming: boolean): EngineError {
    if (error instanceof EngineError) return error;
    if (timedOut === 'first') {
      return new EngineError('timeout', `${this.label} produced no output within ${this.firstTokenTimeoutMs} ms`, { cause: error });
    }
    if (timedOut === 'idle') {
      return new EngineError('timeout', `${this.label} stalled: no data for ${this.idleTimeoutMs} ms`, { cause: error });
    }
    if (signal.aborted) return this.aborted(signal);
    if (error instanceof SseProtocolError) {
      return new EngineError('protocol', `${this.label} sent an invalid event stream: ${error.message}`, { cause: error });
    }
    return this.networkError(error, streaming);
  }

  private networkError(error: unknown, streaming: boolean): EngineError {
    const code = errorCode(error);
    const detail = error instanceof Error ? error.message : String(error);
    if (streaming) {
      return new EngineError('server_error', `${this.label} broke the stream mid-way (${code ?? detail})`, { cause: error });
    }
    if (code === 'ECONNREFUSED') {
      return new EngineError('unavailable', `${this.label} refused the connection`, { cause: error });
    }
    if (code !== undefined && NETWORK_CODES.has(code)) {
      return new EngineError('unavailable', `${this.label} is unreachable (${code}: ${detail})`, { cause: error });
    }
    return new EngineError('server_error', `${this.label} request failed: ${detail}`, { cause: error });
  }

  private aborted(signal: AbortSignal): EngineError {
    return new EngineError('aborted', `the request to ${this.label} was aborted`, { cause: signal.reason });
  }
}

function parseEvent(data: string, label: string): unknown {
  let event: unknown;
  try {
    event = JSON.parse(data);
  } catch {
    const shown = data.length > 200 ? `${data.slice(0, 200)}…` : data;
    throw new EngineError('protocol', `${label} sent an event that is not JSON: ${JSON.stringify(shown)}`);
  }
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    throw new EngineError('protocol', `${label} sent an event that is not a JSON object`);
  }
  const record = event as Record<string, unknown>;
  // vLLM reports failures inside the stream as `{"error": {...}}` (older: `{"object": "error", ...}`).
  if (record.error !== undefined && record.error !== null) {
    throw streamedError(record.error, label);
  }
  if (record.object === 'error') throw streamedError(record, label);
  return event;
}

function streamedError(value: unknown, label: string): EngineError {
  const record = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const message = typeof record.message === 'string' ? record.message : typeof value === 'string' ? value : '';
  const code = typeof record.code === 'number' && record.code >= 400 && record.code < 600 ? record.code : 500;
  return engineErrorFromStatus(code, message, `${label} (mid-stream)`);
}

function errorCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

async function readLimited(body: AsyncIterable<Buffer> & { destroy?: () => void }, limit: number): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size < limit) parts.push(chunk.subarray(0, limit - size));
    size += chunk.length;
    if (size >= limit) break;
  }
  return Buffer.concat(parts).toString('utf8');
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
