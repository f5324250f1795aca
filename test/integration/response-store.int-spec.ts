import { loadConfig } from '../../src/config/load-config';
import { RedisService } from '../../src/store/redis.service';
import { ResponseStore } from '../../src/store/response-store';
import { aResponse, aRun } from '../support/fixtures';
import { deleteKeys, testPrefix, TEST_REDIS_URL } from '../support/redis';

const prefix = testPrefix('store');
const config = loadConfig({ REDIS_URL: TEST_REDIS_URL, KEY_PREFIX: prefix, RESPONSE_TTL_SECONDS: '600' });
const redis = new RedisService(config);
const store = new ResponseStore(redis, config);

afterAll(async () => {
  await redis.onApplicationShutdown();
  await deleteKeys(prefix);
});

describe('ResponseStore', () => {
  it('saves a response with its tenant, input and conversation under one TTL, and deletes all of it', async () => {
    const run = aRun({ tenant: 'acme' });
    const response = aResponse('completed', run);
    const input = [{ type: 'message' as const, id: 'msg_1', role: 'user' as const, status: 'completed' as const, content: [{ type: 'input_text' as const, text: 'hi' }] }];
    await store.save({ tenant: 'acme', response }, { input, conversation: { format: 'harmony', date: '2026-11-23', messages: [{ role: 'user' }] } });

    expect(await store.load(response.id)).toEqual({ tenant: 'acme', response });
    expect(await store.loadInput(response.id)).toEqual(input);
    expect(await store.loadWithConversation(response.id)).toEqual({
      stored: { tenant: 'acme', response },
      conversation: { format: 'harmony', date: '2026-11-23', messages: [{ role: 'user' }] },
    });
    for (const kind of ['snapshot', 'input', 'messages'] as const) {
      const ttl = await redis.command.ttl(redis.keys.response(response.id, kind));
      expect(ttl).toBeGreaterThan(590);
      expect(ttl).toBeLessThanOrEqual(600);
    }
    expect(await store.delete(response.id)).toBe(true);
    expect(await store.load(response.id)).toBeNull();
    expect(await store.loadInput(response.id)).toBeNull();
    expect(await store.delete(response.id)).toBe(false);
  });

  it('returns null for an unknown id', async () => {
    expect(await store.load('resp_unknown')).toBeNull();
    expect(await store.loadWithConversation('resp_unknown')).toBeNull();
  });

  it('moves queued → in_progress → completed, and never out of a terminal status', async () => {
    const run = aRun();
    await store.save({ tenant: 'default', response: aResponse('queued', run) });
    expect(await store.transition(aResponse('in_progress', run), ['queued'])).toEqual({ written: true });
    expect(await store.transition(aResponse('completed', run), '*')).toEqual({ written: true });
    expect(await store.transition(aResponse('cancelled', run), '*')).toEqual({ written: false, current: 'completed' });
    expect(await store.transition(aResponse('in_progress', run), ['queued'])).toEqual({ written: false, current: 'completed' });
    expect((await store.load(run.responseId))?.response.status).toBe('completed');
  });

  it('refuses a transition from a status not allowed', async () => {
    const run = aRun();
    await store.save({ tenant: 'default', response: aResponse('in_progress', run) });
    expect(await store.transition(aResponse('in_progress', run), ['queued'])).toEqual({ written: false, current: 'in_progress' });
    expect(await store.transition(aResponse('completed', aRun()), '*')).toEqual({ written: false, current: null });
  });

  it('lets exactly one of many concurrent terminal transitions win', async () => {
    for (let round = 0; round < 20; round += 1) {
      const run = aRun();
      await store.save({ tenant: 'default', response: aResponse('in_progress', run) });
      const contenders = (['cancelled', 'completed', 'failed', 'incomplete'] as const).map((status) => store.transition(aResponse(status, run), '*'));
      const results = await Promise.all(contenders);
      expect(results.filter((r) => r.written)).toHaveLength(1);
      const winner = (['cancelled', 'completed', 'failed', 'incomplete'] as const)[results.findIndex((r) => r.written)];
      const stored = await store.load(run.responseId);
      expect(stored?.response.status).toBe(winner);
      expect(await redis.command.hget(redis.keys.response(run.responseId, 'snapshot'), 'status')).toBe(winner);
    }
  });
});
