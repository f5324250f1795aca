import { loadConfig } from '../../src/config/load-config';
import { EventLog, type LoggedEvent } from '../../src/store/event-log';
import { EventTail } from '../../src/store/event-tail';
import { RedisService } from '../../src/store/redis.service';
import { deleteKeys, testPrefix, TEST_REDIS_URL } from '../support/redis';

const prefix = testPrefix('tail');
const config = loadConfig({ REDIS_URL: TEST_REDIS_URL, KEY_PREFIX: prefix });
const redis = new RedisService(config);
const log = new EventLog(redis, config);
const tail = new EventTail(redis, log);

afterAll(async () => {
  await tail.onApplicationShutdown();
  await redis.onApplicationShutdown();
  await deleteKeys(prefix);
});

const batch = (from: number, to: number): LoggedEvent[] =>
  Array.from({ length: to - from }, (_, i) => ({ sequence: from + i, type: 't', json: `{"n":${from + i}}` }));

function collect(responseId: string, after: number, until: number): { seen: number[]; done: Promise<number[]>; stop: () => void } {
  const seen: number[] = [];
  let resolve!: (value: number[]) => void;
  const done = new Promise<number[]>((r) => (resolve = r));
  const stop = tail.follow(responseId, after, (events) => {
    for (const event of events) seen.push(event.sequence);
    if (seen[seen.length - 1] === until) resolve(seen);
  });
  return { seen, done, stop };
}

describe('EventTail', () => {
  it('delivers live events in order, from where each follower starts', async () => {
    await log.append('resp_t1', batch(0, 3));
    const fromStart = collect('resp_t1', -1, 7);
    const fromTwo = collect('resp_t1', 2, 7);
    await new Promise((r) => setTimeout(r, 50));
    await log.append('resp_t1', batch(3, 6));
    await log.append('resp_t1', batch(6, 8));
    expect(await fromStart.done).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(await fromTwo.done).toEqual([3, 4, 5, 6, 7]);
    fromStart.stop();
    fromTwo.stop();
  });

  it('joins a new follower at once even while a read is blocked, and stops delivering after unfollow', async () => {
    const first = collect('resp_t2', -1, 0);
    await log.append('resp_t2', batch(0, 1));
    await first.done;
    first.stop();
    // The loop is now blocked on resp_t2 (or idle); a follower of another stream must not wait for the block timeout.
    const started = Date.now();
    const second = collect('resp_t3', -1, 1);
    await new Promise((r) => setTimeout(r, 20));
    await log.append('resp_t3', batch(0, 2));
    expect(await second.done).toEqual([0, 1]);
    expect(Date.now() - started).toBeLessThan(2_000);
    second.stop();
    await log.append('resp_t2', batch(1, 3));
    await new Promise((r) => setTimeout(r, 100));
    expect(first.seen).toEqual([0]);
    expect(tail.size).toBe(0);
  });

  it('serves 1,000 concurrent followers of 250 streams over one connection', async () => {
    const streams = Array.from({ length: 250 }, (_, i) => `resp_many${i}`);
    const followers = streams.flatMap((id) => [0, 1, 2, 3].map(() => collect(id, -1, 9)));
    expect(tail.size).toBe(1_000);
    await Promise.all(streams.map((id) => log.append(id, batch(0, 5))));
    await Promise.all(streams.map((id) => log.append(id, batch(5, 10))));
    const results = await Promise.all(followers.map((f) => f.done));
    for (const seen of results) expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const f of followers) f.stop();
    const clients = (await redis.command.client('LIST')) as string;
    const tailConnections = clients.split('\n').filter((line) => line.includes(`name=${prefix}:event-tail`));
    expect(tailConnections).toHaveLength(1);
  });
});
