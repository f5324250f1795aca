/**
 * Engines that misbehave on purpose (local node:http servers on 127.0.0.1): every failure must
 * surface as a typed EngineError, quickly, without crashing or hanging.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChatCompletionsEngine } from '../../src/engine/chat/chat-engine';
import type { ChatDelta, GenerateChunk } from '../../src/engine/engine';
import { EngineError, type EngineErrorKind } from '../../src/engine/engine-error';
import { VllmEngine, type VllmEngineOptions } from '../../src/engine/vllm/vllm-engine';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface FakeEngine {
  url: string;
  /** Requests received by the generation endpoints. */
  posts: number;
  /** Resolves when a generation request's connection was closed by the client. */
  closed: Promise<void>;
  server: Server;
}

const servers: Server[] = [];
const engines: { close(): Promise<void> }[] = [];

async function fakeEngine(handler: Handler): Promise<FakeEngine> {
  let markClosed: () => void = () => undefined;
  const fake: FakeEngine = {
    url: '',
    posts: 0,
    closed: new Promise<void>((resolve) => (markClosed = resolve)),
    server: createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        if (req.method === 'POST') {
          fake.posts++;
          res.on('close', () => {
            if (!res.writableFinished) markClosed();
          });
        }
        handler(req, res, body);
      });
    }),
  };
  servers.push(fake.server);
  await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
  return fake;
}

function vllm(url: string, options: Partial<VllmEngineOptions> = {}): VllmEngine {
  const engine = new VllmEngine({
    url,
    model: 'test-model',
    firstTokenTimeoutMs: 1_000,
    idleTimeoutMs: 300,
    maxAttempts: 3,
    retryBaseDelayMs: 10,
    ...options,
  });
  engines.push(engine);
  return engine;
}

function request(signal = new AbortController().signal) {
  return { promptTokens: [1, 2, 3], maxTokens: 50, stopTokenIds: [200002, 200012], signal };
}

function sse(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
}

function chunk(tokenIds: number[], finish: string | null = null): string {
  return `data: ${JSON.stringify({ choices: [{ index: 0, text: '', token_ids: tokenIds, finish_reason: finish }] })}\n\n`;
}

async function collect(iterable: AsyncIterable<GenerateChunk>): Promise<{ chunks: GenerateChunk[]; error?: EngineError }> {
  const chunks: GenerateChunk[] = [];
  try {
    for await (const c of iterable) chunks.push(c);
    return { chunks };
  } catch (error) {
    if (!(error instanceof EngineError)) throw error;
    return { chunks, error };
  }
}

async function expectKind(iterable: AsyncIterable<GenerateChunk>, kind: EngineErrorKind): Promise<{ chunks: GenerateChunk[]; error: EngineError }> {
  const result = await collect(iterable);
  expect(result.error?.kind).toBe(kind);
  return result as { chunks: GenerateChunk[]; error: EngineError };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()));
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

jest.setTimeout(10_000);

describe('vLLM engine against misbehaving servers', () => {
  it('connection refused → unavailable (503)', async () => {
    const engine = vllm(`http://127.0.0.1:${await freePort()}`);
    const { error } = await expectKind(engine.generate(request()), 'unavailable');
    expect(error.status).toBe(503);
    expect(error.message).toMatch(/refused/);
  });

  it('prompt longer than the context (vLLM 400) → context_length_exceeded, not retried', async () => {
    const message =
      "This model's maximum context length is 128 tokens. However, you requested 300 tokens (250 in the messages, 50 in the completion). Please reduce the length of the messages or completion.";
    const fake = await fakeEngine((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message, type: 'BadRequestError', param: null, code: 400 } }));
    });
    const { error } = await expectKind(vllm(fake.url).generate(request()), 'context_length_exceeded');
    expect(error).toMatchObject({ status: 400, engineStatus: 400, message });
    expect(fake.posts).toBe(1);
  });

  it('other 400 (older flat error body) → bad_request with the engine message', async () => {
    const fake = await fakeEngine((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'error', message: 'top_p must be in (0, 1]', type: 'BadRequestError', code: 400 }));
    });
    const { error } = await expectKind(vllm(fake.url).generate(request()), 'bad_request');
    expect(error.message).toContain('top_p must be in (0, 1]');
  });

  it('500 → server_error (502), not retried', async () => {
    const fake = await fakeEngine((_req, res) => {
      res.writeHead(500);
      res.end('Internal Server Error');
    });
    const { error } = await expectKind(vllm(fake.url).generate(request()), 'server_error');
    expect(error.status).toBe(502);
    expect(fake.posts).toBe(1);
  });

  it('503 is retried a bounded number of times, then unavailable', async () => {
    const fake = await fakeEngine((_req, res) => {
      res.writeHead(503);
      res.end('loading');
    });
    await expectKind(vllm(fake.url).generate(request()), 'unavailable');
    expect(fake.posts).toBe(3);
  });

  it('503 then a good stream: the retry is invisible to the caller', async () => {
    const fake = await fakeEngine((_req, res) => {
      if (fake.posts === 1) {
        res.writeHead(503);
        res.end();
        return;
      }
      sse(res);
      res.end(chunk([10, 11]) + chunk([200002], 'stop') + 'data: [DONE]\n\n');
    });
    const { chunks, error } = await collect(vllm(fake.url).generate(request()));
    expect(error).toBeUndefined();
    expect(chunks.flatMap((c) => c.tokenIds)).toEqual([10, 11, 200002]);
    expect(fake.posts).toBe(2);
  });

  it('a connection reset before any answer is retried, then unavailable', async () => {
    const fake = await fakeEngine((req) => req.socket.destroy());
    const { error } = await expectKind(vllm(fake.url).generate(request()), 'unavailable');
    expect(error.message).toMatch(/unreachable|refused/);
    expect(fake.posts).toBe(3);
  });

  it('a stream that breaks mid-way → server_error after the tokens already sent; no retry', async () => {
    const fake = await fakeEngine((_req, res) => {
      sse(res);
      res.write(chunk([5, 6]));
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const { chunks, error } = await expectKind(vllm(fake.url).generate(request()), 'server_error');
    expect(chunks.flatMap((c) => c.tokenIds)).toEqual([5, 6]);
    expect(error.message).toMatch(/broke the stream/);
    expect(fake.posts).toBe(1);
  });

  it('a stream that ends cleanly without finishing → server_error', async () => {
    const fake = await fakeEngine((_req, res) => {
      sse(res);
      res.end(chunk([5, 6]));
    });
    const { error } = await expectKind(vllm(fake.url).generate(request()), 'server_error');
    expect(error.message).toMatch(/before generation finished/);
  });

  it('no first token in time → timeout (504), and the connection is closed', async () => {
    const fake = await fakeEngine((_req, res) => sse(res)); // headers, then silence
    const started = Date.now();
    const { error } = await expectKind(vllm(fake.url, { firstTokenTimeoutMs: 200 }).generate(request()), 'timeout');
    expect(error.status).toBe(504);
    expect(Date.now() - started).toBeLessThan(3_000);
    await fake.closed;
  });

  it('a stall mid-stream → timeout after the idle limit, and the connection is closed', async () => {
    const fake = await fakeEngine((_req, res) => {
      sse(res);
      res.write(chunk([7]));
    });
    const { chunks, error } = await expectKind(vllm(fake.url, { idleTimeoutMs: 150 }).generate(request()), 'timeout');
    expect(chunks.flatMap((c) => c.tokenIds)).toEqual([7]);
    expect(error.message).toMatch(/stalled/);
    await fake.closed;
  });

  it('a slow consumer is not mistaken for a stalled engine', async () => {
    const fake = await fakeEngine((_req, res) => {
      sse(res);
      res.end(chunk([1]) + chunk([2]) + chunk([200002], 'stop') + 'data: [DONE]\n\n');
    });
    const ids: number[] = [];
    for await (const c of vllm(fake.url, { idleTimeoutMs: 100 }).generate(request())) {
      ids.push(...c.tokenIds);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(ids).toEqual([1, 2, 200002]);
  });

  it('a stall after the finish chunk only loses the usage', async () => {
    const fake = await fakeEngine((_req, res) => {
      sse(res);
      res.write(chunk([1, 200012], 'stop'));
    });
    const { chunks, error } = await collect(vllm(fake.url, { idleTimeoutMs: 100 }).generate(request()));
    expect(error).toBeUndefined();
    expect(chunks.at(-1)).toEqual({ tokenIds: [1, 200012], finishReason: 'stop', stopTokenId: 200012 });
  });

  it.each([
    ['non-JSON data', 'data: {not json\n\n'],
    ['token ids that are not numbers', `data: ${JSON.stringify({ choices: [{ token_ids: ['a'] }] })}\n\n`],
    ['choices that is not a list', `data: ${JSON.stringify({ choices: 'x' })}\n\n`],
    ['a chunk with neither ids nor text', `data: ${JSON.stringify({ choices: [{ index: 0 }] })}\n\n`],
    ['bytes that are not an event stream', '<html><body>502 Bad Gateway</body></html>\n'],
  ])('garbage (%s) → protocol', async (_name, payload) => {
    const fake = await fakeEngine((_req, res) => {
      sse(res);
      res.end(payload);
    });
    const { error } = await expectKind(vllm(fake.url).generate(request()), 'protocol');
    expect(error.status).toBe(502);
  });

  it('an endless line without a newline → protocol, not unbounded memory', async () => {
    const fake = await fakeEngine((_req, res) => {
      sse(res);
      const junk = 'x'.repeat(1024 * 1024);
      let sent = 0;
      const pump = (): void => {
        while (sent < 12 && res.write(junk)) sent++;
        if (sent < 12) res.once('drain', pump);
        else res.end();
      };
      pump();
    });
    await expectKind(vllm(fake.url).generate(request()), 'protocol');
  });

  it('a JSON body instead of an event stream → protocol', async () => {
    const fake = await fakeEngine((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ text: 'hi', token_ids: [1] }] }));
    });
    await expectKind(vllm(fake.url).generate(request()), 'protocol');
  });

  it('an error event inside the stream → server_error carrying its message', async () => {
    const fake = await fakeEngine((_req, res) => {
      sse(res);
      res.end(chunk([1]) + `data: ${JSON.stringify({ error: { message: 'CUDA out of memory', type: 'InternalServerError', code: 500 } })}\n\ndata: [DONE]\n\n`);
    });
    const { error } = await expectKind(vllm(fake.url).generate(request()), 'server_error');
    expect(error.message).toContain('CUDA out of memory');
  });

  it('finish_reason "error" → server_error', async () => {
    const fake = await fakeEngine((_req, res) => {
      sse(res);
      res.end(chunk([1], 'error') + 'data: [DONE]\n\n');
    });
    await expectKind(vllm(fake.url).generate(request()), 'server_error');
  });

  it('the caller aborting → aborted, and the engine sees the connection close', async () => {
    const fake = await fakeEngine((_req, res) => {
      sse(res);
      const timer = setInterval(() => res.write(chunk([9])), 10);
      res.on('close', () => clearInterval(timer));
    });
    const controller = new AbortController();
    const chunks: GenerateChunk[] = [];
    const run = collect(
      (async function* () {
        for await (const c of vllm(fake.url).generate(request(controller.signal))) {
          chunks.push(c);
          if (chunks.length === 3) controller.abort(new Error('client went away'));
          yield c;
        }
      })(),
    );
    const { error } = await run;
    expect(error?.kind).toBe('aborted');
    await fake.closed;
  });

  it('an already-aborted signal fails at once without calling the engine', async () => {
    const fake = await fakeEngine((_req, res) => res.end());
    const controller = new AbortController();
    controller.abort();
    await expectKind(vllm(fake.url).generate(request(controller.signal)), 'aborted');
    expect(fake.posts).toBe(0);
  });

  it('a health check of a dead engine says down instead of throwing', async () => {
    const engine = vllm(`http://127.0.0.1:${await freePort()}`);
    await expect(engine.health()).resolves.toMatchObject({ up: false });
    await expect(engine.contextLength()).rejects.toMatchObject({ kind: 'unavailable' });
  });

  it('a model list without data → protocol', async () => {
    const fake = await fakeEngine((_req, res) => res.end('{"models": []}'));
    await expect(vllm(fake.url).contextLength()).rejects.toMatchObject({ kind: 'protocol' });
  });
});

describe('chat engine against misbehaving servers', () => {
  function chat(url: string): ChatCompletionsEngine {
    const engine = new ChatCompletionsEngine({ url, model: 'm', firstTokenTimeoutMs: 500, idleTimeoutMs: 200, retryBaseDelayMs: 10 });
    engines.push(engine);
    return engine;
  }

  async function run(engine: ChatCompletionsEngine): Promise<{ deltas: ChatDelta[]; error?: EngineError }> {
    const deltas: ChatDelta[] = [];
    try {
      for await (const d of engine.chat({ messages: [{ role: 'user', content: 'hi' }], signal: new AbortController().signal })) deltas.push(d);
      return { deltas };
    } catch (error) {
      if (!(error instanceof EngineError)) throw error;
      return { deltas, error };
    }
  }

  it('context length 400 → context_length_exceeded', async () => {
    const fake = await fakeEngine((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: "This model's maximum context length is 10 tokens. However, your request has 99 input tokens.", code: 400 } }));
    });
    expect((await run(chat(fake.url))).error?.kind).toBe('context_length_exceeded');
  });

  it('garbage → protocol; a stall → timeout; a break → server_error', async () => {
    const garbage = await fakeEngine((_req, res) => {
      sse(res);
      res.end('data: {"choices":[{"delta":{"tool_calls":"nope"}}]}\n\n');
    });
    expect((await run(chat(garbage.url))).error?.kind).toBe('protocol');

    const stall = await fakeEngine((_req, res) => {
      sse(res);
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'a' }, finish_reason: null }] })}\n\n`);
    });
    const stalled = await run(chat(stall.url));
    expect(stalled.error?.kind).toBe('timeout');
    expect(stalled.deltas).toEqual([{ content: 'a' }]);

    const broken = await fakeEngine((_req, res) => {
      sse(res);
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'a' }, finish_reason: null }] })}\n\n`);
      setTimeout(() => res.socket?.destroy(), 20);
    });
    expect((await run(chat(broken.url))).error?.kind).toBe('server_error');
  });

  it('reads newer vLLM\'s `reasoning` field and legacy finish reasons', async () => {
    const fake = await fakeEngine((_req, res) => {
      sse(res);
      const delta = (d: object, finish: string | null = null): string =>
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: d, finish_reason: finish }] })}\n\n`;
      res.end(
        delta({ role: 'assistant', content: '' }) +
          delta({ reasoning: 'think' }) +
          delta({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a"' } }] }) +
          delta({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }) +
          delta({}, 'function_call') +
          `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } })}\n\n` +
          'data: [DONE]\n\n',
      );
    });
    const { deltas, error } = await run(chat(fake.url));
    expect(error).toBeUndefined();
    expect(deltas).toEqual([
      { reasoning: 'think' },
      { toolCalls: [{ index: 0, id: 'c1', name: 'f', argumentsDelta: '{"a"' }] },
      { toolCalls: [{ index: 0, argumentsDelta: ':1}' }] },
      { finishReason: 'tool_calls', usage: { promptTokens: 3, completionTokens: 4 } },
    ]);
  });
});
