import { BAD_REQUESTS } from '../fixtures/bad-requests';
import { startTestApp } from '../support/app';
import { startGateway, type Gateway } from '../support/gateway';
import { deadRedisUrl, deleteKeys, testPrefix } from '../support/redis';

let gw: Gateway;
beforeAll(async () => {
  gw = await startGateway({}, 'badreq');
});
afterAll(async () => {
  await gw.close();
});

describe('every malformed request gets its exact OpenAI-shaped error', () => {
  it('has a big enough table', () => expect(BAD_REQUESTS.length).toBeGreaterThanOrEqual(40));

  it.each(BAD_REQUESTS.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    for (const stream of [false, true]) {
      const body = c.body !== null && typeof c.body === 'object' && !Array.isArray(c.body) ? { ...c.body, ...(stream ? { stream: true } : {}) } : c.body;
      if (stream && (c.name.includes('stream') || c.name.includes('obfuscation') || Array.isArray(c.body))) continue;
      const response = await fetch(`${gw.app.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      // Validation errors come back as JSON before any SSE starts, streaming or not.
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const json = (await response.json()) as { error: Record<string, unknown> };
      expect({ status: response.status, code: json.error.code, param: json.error.param }).toEqual({ status: c.status, code: c.code, param: c.param === '' ? null : c.param });
      expect(json.error.type).toBe('invalid_request_error');
      expect(typeof json.error.message).toBe('string');
    }
  });
});

describe('query parameters', () => {
  it('accepts include as include, include[] and include[0], and rejects unknown ones', async () => {
    const created = (await (await fetch(`${gw.app.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-oss-simulated', input: 'hi' }) })).json()) as { id: string };
    for (const query of ['include=reasoning.encrypted_content', 'include[]=reasoning.encrypted_content', 'include[0]=reasoning.encrypted_content']) {
      const response = await fetch(`${gw.app.url}/v1/responses/${created.id}?${query}`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { output: Array<{ type: string; encrypted_content?: string }> };
      expect(body.output.find((item) => item.type === 'reasoning')?.encrypted_content).toMatch(/^rg1\./);
    }
    const cases: Array<[string, number, string]> = [
      ['colour=red', 400, 'colour'],
      ['stream=yes', 400, 'stream'],
      ['stream=true', 400, 'stream'],
      ['include[]=web_search_call.results', 400, 'include.0'],
    ];
    for (const [query, status, param] of cases) {
      const response = await fetch(`${gw.app.url}/v1/responses/${created.id}?${query}`);
      expect([query, response.status, ((await response.json()) as { error: { param: string } }).error.param]).toEqual([query, status, param]);
    }
    const items = await fetch(`${gw.app.url}/v1/responses/${created.id}/input_items?limit=0`);
    expect(items.status).toBe(400);
    const order = await fetch(`${gw.app.url}/v1/responses/${created.id}/input_items?order=sideways`);
    expect(((await order.json()) as { error: { param: string } }).error.param).toBe('order');
  });
});

describe('an unreachable engine', () => {
  it('answers 503 engine_unavailable (JSON, even when streaming) and reports not ready', async () => {
    const deadEngine = (await deadRedisUrl()).replace('redis://', 'http://');
    const prefix = testPrefix('noengine');
    const app = await startTestApp({ KEY_PREFIX: prefix, ENGINE: 'vllm', ENGINE_URL: deadEngine, ENGINE_MODEL: 'openai/gpt-oss-20b' });
    try {
      for (const stream of [false, true]) {
        const response = await fetch(`${app.url}/v1/responses`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'openai/gpt-oss-20b', input: 'hi', stream }),
        });
        expect(response.status).toBe(503);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe('engine_unavailable');
      }
      const ready = await fetch(`${app.url}/health/ready`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ checks: { engine: { up: false } } });
    } finally {
      await app.close();
      await deleteKeys(prefix);
    }
  });
});
