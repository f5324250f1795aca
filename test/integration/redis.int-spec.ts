import { AppConfig } from '../../src/config/app-config';
import { loadConfig } from '../../src/config/load-config';
import { RedisService } from '../../src/store/redis.service';
import { deadRedisUrl, deleteKeys, testPrefix, TEST_REDIS_URL } from '../support/redis';

function service(env: Record<string, string>): RedisService {
  return new RedisService(loadConfig({ REDIS_URL: TEST_REDIS_URL, ...env }) as AppConfig);
}

describe('RedisService against a real Redis', () => {
  const prefix = testPrefix('redis');
  let redis: RedisService;
  beforeAll(() => {
    redis = service({ KEY_PREFIX: prefix });
  });
  afterAll(async () => {
    await redis.onApplicationShutdown();
    await deleteKeys(prefix);
  });

  it('is healthy once connected', async () => {
    await new Promise<void>((resolve) => (redis.command.status === 'ready' ? resolve() : redis.command.once('ready', () => resolve())));
    const health = await redis.health();
    expect(health).toEqual({ up: true, latencyMs: expect.any(Number) });
  });

  it('writes keys under its own hash-tagged prefix, which the cleanup finds', async () => {
    const key = redis.keys.response('resp_abc', 'snapshot');
    expect(key).toBe(`${prefix}:{resp_abc}:snapshot`);
    await redis.command.set(key, '{}', 'EX', 60);
    expect(await redis.command.get(key)).toBe('{}');
    expect(await deleteKeys(prefix)).toBe(1);
    expect(await redis.command.exists(key)).toBe(0);
  });

  it('gives blocking reads their own connection, without stalling the command connection', async () => {
    const blocking = redis.createBlocking();
    const list = `${prefix}:blocking-probe`;
    const pending = blocking.blpop(list, 5);
    expect(await redis.command.ping()).toBe('PONG');
    await redis.command.rpush(list, 'x');
    expect(await pending).toEqual([list, 'x']);
    await redis.releaseBlocking(blocking);
    expect(blocking.status).toBe('end');
  });

  it('shares one subscriber connection', async () => {
    expect(redis.subscriber).toBe(redis.subscriber);
    const channel = redis.keys.cancelChannel();
    const received = new Promise<string>((resolve) => redis.subscriber.once('message', (_c: string, m: string) => resolve(m)));
    await redis.subscriber.subscribe(channel);
    await redis.command.publish(channel, 'resp_1');
    expect(await received).toBe('resp_1');
  });

  it('closes every connection on shutdown', async () => {
    const local = service({ KEY_PREFIX: prefix });
    const sub = local.subscriber;
    const blocking = local.createBlocking();
    await local.command.ping();
    await local.onApplicationShutdown();
    expect([local.command.status, sub.status, blocking.status]).toEqual(['end', 'end', 'end']);
  });
});

describe('RedisService with Redis unreachable', () => {
  it('reports down without hanging, and shuts down cleanly', async () => {
    const redis = service({ REDIS_URL: await deadRedisUrl(), KEY_PREFIX: testPrefix('down') });
    const errors: string[] = [];
    redis.onError((connection) => errors.push(connection));
    const started = Date.now();
    const health = await redis.health();
    expect(health.up).toBe(false);
    expect(Date.now() - started).toBeLessThan(1_500);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(errors).toContain('command');
    await redis.onApplicationShutdown();
    // No more reconnect attempts once shut down.
    const seen = errors.length;
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(errors.length).toBe(seen);
  });
});
