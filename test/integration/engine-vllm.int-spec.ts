/**
 * The vLLM token engine against the simulated engine's HTTP server, over real HTTP on 127.0.0.1:
 * token ids in and out, stop tokens, max_tokens, abort, usage, the model list.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request as httpRequest } from 'undici';
import type { GenerateChunk, GenerateRequest } from '../../src/engine/engine';
import { EngineError } from '../../src/engine/engine-error';
import { SimServer } from '../../src/engine/simulated/sim-server';
import { VllmEngine } from '../../src/engine/vllm/vllm-engine';

const RETURN = 200002;
const CALL = 200012;
const CONTEXT = 4096;

let sim: SimServer;
let engine: VllmEngine;
let url: string;

beforeAll(async () => {
  sim = new SimServer({ port: 0, contextLength: CONTEXT });
  url = await sim.listen();
  engine = new VllmEngine({ url, firstTokenTimeoutMs: 5_000, idleTimeoutMs: 5_000 });
});

afterAll(async () => {
  await engine.close();
  await sim.close();
});

jest.setTimeout(15_000);

let markers = 0;
/** A marker unique to one test, so scripts and request records never collide. */
function marker(): string {
  return `MARK-${process.pid}-${++markers}-${Date.now()}`;
}

function prompt(text: string): number[] {
  return sim.engine.codec.encodeHarmony(text);
}

function userPrompt(user: string, developer = ''): number[] {
  const dev = developer ? `<|start|>developer<|message|>${developer}<|end|>` : '';
  return prompt(
    `<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.<|end|>${dev}<|start|>user<|message|>${user}<|end|><|start|>assistant`,
  );
}

function generate(promptTokens: number[], overrides: Partial<GenerateRequest> = {}): AsyncIterable<GenerateChunk> {
  return engine.generate({
    promptTokens,
    maxTokens: 1_000,
    stopTokenIds: [RETURN, CALL],
    signal: new AbortController().signal,
    ...overrides,
  });
}

async function collect(chunks: AsyncIterable<GenerateChunk>): Promise<{ ids: number[]; chunks: GenerateChunk[]; last: GenerateChunk }> {
  const all: GenerateChunk[] = [];
  for await (const chunk of chunks) all.push(chunk);
  return { ids: all.flatMap((c) => c.tokenIds), chunks: all, last: all.at(-1)! };
}

async function script(body: object): Promise<{ id: string }> {
  const res = await httpRequest(`${url}/sim/scripts`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  expect(res.statusCode).toBe(201);
  return (await res.body.json()) as { id: string };
}

async function requestsOf(mark: string, status?: string): Promise<{ status: string; outputTokens: number }[]> {
  const query = status ? `&status=${status}&waitMs=3000` : '';
  const res = await httpRequest(`${url}/sim/requests?contains=${encodeURIComponent(mark)}${query}`);
  return ((await res.body.json()) as { data: { status: string; outputTokens: number }[] }).data;
}

describe('vLLM engine ↔ simulated engine over HTTP', () => {
  it('learns the model id and the context length from /v1/models, and reports health', async () => {
    await expect(engine.modelId()).resolves.toBe('gpt-oss-simulated');
    await expect(engine.contextLength()).resolves.toBe(CONTEXT);
    await expect(engine.health()).resolves.toEqual({ up: true, model: 'gpt-oss-simulated', contextLength: CONTEXT });
  });

  it('streams the documented answer to a plain prompt as token ids, ending on <|return|>, with usage', async () => {
    const mark = marker();
    const promptTokens = userPrompt(`Hello ${mark}`);
    const { ids, last, chunks } = await collect(generate(promptTokens));
    expect(sim.engine.codec.decode(ids)).toBe(
      `<|channel|>analysis<|message|>The user wrote: "Hello ${mark}". I will answer.<|end|>` +
        `<|start|>assistant<|channel|>final<|message|>You said: Hello ${mark}<|return|>`,
    );
    expect(ids.at(-1)).toBe(RETURN);
    expect(last).toMatchObject({ finishReason: 'stop', stopTokenId: RETURN, usage: { promptTokens: promptTokens.length, completionTokens: ids.length } });
    // Exactly one chunk finishes, and it is the last.
    expect(chunks.filter((c) => c.finishReason !== undefined)).toHaveLength(1);
  });

  it('returns a scripted completion id for id', async () => {
    const mark = marker();
    const completion = prompt('<|channel|>final<|message|>exact<|return|>');
    await script({ match: mark, completion });
    const { ids } = await collect(generate(userPrompt(`say it ${mark}`)));
    expect(ids).toEqual(completion);
  });

  it('stops at the first requested stop token and not at others', async () => {
    const mark = marker();
    const text = '<|channel|>commentary to=functions.f <|constrain|>json<|message|>{}<|call|><|channel|>final<|message|>after<|return|>';
    await script({ match: mark, completion: text, times: 2 });
    const stopped = await collect(generate(userPrompt(mark)));
    expect(stopped.ids.at(-1)).toBe(CALL);
    expect(stopped.last).toMatchObject({ finishReason: 'stop', stopTokenId: CALL });
    expect(stopped.ids).toEqual(prompt(text.slice(0, text.indexOf('<|call|>') + '<|call|>'.length)));

    const onlyReturn = await collect(generate(userPrompt(mark), { stopTokenIds: [RETURN] }));
    expect(onlyReturn.ids).toEqual(prompt(text));
    expect(onlyReturn.last.stopTokenId).toBe(RETURN);
  });

  it('cuts at max_tokens with finish reason length', async () => {
    const { ids, last } = await collect(generate(userPrompt(`long ${marker()}`), { maxTokens: 5 }));
    expect(ids).toHaveLength(5);
    expect(last.finishReason).toBe('length');
    expect(last.stopTokenId).toBeUndefined();
    expect(last.usage?.completionTokens).toBe(5);
  });

  it('answers a function-tool prompt with a call to the function named by the user', async () => {
    const developer = `# Tools\n\n## functions\n\nnamespace functions {\n\n// Weather.\ntype get_weather = (_: {\nlocation: string,\nunit?: "c" | "f",\n}) => any;\n\n// Time.\ntype get_time = () => any;\n\n} // namespace functions`;
    const { ids, last } = await collect(generate(userPrompt(`Use get_weather for "Oslo" ${marker()}`, developer)));
    const text = sim.engine.codec.decode(ids);
    expect(text).toContain('<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"location":"Oslo"}<|call|>');
    expect(last.stopTokenId).toBe(CALL);
  });

  it('rejects a prompt that does not fit the context as context_length_exceeded', async () => {
    const promptTokens = userPrompt(`too long ${marker()}`);
    const error = await collect(generate(promptTokens, { maxTokens: CONTEXT })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect(error).toMatchObject({ kind: 'context_length_exceeded', status: 400 });
  });

  it('aborting the signal stops the stream and the engine sees the connection close', async () => {
    const mark = marker();
    await script({ match: mark, completion: 'tick ', loop: true, tokensPerSecond: 200 });
    const controller = new AbortController();
    let received = 0;
    const error = await (async () => {
      for await (const chunk of generate(userPrompt(mark), { maxTokens: 3_000, signal: controller.signal })) {
        received += chunk.tokenIds.length;
        if (received >= 3) controller.abort(new Error('client gone'));
      }
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'aborted' });
    const [record] = await requestsOf(mark, 'aborted');
    expect(record).toMatchObject({ status: 'aborted' });
    expect(record!.outputTokens).toBeLessThan(3_000);
  });

  it('breaking out of the loop also closes the connection', async () => {
    const mark = marker();
    await script({ match: mark, completion: 'tock ', loop: true, tokensPerSecond: 200 });
    for await (const chunk of generate(userPrompt(mark), { maxTokens: 3_000 })) {
      if (chunk.tokenIds.length > 0) break;
    }
    expect(await requestsOf(mark, 'aborted')).toHaveLength(1);
  });

  it('keeps parallel streams apart', async () => {
    const marks = Array.from({ length: 16 }, () => marker());
    const results = await Promise.all(marks.map((m) => collect(generate(userPrompt(`parallel ${m}`)))));
    results.forEach((result, i) => expect(sim.engine.codec.decode(result.ids)).toContain(`You said: parallel ${marks[i]}<|return|>`));
  });

  it('sends cache_salt and structured outputs the way vLLM expects them', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 3 } }, required: ['city', 'days'] };
    const { ids } = await collect(
      generate(userPrompt(`plan a trip ${marker()}`), { cacheSalt: 'tenant-a', structuredOutput: { type: 'json_schema', schema } }),
    );
    const final = sim.engine.codec.decode(ids).split('<|channel|>final<|message|>')[1]!.replace('<|return|>', '');
    expect(JSON.parse(final)).toMatchObject({ days: 3 });
  });

  describe('an engine that streams text without token ids', () => {
    let proxy: Server;
    let textOnly: VllmEngine;

    beforeAll(async () => {
      // Forwards to the simulated engine with return_token_ids switched off.
      proxy = createServer((req, res) => {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString('utf8')));
        req.on('end', async () => {
          const payload = body ? { ...(JSON.parse(body) as object), return_token_ids: false } : undefined;
          const upstream = await httpRequest(`${url}${req.url}`, {
            method: req.method as 'GET' | 'POST',
            ...(payload ? { body: JSON.stringify(payload), headers: { 'content-type': 'application/json' } } : {}),
          });
          res.writeHead(upstream.statusCode, { 'content-type': String(upstream.headers['content-type'] ?? 'text/plain') });
          for await (const chunk of upstream.body) res.write(chunk);
          res.end();
        });
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      textOnly = new VllmEngine({ url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, model: 'gpt-oss-simulated' });
    });

    afterAll(async () => {
      await textOnly.close();
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    });

    it('re-encodes the text with special tokens recognised, and restores the stop token', async () => {
      const mark = marker();
      const promptTokens = userPrompt(`Héllo 💖 ${mark}`);
      const viaIds = await collect(generate(promptTokens));
      const chunks: GenerateChunk[] = [];
      for await (const chunk of textOnly.generate({ promptTokens, maxTokens: 1_000, stopTokenIds: [RETURN, CALL], signal: new AbortController().signal })) {
        chunks.push(chunk);
      }
      const ids = chunks.flatMap((c) => c.tokenIds);
      const codec = sim.engine.codec;
      expect(codec.decode(ids)).toBe(codec.decode(viaIds.ids));
      expect(ids.filter((id) => codec.isSpecial(id))).toEqual(viaIds.ids.filter((id) => codec.isSpecial(id)));
      expect(ids.at(-1)).toBe(RETURN);
      expect(chunks.at(-1)).toMatchObject({ finishReason: 'stop', stopTokenId: RETURN });
    });
  });
});
