/**
 * The simulated engine's own HTTP surface, read with a plain HTTP client: vLLM-shaped chunks and
 * non-streaming answers, test controls, errors.
 */
import { request } from 'undici';
import { SimServer } from '../../src/engine/simulated/sim-server';

let sim: SimServer;
let url: string;

beforeAll(async () => {
  sim = new SimServer({ port: 0, contextLength: 2048 });
  url = await sim.listen();
});

afterAll(() => sim.close());

jest.setTimeout(15_000);

async function post(path: string, body: unknown): Promise<{ status: number; text: string; type: string }> {
  const res = await request(`${url}${path}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  return { status: res.statusCode, text: await res.body.text(), type: String(res.headers['content-type']) };
}

function events(text: string): string[] {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length));
}

interface CompletionChunk {
  id: string;
  object: string;
  model: string;
  choices: { text: string; token_ids: number[] | null; prompt_token_ids: number[] | null; finish_reason: string | null; stop_reason: number | null }[];
  usage: { prompt_tokens: number; completion_tokens: number } | null;
}

const promptOf = (user: string): number[] =>
  sim.engine.codec.encodeHarmony(`<|start|>user<|message|>${user}<|end|><|start|>assistant`);

describe('simulated engine HTTP server', () => {
  it('streams vLLM-shaped text_completion chunks, a usage chunk and [DONE]', async () => {
    const prompt = promptOf('shape check');
    const { status, text, type } = await post('/v1/completions', {
      model: 'gpt-oss-simulated',
      prompt,
      max_tokens: 200,
      stream: true,
      stream_options: { include_usage: true },
      return_token_ids: true,
      skip_special_tokens: false,
      stop_token_ids: [200002, 200012],
    });
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/event-stream/);
    const data = events(text);
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d) as CompletionChunk);
    const usage = chunks.pop()!;
    expect(usage).toMatchObject({ object: 'text_completion', choices: [], usage: { prompt_tokens: prompt.length } });
    expect(chunks[0]!.choices[0]!.prompt_token_ids).toEqual(prompt);
    expect(chunks[1]?.choices[0]!.prompt_token_ids ?? null).toBeNull();
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({ id: expect.stringMatching(/^cmpl-/), object: 'text_completion', model: 'gpt-oss-simulated' });
    }
    const ids = chunks.flatMap((c) => c.choices[0]!.token_ids ?? []);
    const last = chunks.at(-1)!.choices[0];
    expect(last).toMatchObject({ finish_reason: 'stop', stop_reason: 200002 });
    expect(usage.usage?.completion_tokens).toBe(ids.length);
    // `text` holds every token's text except the stop token's, special tokens included.
    const textJoined = chunks.map((c) => c.choices[0]!.text).join('');
    expect(textJoined).toBe(sim.engine.codec.decode(ids.slice(0, -1)));
    expect(textJoined).toContain('<|channel|>final<|message|>You said: shape check');
  });

  it('skips special tokens in text by default, like vLLM', async () => {
    const { text } = await post('/v1/completions', { prompt: promptOf('plain text'), max_tokens: 100, stream: true });
    const joined = events(text)
      .slice(0, -1)
      .map((d) => (JSON.parse(d) as { choices: { text: string; token_ids: null }[] }).choices[0]!)
      .map((c) => {
        expect(c.token_ids).toBeNull();
        return c.text;
      })
      .join('');
    expect(joined).not.toContain('<|');
    expect(joined).toContain('You said: plain text');
  });

  it('answers a non-streaming completion with token ids', async () => {
    const { status, text } = await post('/v1/completions', { prompt: promptOf('no stream'), max_tokens: 7, return_token_ids: true });
    expect(status).toBe(200);
    const body = JSON.parse(text) as { choices: { token_ids: number[]; finish_reason: string }[]; usage: { completion_tokens: number } };
    expect(body.choices[0]!.token_ids).toHaveLength(7);
    expect(body.choices[0]!.finish_reason).toBe('length');
    expect(body.usage.completion_tokens).toBe(7);
  });

  it('answers chat completions, streaming and not', async () => {
    const messages = [{ role: 'user', content: 'chat shape' }];
    const plain = JSON.parse((await post('/v1/chat/completions', { messages })).text) as { object: string; choices: { message: Record<string, unknown> }[] };
    expect(plain.object).toBe('chat.completion');
    expect(plain.choices[0]!.message).toMatchObject({ role: 'assistant', content: 'You said: chat shape', reasoning_content: expect.stringContaining('chat shape') });

    const streamed = events((await post('/v1/chat/completions', { messages, stream: true })).text);
    expect(streamed.at(-1)).toBe('[DONE]');
    const first = JSON.parse(streamed[0]!) as { object: string; choices: { delta: object }[] };
    expect(first).toMatchObject({ object: 'chat.completion.chunk', choices: [{ delta: { role: 'assistant', content: '' } }] });
  });

  it('lists the model with max_model_len, and reports health', async () => {
    const models = await request(`${url}/v1/models`);
    expect(await models.body.json()).toMatchObject({ object: 'list', data: [{ id: 'gpt-oss-simulated', max_model_len: 2048 }] });
    const health = await request(`${url}/health`);
    expect(health.statusCode).toBe(200);
    await health.body.dump();
  });

  it('rejects what vLLM rejects, with OpenAI-shaped errors', async () => {
    const tooLong = await post('/v1/completions', { prompt: promptOf('x'), max_tokens: 5000 });
    expect(tooLong.status).toBe(400);
    expect(JSON.parse(tooLong.text)).toMatchObject({ error: { message: expect.stringContaining('maximum context length is 2048'), code: 400 } });
    expect((await post('/v1/completions', { model: 'gpt-5', prompt: [1] })).status).toBe(404);
    expect((await post('/v1/completions', { prompt: [1], cache_salt: '' })).status).toBe(400);
    expect((await post('/v1/completions', { prompt: 'oops', stop_token_ids: 'x' })).status).toBe(400);
    expect((await post('/v1/chat/completions', { messages: [] })).status).toBe(400);
    expect((await post('/v1/nothing', {})).status).toBe(404);
    const garbage = await request(`${url}/v1/completions`, { method: 'POST', body: '{nope' });
    expect(garbage.statusCode).toBe(400);
    await garbage.body.dump();
  });

  it('manages scripts: add, list, use up, delete by id and by marker', async () => {
    const added = await post('/sim/scripts', { match: 'SCRIPT-A', completion: 'hi', times: 2 });
    expect(added.status).toBe(201);
    const { id } = JSON.parse(added.text) as { id: string };
    await post('/sim/scripts', { match: 'SCRIPT-B', completion: [1, 2, 3], times: 'unlimited' });
    const listed = (await (await request(`${url}/sim/scripts`)).body.json()) as { data: { id: string; match: string; remaining: unknown }[] };
    expect(listed.data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id, match: 'SCRIPT-A', remaining: 2 }),
        expect.objectContaining({ match: 'SCRIPT-B', remaining: 'unlimited' }),
      ]),
    );
    const used = JSON.parse((await post('/v1/completions', { prompt: promptOf('use SCRIPT-B'), return_token_ids: true })).text) as {
      choices: { token_ids: number[] }[];
    };
    expect(used.choices[0]!.token_ids).toEqual([1, 2, 3]);
    const del = await request(`${url}/sim/scripts/${id}`, { method: 'DELETE' });
    expect(del.statusCode).toBe(204);
    await del.body.dump();
    const again = await request(`${url}/sim/scripts/${id}`, { method: 'DELETE' });
    expect(again.statusCode).toBe(404);
    await again.body.dump();
    const byMarker = await request(`${url}/sim/scripts?match=SCRIPT-B`, { method: 'DELETE' });
    expect(await byMarker.body.json()).toEqual({ removed: 1 });
    expect((await post('/sim/scripts', { match: 'x' })).status).toBe(400);
  });

  it('counts requests and outcomes in /sim/stats and /sim/requests', async () => {
    const before = (await (await request(`${url}/sim/stats`)).body.json()) as { requests: number; completed: number };
    await post('/v1/completions', { prompt: promptOf('STATS-MARK'), max_tokens: 3 });
    const after = (await (await request(`${url}/sim/stats`)).body.json()) as { requests: number; completed: number };
    expect(after.requests).toBe(before.requests + 1);
    expect(after.completed).toBe(before.completed + 1);
    const records = (await (await request(`${url}/sim/requests?contains=STATS-MARK`)).body.json()) as { data: object[] };
    expect(records.data).toEqual([expect.objectContaining({ endpoint: 'completions', status: 'completed', outputTokens: 3, finishReason: 'length' })]);
  });

  it('paces tokens at the configured speed (TTFT and rate are honoured, never asserted tightly)', async () => {
    await post('/sim/scripts', { match: 'PACE-MARK', completion: 'a b c d e f g h i j', ttftMs: 100, tokensPerSecond: 100 });
    const started = Date.now();
    const { text } = await post('/v1/completions', { prompt: promptOf('PACE-MARK'), max_tokens: 10, stream: true, return_token_ids: true });
    const elapsed = Date.now() - started;
    const ids = events(text)
      .slice(0, -1)
      .flatMap((d) => (JSON.parse(d) as { choices: { token_ids: number[] }[] }).choices.flatMap((c) => c.token_ids));
    expect(ids).toHaveLength(10);
    // 100 ms to the first token, then 9 more at 10 ms each: at least ~190 ms in all.
    expect(elapsed).toBeGreaterThanOrEqual(150);
  });
});
