import { deadRedisUrl, deleteKeys, testPrefix } from '../support/redis';
import { startTestApp, type TestApp } from '../support/app';

async function get(url: string): Promise<{ status: number; body: string }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.text() };
}

describe('health and metrics with Redis up', () => {
  const prefix = testPrefix('health');
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ KEY_PREFIX: prefix });
  });
  afterAll(async () => {
    await t.close();
    await deleteKeys(prefix);
  });

  it('is live', async () => {
    expect(await get(`${t.url}/health/live`)).toEqual({ status: 200, body: '{"status":"ok"}' });
  });

  it('is ready, with a Redis check', async () => {
    const { status, body } = await get(`${t.url}/health/ready`);
    expect(status).toBe(200);
    expect(JSON.parse(body)).toEqual({
      status: 'ready',
      checks: { redis: { up: true, latencyMs: expect.any(Number) }, engine: { up: true, model: 'gpt-oss-simulated', contextLength: expect.any(Number) } },
    });
  });

  it('serves Prometheus metrics: latency histogram by route, in-flight gauge, Redis errors', async () => {
    await get(`${t.url}/health/live`);
    await get(`${t.url}/no/such/route`);
    const response = await fetch(`${t.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await response.text();
    expect(text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/health\/live",status="200"\} [1-9]/);
    // Unmatched URLs share one label value, so scanners cannot blow up cardinality.
    expect(text).toMatch(/http_request_duration_seconds_count\{method="GET",route="unmatched",status="404"\} [1-9]/);
    expect(text).toMatch(/^http_requests_in_flight 1$/m); // this very request
    expect(text).toContain('# TYPE redis_errors_total counter');
    expect(text).toContain('process_cpu_user_seconds_total');
  });
});

describe('health with Redis unreachable', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ REDIS_URL: await deadRedisUrl(), KEY_PREFIX: testPrefix('health-down') });
  });
  afterAll(async () => {
    await t.close();
  });

  it('reports not ready (503) quickly, and keeps serving', async () => {
    const started = Date.now();
    const ready = await get(`${t.url}/health/ready`);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toMatchObject({ status: 'unavailable', checks: { redis: { up: false, reason: expect.any(String) } } });
    expect((await get(`${t.url}/health/live`)).status).toBe(200);
    expect((await get(`${t.url}/health/ready`)).status).toBe(503);
  });

  it('counts Redis connection errors', async () => {
    const deadline = Date.now() + 5_000;
    let count = 0;
    while (Date.now() < deadline && count === 0) {
      const text = (await get(`${t.url}/metrics`)).body;
      count = Number(/redis_errors_total\{connection="command"\} (\d+)/.exec(text)?.[1] ?? 0);
      if (count === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(count).toBeGreaterThan(0);
  });
});
