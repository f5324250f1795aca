import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EngineError } from '../engine-error';
import type { ChatDelta, GenerateChunk } from '../engine';
import { SimScriptError, type SimScriptInput } from './sim-scripts';
import {
  ChunkText,
  CompletionChunkWriter,
  WireError,
  chatDeltaWire,
  logprobsWire,
  parseChatRequest,
  parseCompletionRequest,
  usageWire,
  type ChatWireRequest,
  type CompletionWireRequest,
} from './sim-wire';
import { SimulatedEngine, type SimulatedEngineOptions } from './simulated-engine';

export interface SimServerOptions extends SimulatedEngineOptions {
  /** 0 picks a free port. */
  port?: number;
  host?: string;
  /** Serve this engine (its scripts and stats) instead of a new one. */
  engine?: SimulatedEngine;
}

const BODY_LIMIT = 64 * 1024 * 1024;
const FLUSH_BYTES = 64 * 1024;

/**
 * The simulated engine as a standalone HTTP server speaking vLLM's protocol: `/v1/completions`
 * (token ids in and out, SSE or JSON), `/v1/chat/completions`, `/v1/models` (with
 * `max_model_len`) and `/health`, plus test controls under `/sim/` (scripts, stats, requests).
 * See ./README.md for the rules and the endpoints.
 */
export class SimServer {
  readonly engine: SimulatedEngine;
  private readonly server: Server;
  private nextId = 1;

  constructor(private readonly options: SimServerOptions = {}) {
    this.engine = options.engine ?? new SimulatedEngine(options);
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) sendError(res, 500, `simulated engine failure: ${String(error)}`, 'InternalServerError');
        else res.destroy();
      });
    });
    this.server.keepAliveTimeout = 65_000;
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    return this.url;
  }

  get url(): string {
    const address = this.server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `http://${host}:${address.port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sim');
    const route = `${req.method} ${url.pathname}`;
    switch (route) {
      case 'GET /health':
        res.writeHead(200).end();
        return;
      case 'GET /v1/models':
        return sendJson(res, 200, this.models());
      case 'POST /v1/completions':
        return this.completions(req, res);
      case 'POST /v1/chat/completions':
        return this.chatCompletions(req, res);
      case 'POST /sim/scripts':
        return this.addScript(req, res);
      case 'GET /sim/scripts':
        return sendJson(res, 200, { data: this.engine.scripts.list().map(scriptView) });
      case 'DELETE /sim/scripts': {
        const match = url.searchParams.get('match');
        if (!match) return sendError(res, 400, 'give ?match=MARKER, or DELETE /sim/scripts/{id}', 'BadRequestError');
        return sendJson(res, 200, { removed: this.engine.scripts.removeMatching(match) });
      }
      case 'GET /sim/stats':
        return sendJson(res, 200, this.engine.stats.snapshot());
      case 'GET /sim/requests':
        return this.requests(url, res);
      default:
        if (req.method === 'DELETE' && url.pathname.startsWith('/sim/scripts/')) {
          const removed = this.engine.scripts.remove(decodeURIComponent(url.pathname.slice('/sim/scripts/'.length)));
          return removed ? void res.writeHead(204).end() : sendError(res, 404, 'no such script', 'NotFoundError');
        }
        return sendError(res, 404, `no route ${route}`, 'NotFoundError');
    }
  }

  private models(): object {
    return {
      object: 'list',
      data: [
        {
          id: this.engine.model,
          object: 'model',
          created: 0,
          owned_by: 'responses-gateway-simulated',
          root: this.engine.model,
          parent: null,
          max_model_len: this.engine.contextWindow,
        },
      ],
    };
  }

  private async completions(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const wire = await this.parse(req, res, (body) => parseCompletionRequest(body, this.engine.codec));
    if (!wire) return;
    const controller = this.abortOnClose(res);
    const chunks = this.engine.generate({
      promptTokens: wire.promptTokens,
      maxTokens: wire.maxTokens,
      stopTokenIds: wire.stopTokenIds,
      ...(wire.structuredOutput ? { structuredOutput: wire.structuredOutput } : {}),
      signal: controller.signal,
    });
    const first = await this.first(chunks, res);
    if (!first) return;
    const id = `cmpl-sim-${this.nextId++}`;
    const created = Math.floor(Date.now() / 1000);
    if (wire.stream) return this.streamCompletion(wire, res, chunks, first, id, created);
    const all: GenerateChunk[] = [];
    for await (const chunk of iterate(chunks, first)) all.push(chunk); // iterate() yields `first` too
    const tokenIds = all.flatMap((c) => c.tokenIds);
    const last = all.at(-1)!;
    const stopped = last.stopTokenId !== undefined;
    sendJson(res, 200, {
      id,
      object: 'text_completion',
      created,
      model: this.engine.model,
      choices: [
        {
          index: 0,
          text: new ChunkText(this.engine.codec, wire.skipSpecialTokens).next(tokenIds, stopped),
          logprobs: null,
          finish_reason: last.finishReason,
          stop_reason: last.stopTokenId ?? null,
          token_ids: wire.returnTokenIds ? tokenIds : null,
          prompt_token_ids: wire.returnTokenIds ? wire.promptTokens : null,
        },
      ],
      usage: last.usage ? usageWire(last.usage) : null,
    });
  }

  private async streamCompletion(
    wire: CompletionWireRequest,
    res: ServerResponse,
    chunks: AsyncGenerator<GenerateChunk, void, undefined>,
    first: GenerateChunk,
    id: string,
    created: number,
  ): Promise<void> {
    const out = new SseOut(res);
    const writer = new CompletionChunkWriter(id, created, this.engine.model);
    const text = new ChunkText(this.engine.codec, wire.skipSpecialTokens);
    let promptIds: readonly number[] | null = wire.returnTokenIds ? wire.promptTokens : null;
    try {
      for await (const chunk of iterate(chunks, first)) {
        const stopped = chunk.stopTokenId !== undefined;
        out.push(
          writer.chunk(
            text.next(chunk.tokenIds, stopped),
            wire.returnTokenIds ? chunk.tokenIds : null,
            promptIds,
            chunk.finishReason ?? null,
            chunk.stopTokenId ?? null,
          ),
        );
        promptIds = null;
        if (chunk.usage && wire.includeUsage) out.push(writer.usage(id, created, this.engine.model, chunk.usage));
        if (out.blocked) await out.drained();
        if (out.closed) return;
      }
      out.end('data: [DONE]\n\n');
    } catch (error) {
      out.fail(error);
    }
  }

  private async chatCompletions(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const wire = await this.parse(req, res, parseChatRequest);
    if (!wire) return;
    const controller = this.abortOnClose(res);
    const deltas = this.engine.chat({
      messages: wire.messages,
      ...(wire.tools ? { tools: wire.tools } : {}),
      ...(wire.toolChoice !== undefined ? { toolChoice: wire.toolChoice } : {}),
      ...(wire.maxTokens !== undefined ? { maxTokens: wire.maxTokens } : {}),
      ...(wire.topLogprobs !== undefined ? { topLogprobs: wire.topLogprobs } : {}),
      ...(wire.structuredOutput ? { structuredOutput: wire.structuredOutput } : {}),
      signal: controller.signal,
    });
    const first = await this.first(deltas, res);
    if (!first) return;
    const id = `chatcmpl-sim-${this.nextId++}`;
    const created = Math.floor(Date.now() / 1000);
    if (wire.stream) return this.streamChat(wire, res, deltas, first, id, created);
    const all: ChatDelta[] = [];
    for await (const delta of iterate(deltas, first)) all.push(delta); // iterate() yields `first` too
    sendJson(res, 200, chatCompletion(all, id, created, this.engine.model, wire));
  }

  private async streamChat(
    wire: ChatWireRequest,
    res: ServerResponse,
    deltas: AsyncGenerator<ChatDelta, void, undefined>,
    first: ChatDelta,
    id: string,
    created: number,
  ): Promise<void> {
    const out = new SseOut(res);
    const head = `data: {"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${created},"model":${JSON.stringify(this.engine.model)},"choices":`;
    out.push(`${head}[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}\n\n`);
    try {
      for await (const delta of iterate(deltas, first)) {
        const choice = { index: 0, delta: chatDeltaWire(delta), logprobs: logprobsWire(delta.logprobs), finish_reason: delta.finishReason ?? null };
        out.push(`${head}${JSON.stringify([choice])}}\n\n`);
        if (delta.usage && wire.includeUsage) out.push(`${head}[],"usage":${JSON.stringify(usageWire(delta.usage))}}\n\n`);
        if (out.blocked) await out.drained();
        if (out.closed) return;
      }
      out.end('data: [DONE]\n\n');
    } catch (error) {
      out.fail(error);
    }
  }

  private async addScript(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJson(req, res);
    if (body === undefined) return;
    try {
      sendJson(res, 201, scriptView(this.engine.scripts.add(body as unknown as SimScriptInput)));
    } catch (error) {
      if (!(error instanceof SimScriptError)) throw error;
      sendError(res, 400, error.message, 'BadRequestError');
    }
  }

  /** `?contains=MARKER` filters; `&status=S&waitMs=N` waits up to N ms for a request in status S. */
  private async requests(url: URL, res: ServerResponse): Promise<void> {
    const marker = url.searchParams.get('contains') ?? undefined;
    const status = url.searchParams.get('status');
    const waitMs = Math.min(Number(url.searchParams.get('waitMs') ?? 0) || 0, 30_000);
    if (status && waitMs > 0) {
      await this.engine.stats.waitFor(marker ?? '', (r) => r.status === status, waitMs).catch(() => undefined);
    }
    const data = this.engine.stats.requests(marker).filter((r) => !status || r.status === status);
    sendJson(res, 200, { data });
  }

  private async parse<T>(req: IncomingMessage, res: ServerResponse, parse: (body: Record<string, unknown>) => T): Promise<T | undefined> {
    const body = await readJson(req, res);
    if (body === undefined) return undefined;
    try {
      const wire = parse(body);
      const model = (wire as { model?: string }).model;
      if (model !== undefined && model !== this.engine.model) {
        sendError(res, 404, `The model \`${model}\` does not exist.`, 'NotFoundError', 'model');
        return undefined;
      }
      return wire;
    } catch (error) {
      if (!(error instanceof WireError)) throw error;
      sendError(res, error.status, error.message, 'BadRequestError', error.param);
      return undefined;
    }
  }

  /** Runs generation to its first chunk before answering, so a rejected request is still a JSON error. */
  private async first<T>(iterator: AsyncGenerator<T, void, undefined>, res: ServerResponse): Promise<T | undefined> {
    try {
      const result = await iterator.next();
      if (result.done) throw new Error('the simulated engine produced no chunk');
      return result.value;
    } catch (error) {
      if (error instanceof EngineError && error.kind === 'aborted') return undefined;
      if (error instanceof EngineError && (error.kind === 'context_length_exceeded' || error.kind === 'bad_request')) {
        sendError(res, 400, error.message, 'BadRequestError');
        return undefined;
      }
      throw error;
    }
  }

  /** A client closing the connection is how vLLM learns a request was abandoned. */
  private abortOnClose(res: ServerResponse): AbortController {
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort(new Error('client closed the connection'));
    });
    return controller;
  }
}

/** Iterates `iterator` after its already-taken first value; returning early closes it. */
async function* iterate<T>(iterator: AsyncGenerator<T, void, undefined>, first: T): AsyncGenerator<T, void, undefined> {
  try {
    yield first;
    for (let result = await iterator.next(); !result.done; result = await iterator.next()) yield result.value;
  } finally {
    await iterator.return();
  }
}

/**
 * Coalesces SSE events into few socket writes: events are queued and flushed on the next turn of
 * the event loop, or at once past FLUSH_BYTES. Honours backpressure and notices a closed client.
 */
class SseOut {
  private pending = '';
  private scheduled = false;
  closed = false;

  constructor(private readonly res: ServerResponse) {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    res.once('close', () => (this.closed = true));
  }

  push(event: string): void {
    if (this.closed) return;
    this.pending += event;
    if (this.pending.length >= FLUSH_BYTES) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  get blocked(): boolean {
    return this.res.writableNeedDrain;
  }

  drained(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
  }

  end(event: string): void {
    this.pending += event;
    this.flush();
    if (!this.closed) this.res.end();
  }

  /** An error after streaming started: vLLM's in-stream error event, then the end. */
  fail(error: unknown): void {
    if (this.closed || (error instanceof EngineError && error.kind === 'aborted')) {
      this.res.destroy();
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    this.end(`data: ${JSON.stringify({ error: { message, type: 'InternalServerError', param: null, code: 500 } })}\n\ndata: [DONE]\n\n`);
  }

  private flush(): void {
    this.scheduled = false;
    if (this.pending === '' || this.closed) return;
    this.res.write(this.pending);
    this.pending = '';
  }
}

function chatCompletion(deltas: ChatDelta[], id: string, created: number, model: string, wire: ChatWireRequest): object {
  let content = '';
  let reasoning = '';
  const calls: { id: string; type: 'function'; function: { name: string; arguments: string } }[] = [];
  const logprobs: NonNullable<ChatDelta['logprobs']> = [];
  for (const delta of deltas) {
    content += delta.content ?? '';
    reasoning += delta.reasoning ?? '';
    for (const call of delta.toolCalls ?? []) {
      calls[call.index] ??= { id: call.id ?? '', type: 'function', function: { name: call.name ?? '', arguments: '' } };
      calls[call.index]!.function.arguments += call.argumentsDelta;
    }
    if (delta.logprobs) logprobs.push(...delta.logprobs);
  }
  const last = deltas.at(-1)!;
  return {
    id,
    object: 'chat.completion',
    created,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: content === '' && calls.length > 0 ? null : content,
          reasoning_content: reasoning === '' ? null : reasoning,
          tool_calls: calls,
        },
        logprobs: wire.topLogprobs !== undefined ? logprobsWire(logprobs) : null,
        finish_reason: last.finishReason ?? 'stop',
      },
    ],
    usage: last.usage ? usageWire(last.usage) : null,
  };
}

function scriptView(script: { id: string; match: string; remaining: number; loop?: boolean }): object {
  return {
    id: script.id,
    match: script.match,
    remaining: Number.isFinite(script.remaining) ? script.remaining : 'unlimited',
    loop: script.loop ?? false,
  };
}

async function readJson(req: IncomingMessage, res: ServerResponse): Promise<Record<string, unknown> | undefined> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > BODY_LIMIT) {
      sendError(res, 413, `request body exceeds ${BODY_LIMIT} bytes`, 'BadRequestError');
      return undefined;
    }
    parts.push(chunk);
  }
  try {
    const body: unknown = JSON.parse(Buffer.concat(parts).toString('utf8'));
    if (typeof body === 'object' && body !== null && !Array.isArray(body)) return body as Record<string, unknown>;
  } catch {
    // answered below
  }
  sendError(res, 400, 'the request body must be a JSON object', 'BadRequestError');
  return undefined;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, message: string, type: string, param: string | null = null): void {
  sendJson(res, status, { error: { message, type, param, code: status } });
}
