import { Queue } from 'bullmq';
import { loadConfig } from '../../src/config/load-config';
import { initialResponse } from '../../src/generation/initial-response';
import { queuedEvents } from '../../src/generation/output-emitter';
import { Reaper } from '../../src/queue/reaper';
import { ResponseQueue } from '../../src/queue/response-queue';
import { EventLog } from '../../src/store/event-log';
import { RedisService } from '../../src/store/redis.service';
import { ResponseStore } from '../../src/store/response-store';
import { RunRegistry } from '../../src/store/run-registry';
import { QUEUE_NAMES } from '../../src/store/redis-keys';
import { aRun } from '../support/fixtures';
import { deleteKeys, testPrefix, TEST_REDIS_URL } from '../support/redis';

const prefix = testPrefix('reaper');
const config = loadConfig({ REDIS_URL: TEST_REDIS_URL, KEY_PREFIX: prefix, HEARTBEAT_INTERVAL_MS: '100' });
const redis = new RedisService(config);
const store = new ResponseStore(redis, config);
const log = new EventLog(redis, config);
const registry = new RunRegistry(redis, config);
const queue = new ResponseQueue(redis);
const reaper = new Reaper(registry, store, log, config, queue, redis);

afterAll(async () => {
  await queue.beforeApplicationShutdown();
  await redis.onApplicationShutdown();
  await deleteKeys(prefix);
});

/** A background run claimed by a worker that then died (its heartbeat is gone, long ago). */
async function orphan(eventsAfterQueued: number): Promise<ReturnType<typeof aRun>> {
  const run = aRun({}, { background: true });
  await store.save({ tenant: run.tenant, response: initialResponse(run, 'queued') });
  await queue.enqueue(run);
  const events = queuedEvents(run);
  await log.append(run.responseId, events.map((e) => ({ sequence: e.sequence_number, type: e.type, json: JSON.stringify(e) })));
  await store.transition(initialResponse(run, 'in_progress'), ['queued']);
  if (eventsAfterQueued > 0) {
    const inProgress = { type: 'response.in_progress', sequence_number: 2, response: initialResponse(run, 'in_progress') };
    await log.append(run.responseId, [{ sequence: 2, type: inProgress.type, json: JSON.stringify(inProgress) }]);
  }
  await redis.command.zadd(redis.keys.running(), Date.now() - 60_000, run.responseId);
  return run;
}

describe('Reaper', () => {
  it('leaves runs with a live heartbeat alone', async () => {
    const run = aRun({}, { background: true });
    await store.save({ tenant: run.tenant, response: initialResponse(run, 'in_progress') });
    await registry.start(run.responseId, 'alive-worker');
    await redis.command.zadd(redis.keys.running(), Date.now() - 60_000, run.responseId);
    expect(await reaper.sweep()).not.toContain(run.responseId);
    expect((await store.load(run.responseId))?.response.status).toBe('in_progress');
    await registry.finish(run.responseId);
  });

  it('fails a run whose worker died mid-run, keeping its partial output, and ends the log', async () => {
    const run = await orphan(1);
    expect(await reaper.sweep()).toContain(run.responseId);
    const stored = await store.load(run.responseId);
    expect(stored?.response).toMatchObject({ status: 'failed', error: { code: 'server_error' } });
    const tail = (await log.readAfter(run.responseId, -1)).map((e) => e.type);
    expect(tail.slice(-2)).toEqual(['error', 'response.failed']);
    expect(await reaper.sweep()).not.toContain(run.responseId); // once
  });

  it('re-queues, once, a run whose worker died before producing any event', async () => {
    const run = await orphan(0);
    expect(await reaper.sweep()).toContain(run.responseId);
    expect((await store.load(run.responseId))?.response.status).toBe('queued');
    const bull = new Queue(QUEUE_NAMES.responses, { connection: redis.createQueueConnection('probe'), prefix: redis.keys.queuePrefix() });
    const retry = await bull.getJob(`${run.responseId}-retry`);
    expect(retry?.data).toMatchObject({ responseId: run.responseId });
    await bull.close();
    // Died again before any event: this time it is failed, not retried a second time.
    await store.transition(initialResponse(run, 'in_progress'), ['queued']);
    await redis.command.zadd(redis.keys.running(), Date.now() - 60_000, run.responseId);
    expect(await reaper.sweep()).toContain(run.responseId);
    expect((await store.load(run.responseId))?.response.status).toBe('failed');
  });
});
