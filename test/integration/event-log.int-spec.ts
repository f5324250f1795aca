import { loadConfig } from '../../src/config/load-config';
import { EventLog, EventLogConflictError, type LoggedEvent } from '../../src/store/event-log';
import { RedisService } from '../../src/store/redis.service';
import { deleteKeys, testPrefix, TEST_REDIS_URL } from '../support/redis';

const prefix = testPrefix('eventlog');
const config = loadConfig({ REDIS_URL: TEST_REDIS_URL, KEY_PREFIX: prefix, RESPONSE_TTL_SECONDS: '600' });
const redis = new RedisService(config);
const log = new EventLog(redis, config);

afterAll(async () => {
  await redis.onApplicationShutdown();
  await deleteKeys(prefix);
});

const events = (from: number, to: number): LoggedEvent[] =>
  Array.from({ length: to - from }, (_, i) => {
    const sequence = from + i;
    return { sequence, type: 'response.output_text.delta', json: JSON.stringify({ type: 'response.output_text.delta', sequence_number: sequence, delta: `d${sequence}` }) };
  });

describe('EventLog', () => {
  it('appends in order and reads back from the first or after any sequence number', async () => {
    const id = 'resp_log1';
    await log.append(id, events(0, 5));
    await log.append(id, events(5, 12));
    expect(await log.readAfter(id, -1)).toEqual(events(0, 12));
    expect(await log.readAfter(id, 4)).toEqual(events(5, 12));
    expect(await log.readAfter(id, 10)).toEqual(events(11, 12));
    expect(await log.readAfter(id, 11)).toEqual([]);
    expect(await log.readAfter(id, 50)).toEqual([]);
    expect(await log.readAfter(id, 2, 3)).toEqual(events(3, 6));
    const ttl = await redis.command.ttl(log.key(id));
    expect(ttl).toBeGreaterThan(590);
  });

  it('refuses a duplicate or out-of-order append (a second run of the same job)', async () => {
    const id = 'resp_log2';
    await log.append(id, events(0, 3));
    await expect(log.append(id, events(2, 4))).rejects.toBeInstanceOf(EventLogConflictError);
    await expect(log.append(id, events(1, 2))).rejects.toBeInstanceOf(EventLogConflictError);
    expect((await log.readAfter(id, -1)).map((e) => e.sequence)).toEqual([0, 1, 2]);
  });

  it('reads nothing for a response without a log', async () => {
    expect(await log.readAfter('resp_none', -1)).toEqual([]);
  });
});
