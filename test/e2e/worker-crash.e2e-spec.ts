import OpenAI from 'openai';
import { Redis } from 'ioredis';
import { startGateway, type Gateway } from '../support/gateway';
import { spawnService, type Spawned } from '../support/process';
import { TEST_REDIS_URL } from '../support/redis';

// An API in this process, two worker processes; kill -9 the one running a response.
let gw: Gateway;
let workers: Spawned[] = [];
const HEARTBEAT = '200';

beforeAll(async () => {
  gw = await startGateway({ ROLE: 'api', HEARTBEAT_INTERVAL_MS: HEARTBEAT }, 'crash');
  const env = { ROLE: 'worker', REDIS_URL: TEST_REDIS_URL, KEY_PREFIX: gw.prefix, ENGINE: 'vllm', ENGINE_URL: gw.sim.url, HEARTBEAT_INTERVAL_MS: HEARTBEAT, LOG_LEVEL: 'info' };
  workers = [spawnService(env), spawnService(env)];
  await Promise.all(workers.map((w) => w.waitFor(/"worker started"/)));
}, 30_000);

afterAll(async () => {
  for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
  await Promise.all(workers.map((w) => w.exited));
  await gw.close();
});

describe('a worker killed mid-run', () => {
  it('has its response failed by a reaper in another worker, and every reader finishes', async () => {
    const marker = `crash-${Date.now()}`;
    await fetch(`${gw.sim.url}/sim/scripts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ match: marker, completion: '<|channel|>final<|message|>working on it ', loop: true, tokensPerSecond: 50 }),
    });
    const client: OpenAI = gw.client();
    const queued = await client.responses.create({ model: 'gpt-oss-simulated', input: marker, background: true });
    const reader = fetch(`${gw.app.url}/v1/responses/${queued.id}?stream=true`).then((r) => r.text());
    const redis = new Redis(TEST_REDIS_URL);
    try {
      let holder: string | null = null;
      const deadline = Date.now() + 10_000;
      while (!holder && Date.now() < deadline) {
        holder = await redis.get(`${gw.prefix}:{${queued.id}}:heartbeat`);
        if (!holder) await new Promise((r) => setTimeout(r, 50));
      }
      expect(holder).not.toBeNull();
      await new Promise((r) => setTimeout(r, 300)); // let it produce some output
      const pid = Number(holder!.split(':')[1]);
      const victim = workers.find((w) => w.child.pid === pid)!;
      expect(victim).toBeDefined();
      const killedAt = Date.now();
      victim.child.kill('SIGKILL');
      const text = await reader;
      const failedAfterMs = Date.now() - killedAt;
      expect(text).toContain('event: response.failed');
      expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
      // Heartbeat TTL is three intervals (600 ms) and a reaper sweeps every interval.
      expect(failedAfterMs).toBeLessThan(5_000);
      const failed = await client.responses.retrieve(queued.id);
      expect(failed.status).toBe('failed');
      expect(failed.error).toMatchObject({ code: 'server_error' });
      expect(failed.output_text).toContain('working on it');
    } finally {
      redis.disconnect();
    }
  });
});
