import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/** The Redis the test run uses (scripts/test.sh exports REDIS_URL after making sure one answers). */
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A key prefix of this test file's own, so parallel runs never see each other's keys. */
export function testPrefix(name: string): string {
  return `rgt-${name}-${randomBytes(5).toString('hex')}`;
}

/** Deletes every key the prefix owns (`prefix:*` and the hash-tagged `{prefix}:*`), nothing else. */
export async function deleteKeys(prefix: string, url = TEST_REDIS_URL): Promise<number> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  let deleted = 0;
  try {
    for (const pattern of [`${prefix}:*`, `{${prefix}}:*`]) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
        cursor = next;
        if (keys.length > 0) deleted += await redis.unlink(...keys);
      } while (cursor !== '0');
    }
  } finally {
    redis.disconnect();
  }
  return deleted;
}

/** A URL where nothing listens (a port just released by the OS). */
export async function deadRedisUrl(): Promise<string> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `redis://127.0.0.1:${port}`;
}
