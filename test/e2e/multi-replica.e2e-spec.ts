import OpenAI from 'openai';
import { Redis } from 'ioredis';
import { SimServer } from '../../src/engine/simulated/sim-server';
import { freePort, spawnService, type Spawned } from '../support/process';
import { deleteKeys, testPrefix, TEST_REDIS_URL } from '../support/redis';

// Two API processes and two worker processes on one Redis, with the simulated engine behind them.
jest.setTimeout(60_000);

const prefix = testPrefix('replicas');
const MODEL = 'gpt-oss-simulated';
let sim: SimServer;
let apis: Array<{ url: string; process: Spawned }> = [];
let workers: Spawned[] = [];

beforeAll(async () => {
  sim = new SimServer({ port: 0 });
  const engineUrl = await sim.listen();
  const common = { REDIS_URL: TEST_REDIS_URL, KEY_PREFIX: prefix, ENGINE: 'vllm', ENGINE_URL: engineUrl, HEARTBEAT_INTERVAL_MS: '200', HOST: '127.0.0.1', LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT_MS: '20000' };
  for (let i = 0; i < 2; i += 1) {
    const port = await freePort();
    apis.push({ url: `http://127.0.0.1:${port}`, process: spawnService({ ...common, ROLE: 'api', PORT: String(port) }) });
    workers.push(spawnService({ ...common, ROLE: 'worker' }));
  }
  await Promise.all([...apis.map((a) => a.process.waitFor(/listening on/)), ...workers.map((w) => w.waitFor(/"worker started"/))]);
});

afterAll(async () => {
  for (const p of [...apis.map((a) => a.process), ...workers]) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await Promise.all([...apis.map((a) => a.process.exited), ...workers.map((w) => w.exited)]);
  await sim.close();
  await deleteKeys(prefix);
});

const client = (i: number): OpenAI => new OpenAI({ apiKey: 'unused', baseURL: `${apis[i]!.url}/v1`, maxRetries: 0 });

async function script(match: string, completion: string, options: Record<string, unknown> = {}): Promise<void> {
  await fetch(`${sim.url}/sim/scripts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ match, completion, ...options }) });
}

function sequences(sse: string): number[] {
  return sse
    .split('\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line) => (JSON.parse(line.slice(6)) as { sequence_number: number }).sequence_number);
}

describe('background responses across replicas', () => {
  it('streams on API 1, resumes on API 2 with starting_after: every remaining event exactly once, in order', async () => {
    const marker = `replica-resume-${Date.now()}`;
    await script(marker, `<|channel|>final<|message|>${'step '.repeat(120)}<|return|>`, { tokensPerSecond: 150 });
    const controller = new AbortController();
    const first = await fetch(`${apis[0]!.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, input: marker, background: true, stream: true }),
      signal: controller.signal,
    });
    const reader = first.body!.getReader();
    let text = '';
    while (sequences(text).length < 8) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    const seen = sequences(text);
    const id = (JSON.parse(text.split('\n').find((l) => l.startsWith('data: {'))!.slice(6)) as { response: { id: string } }).response.id;
    const last = seen[seen.length - 1]!;
    const rest = await (await fetch(`${apis[1]!.url}/v1/responses/${id}?stream=true&starting_after=${last}`)).text();
    const resumed = sequences(rest);
    expect(resumed[0]).toBe(last + 1);
    expect(resumed).toEqual(resumed.map((_, i) => last + 1 + i));
    expect(rest).toContain('event: response.completed');
    expect(rest.trimEnd().endsWith('data: [DONE]')).toBe(true);
    // The SDK resumes too, and its final response is the stored one.
    const stream = client(1).responses.stream({ response_id: id, starting_after: last });
    const final = await stream.finalResponse();
    // Without the SDK's own conveniences (output_text, parsed), the fold equals the stored Response.
    const plain = (value: unknown): unknown =>
      JSON.parse(JSON.stringify(value, (key, v: unknown) => (['output_text', 'parsed', 'output_parsed'].includes(key) ? undefined : v)));
    expect(plain(await client(0).responses.retrieve(id))).toEqual(plain(final));
    expect(final.status).toBe('completed');
  });

  it('cancels on API 2 a response running on a worker: the engine request stops', async () => {
    const marker = `replica-cancel-${Date.now()}`;
    await script(marker, '<|channel|>final<|message|>forever ', { loop: true, tokensPerSecond: 100 });
    const queued = await client(0).responses.create({ model: MODEL, input: marker, background: true });
    // Wait until the engine is generating for it, so the cancel has a request to stop.
    await fetch(`${sim.url}/sim/requests?contains=${marker}&status=active&waitMs=10000`);
    const started = Date.now();
    const cancelled = await client(1).responses.cancel(queued.id);
    expect(cancelled.status).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(2_000);
    const aborted = (await (await fetch(`${sim.url}/sim/requests?contains=${marker}&status=aborted&waitMs=3000`)).json()) as { data: unknown[] };
    expect(aborted.data).toHaveLength(1);
    expect((await client(0).responses.retrieve(queued.id)).status).toBe('cancelled');
  });

  it('lets a worker stopped with SIGTERM finish its running response first', async () => {
    const marker = `replica-sigterm-${Date.now()}`;
    await script(marker, `<|channel|>final<|message|>${'careful '.repeat(60)}<|return|>`, { tokensPerSecond: 60 });
    const queued = await client(0).responses.create({ model: MODEL, input: marker, background: true });
    const redis = new Redis(TEST_REDIS_URL);
    try {
      let holder: string | null = null;
      const deadline = Date.now() + 10_000;
      while (!holder && Date.now() < deadline) {
        holder = await redis.get(`${prefix}:{${queued.id}}:heartbeat`);
        if (!holder) await new Promise((r) => setTimeout(r, 25));
      }
      const pid = Number(holder!.split(':')[1]);
      const worker = workers.find((w) => w.child.pid === pid)!;
      worker.child.kill('SIGTERM');
      const exit = await worker.exited;
      expect(exit.code).toBe(0);
      const done = await client(1).responses.retrieve(queued.id);
      expect(done.status).toBe('completed');
      expect(done.output_text).toContain('careful');
    } finally {
      redis.disconnect();
    }
  });
});
