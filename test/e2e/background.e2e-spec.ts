import OpenAI from 'openai';
import { startGateway, type Gateway } from '../support/gateway';
import { eventProblems, responseProblems } from '../support/schemas';

// ROLE=all: this process is also the worker that runs the background jobs.
let gw: Gateway;
let client: OpenAI;
const MODEL = 'gpt-oss-simulated';
beforeAll(async () => {
  gw = await startGateway({ ROLE: 'all' }, 'background');
  client = gw.client();
});
afterAll(async () => {
  await gw.close();
});

async function until(id: string, done: (r: OpenAI.Responses.Response) => boolean): Promise<OpenAI.Responses.Response> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const response = await client.responses.retrieve(id);
    if (done(response) || Date.now() > deadline) return response;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function slowScript(marker: string): Promise<void> {
  await fetch(`${gw.sim.url}/sim/scripts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ match: marker, completion: '<|channel|>final<|message|>still going ', loop: true, tokensPerSecond: 100 }),
  });
}

describe('background responses', () => {
  it('returns queued at once, then a worker completes it', async () => {
    const queued = await client.responses.create({ model: MODEL, input: 'background job', background: true });
    expect(responseProblems(queued)).toEqual([]);
    expect(queued).toMatchObject({ status: 'queued', background: true, output: [], usage: null });
    const done = await until(queued.id, (r) => r.status === 'completed');
    expect(responseProblems(done)).toEqual([]);
    expect(done.status).toBe('completed');
    expect(done.output_text).toContain('background job');
  });

  it('streams a background response: created (queued), queued, in_progress … completed', async () => {
    const stream = await client.responses.create({ model: MODEL, input: 'stream in background', background: true, stream: true });
    const events: Array<{ type: string; sequence_number: number }> = [];
    for await (const event of stream) {
      expect([event.type, eventProblems(event)]).toEqual([event.type, []]);
      events.push(event);
    }
    expect(events.slice(0, 3).map((e) => e.type)).toEqual(['response.created', 'response.queued', 'response.in_progress']);
    expect((events[0] as unknown as { response: { status: string } }).response.status).toBe('queued');
    expect(events[events.length - 1]!.type).toBe('response.completed');
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
  });

  it('resumes from starting_after with the SDK, and the final response equals GET', async () => {
    const queued = await client.responses.create({ model: MODEL, input: 'resume me please', background: true });
    await until(queued.id, (r) => r.status === 'completed');
    const seen: number[] = [];
    const stream = client.responses.stream({ response_id: queued.id, starting_after: 3 });
    for await (const event of stream) seen.push(event.sequence_number);
    expect(seen[0]).toBe(4);
    expect(seen).toEqual(seen.map((_, i) => i + 4));
    const raw = await fetch(`${gw.app.url}/v1/responses/${queued.id}?stream=true`);
    const text = await raw.text();
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const completed = text.split('\n').filter((l) => l.startsWith('data: {"type":"response.completed"'));
    expect(completed).toHaveLength(1);
    const final = (JSON.parse(completed[0]!.slice(6)) as { response: OpenAI.Responses.Response }).response;
    expect({ ...(await client.responses.retrieve(queued.id)), output_text: undefined }).toEqual(final);
  });

  it('cancels a running response: the engine stops, partial output is kept, readers finish', async () => {
    const marker = `cancel-running-${Date.now()}`;
    await slowScript(marker);
    const queued = await client.responses.create({ model: MODEL, input: marker, background: true });
    const reader = fetch(`${gw.app.url}/v1/responses/${queued.id}?stream=true`).then((r) => r.text());
    await fetch(`${gw.sim.url}/sim/requests?contains=${marker}&status=active&waitMs=10000`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const cancelled = await client.responses.cancel(queued.id);
    expect(cancelled.status).toBe('cancelled');
    expect(responseProblems(cancelled)).toEqual([]);
    expect(cancelled.output.length).toBeGreaterThan(0);
    const text = await reader;
    expect(text).toContain('"code":"response_cancelled"');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const aborted = (await (await fetch(`${gw.sim.url}/sim/requests?contains=${marker}&status=aborted&waitMs=3000`)).json()) as { data: unknown[] };
    expect(aborted.data.length).toBe(1);
    // Terminal is final: cancelling again returns it unchanged.
    expect(await client.responses.cancel(queued.id)).toEqual(cancelled);
  });

  it('refuses to cancel or resume a foreground response', async () => {
    const foreground = await client.responses.create({ model: MODEL, input: 'not background' });
    await expect(client.responses.cancel(foreground.id)).rejects.toMatchObject({ status: 400 });
    const resume = await fetch(`${gw.app.url}/v1/responses/${foreground.id}?stream=true`);
    expect(resume.status).toBe(400);
    const done = await client.responses.create({ model: MODEL, input: 'finish first', background: true });
    const completed = await until(done.id, (r) => r.status === 'completed');
    expect((await client.responses.cancel(done.id)).status).toBe(completed.status);
  });
});

describe('a background response no worker has taken yet', () => {
  let api: Gateway;
  beforeAll(async () => {
    api = await startGateway({ ROLE: 'api' }, 'bg-queued');
  });
  afterAll(async () => {
    await api.close();
  });

  it('is cancelled at once, leaves the queue, and its readers finish', async () => {
    const apiClient = api.client();
    const queued = await apiClient.responses.create({ model: MODEL, input: 'never runs', background: true });
    const reader = fetch(`${api.app.url}/v1/responses/${queued.id}?stream=true`).then((r) => r.text());
    await new Promise((resolve) => setTimeout(resolve, 100));
    const cancelled = await apiClient.responses.cancel(queued.id);
    expect(cancelled).toMatchObject({ status: 'cancelled', output: [] });
    const text = await reader;
    expect(text.split('\n').filter((l) => l.startsWith('event:'))).toEqual(['event: response.created', 'event: response.queued', 'event: error']);
    expect(text).toContain('"code":"response_cancelled"');
    expect((await apiClient.responses.retrieve(queued.id)).status).toBe('cancelled');
  });
});

describe('the per-tenant queue limit', () => {
  let api: Gateway;
  beforeAll(async () => {
    api = await startGateway({ ROLE: 'api', QUEUE_LIMIT_PER_TENANT: '2' }, 'bg-limit');
  });
  afterAll(async () => {
    await api.close();
  });

  it('answers 429 with Retry-After beyond it, and frees a place when one leaves the queue', async () => {
    const apiClient = api.client();
    const first = await apiClient.responses.create({ model: MODEL, input: 'one', background: true });
    await apiClient.responses.create({ model: MODEL, input: 'two', background: true });
    const refused = await fetch(`${api.app.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, input: 'three', background: true }),
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toEqual({ error: expect.objectContaining({ type: 'rate_limit_error', code: 'rate_limit_exceeded', param: 'background' }) });
    // Foreground requests are not queued and not limited.
    expect((await apiClient.responses.create({ model: MODEL, input: 'foreground' })).status).toBe('completed');
    await apiClient.responses.cancel(first.id);
    expect((await apiClient.responses.create({ model: MODEL, input: 'three again', background: true })).status).toBe('queued');
  });
});
