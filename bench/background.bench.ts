/**
 * Background responses, in one run: an API process and two worker processes on one Redis, the
 * simulated engine at full speed in its own process. Reports
 * - enqueue-to-first-event latency (POST with background+stream → the worker's first event), p50/p99;
 * - resume time to first replayed event (GET ?stream=true&starting_after=0), p50/p99;
 * - cancel-to-stop latency (POST /cancel of a running response until it answers cancelled), p50/p99;
 * - throughput of 1,000 background responses through the two workers, as a ratio to the same
 *   responses run in the foreground (no queue, no event log) at the same concurrency;
 * - Redis memory per stored response and per logged event.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Agent, request } from 'undici';
import { loadConfig } from '../src/config/load-config';
import { ReasoningCipher } from '../src/common/reasoning-cipher';
import { SimulatedEngine } from '../src/engine/simulated/simulated-engine';
import { ResponseRunner } from '../src/generation/response-runner';
import { LogWriter } from '../src/queue/log-writer';
import { EventLog } from '../src/store/event-log';
import { RedisService } from '../src/store/redis.service';
import { aRun } from '../test/support/fixtures';
import { deleteBenchKeys, freePort, startProcess, stopProcess } from './support/processes';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const RESPONSES = Number(process.env.BENCH_RESPONSES ?? 1_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 50);
const agent = new Agent({ connections: 64 });

const pct = (values: number[], q: number): number => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;

async function post(url: string, body: unknown): Promise<{ status: number; text: string }> {
  const response = await request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), dispatcher: agent });
  return { status: response.statusCode, text: await response.body.text() };
}

/** Resolves with the elapsed ms when the stream delivers an event matching `first`, then drains it. */
async function timeToEvent(url: string, init: { method: 'GET' | 'POST'; body?: unknown }, first: (data: string) => boolean): Promise<number> {
  const started = performance.now();
  const response = await request(url, {
    method: init.method,
    headers: init.body ? { 'content-type': 'application/json' } : {},
    body: init.body ? JSON.stringify(init.body) : undefined,
    dispatcher: agent,
  });
  let at = -1;
  for await (const chunk of response.body) {
    if (at < 0 && (chunk as Buffer).toString('utf8').split('\n').some((line) => line.startsWith('data: {') && first(line))) at = performance.now() - started;
  }
  return at;
}

/**
 * The event log's own cost: the same background runs through the real ResponseRunner (in-process
 * simulated engine), once only iterating the events and once also appending them to Redis with
 * the worker's LogWriter. Returns the ratio of throughputs (with / without).
 */
async function eventLogCost(prefix: string, runs: number): Promise<{ ratio: number; withLog: number; without: number; events: number }> {
  const config = loadConfig({ REDIS_URL, KEY_PREFIX: `${prefix}-log` });
  const redis = new RedisService(config);
  const log = new EventLog(redis, config);
  const runner = new ResponseRunner({ format: 'harmony', engine: new SimulatedEngine({}) }, new ReasoningCipher(undefined));
  let events = 0;
  const pass = async (withLog: boolean): Promise<number> => {
    const started = performance.now();
    for (let i = 0; i < runs; i += 1) {
      const run = aRun({}, { background: true, input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: `log cost ${i}` }] }] });
      const writer = withLog ? new LogWriter(log, run.responseId) : undefined;
      const iterator = runner.run(run, new AbortController().signal);
      for (let step = await iterator.next(); !step.done; step = await iterator.next()) {
        events += 1;
        writer?.push(step.value);
      }
      await writer?.drain();
    }
    return runs / ((performance.now() - started) / 1000);
  };
  await pass(false); // warm up
  events = 0;
  const without = await pass(false);
  const perRun = events / runs;
  const withLog = await pass(true);
  await redis.onApplicationShutdown();
  return { ratio: withLog / without, withLog, without, events: perRun };
}

async function main(): Promise<void> {
  const prefix = `rgbench-${randomBytes(4).toString('hex')}`;
  const simPort = await freePort();
  const apiPort = await freePort();
  const sim = await startProcess(['dist/engine/simulated/sim-server.main.js'], { SIM_PORT: String(simPort), HOST: '127.0.0.1' }, `http://127.0.0.1:${simPort}/health`);
  const common = { KEY_PREFIX: prefix, ENGINE: 'vllm', ENGINE_URL: `http://127.0.0.1:${simPort}`, LOG_LEVEL: 'warn', HOST: '127.0.0.1', REDIS_URL, QUEUE_LIMIT_PER_TENANT: String(RESPONSES * 2) };
  const api = await startProcess(['dist/main.js'], { ...common, ROLE: 'api', PORT: String(apiPort) }, `http://127.0.0.1:${apiPort}/health/ready`);
  const workers = await Promise.all(
    [0, 1].map(async () => {
      const port = await freePort();
      // Workers serve no HTTP; readiness is checked through the API below.
      return startProcess(['dist/main.js'], { ...common, ROLE: 'worker', PORT: String(port) }, `http://127.0.0.1:${apiPort}/health/live`);
    }),
  );
  const simUrl = `http://127.0.0.1:${simPort}`;
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const redis = new Redis(REDIS_URL);
  try {
    const body = (input: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ model: 'gpt-oss-simulated', input, background: true, ...extra });
    // Warm up.
    for (let i = 0; i < 20; i += 1) await timeToEvent(`${apiUrl}/v1/responses`, { method: 'POST', body: body(`warm ${i}`, { stream: true }) }, () => true);

    const enqueue: number[] = [];
    const ids: string[] = [];
    for (let i = 0; i < SAMPLES; i += 1) {
      enqueue.push(await timeToEvent(`${apiUrl}/v1/responses`, { method: 'POST', body: body(`latency ${i}`, { stream: true }) }, (line) => line.includes('"type":"response.in_progress"')));
    }
    for (let i = 0; i < SAMPLES; i += 1) ids.push((JSON.parse((await post(`${apiUrl}/v1/responses`, body(`resume ${i}`))).text) as { id: string }).id);
    await new Promise((r) => setTimeout(r, 1_000));
    const resume: number[] = [];
    for (const id of ids) resume.push(await timeToEvent(`${apiUrl}/v1/responses/${id}?stream=true&starting_after=0`, { method: 'GET' }, () => true));

    const marker = `loop-${randomBytes(3).toString('hex')}`;
    await post(`${simUrl}/sim/scripts`, { match: marker, completion: '<|channel|>final<|message|>on and on ', loop: true, tokensPerSecond: 200, times: 'unlimited' });
    const cancel: number[] = [];
    for (let i = 0; i < Math.min(SAMPLES, 30); i += 1) {
      const { id } = JSON.parse((await post(`${apiUrl}/v1/responses`, body(`${marker} ${i}`))).text) as { id: string };
      await request(`${simUrl}/sim/requests?contains=${encodeURIComponent(`${marker} ${i}`)}&status=active&waitMs=10000`, { dispatcher: agent }).then((r) => r.body.dump());
      const started = performance.now();
      const answer = await post(`${apiUrl}/v1/responses/${id}/cancel`, {});
      if (!answer.text.includes('"status":"cancelled"')) throw new Error(`cancel did not cancel: ${answer.text.slice(0, 200)}`);
      cancel.push(performance.now() - started);
    }

    const run = async (background: boolean): Promise<number> => {
      const started = performance.now();
      let next = 0;
      const created: string[] = [];
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (next < RESPONSES) {
            const i = next++;
            const answer = await post(`${apiUrl}/v1/responses`, { model: 'gpt-oss-simulated', input: `throughput ${i}`, background, store: true });
            if (background) created.push((JSON.parse(answer.text) as { id: string }).id);
          }
        }),
      );
      if (background) {
        // Done when every response is terminal.
        for (;;) {
          const pipeline = redis.pipeline();
          for (const id of created) pipeline.hget(`${prefix}:{${id}}:snapshot`, 'status');
          const statuses = ((await pipeline.exec()) ?? []).map(([, status]) => status);
          if (statuses.every((status) => status === 'completed')) break;
          await new Promise((r) => setTimeout(r, 20));
        }
      }
      return RESPONSES / ((performance.now() - started) / 1000);
    };
    const foreground = await run(false);
    const background = await run(true);

    const logCost = await eventLogCost(prefix, 500);
    const sample = ids[0]!;
    const memory = async (kind: string): Promise<number> => Number((await redis.call('MEMORY', 'USAGE', `${prefix}:{${sample}}:${kind}`, 'SAMPLES', '0')) ?? 0);
    const events = Number(await redis.xlen(`${prefix}:{${sample}}:events`));
    const [snapshot, input, messages, log] = await Promise.all(['snapshot', 'input', 'messages', 'events'].map(memory));

    console.log(`API + 2 workers + simulated engine (full speed), ${SAMPLES} samples per latency\n`);
    console.log('| measure | p50 | p99 |');
    console.log('| --- | --- | --- |');
    console.log(`| enqueue → first worker event (response.in_progress) | ${pct(enqueue, 0.5).toFixed(2)} ms | ${pct(enqueue, 0.99).toFixed(2)} ms |`);
    console.log(`| resume → first replayed event | ${pct(resume, 0.5).toFixed(2)} ms | ${pct(resume, 0.99).toFixed(2)} ms |`);
    console.log(`| cancel of a running response → answered cancelled | ${pct(cancel, 0.5).toFixed(2)} ms | ${pct(cancel, 0.99).toFixed(2)} ms |`);
    console.log('');
    console.log(`throughput, ${RESPONSES} responses at concurrency 32: background ${background.toFixed(0)}/s, foreground ${foreground.toFixed(0)}/s, ratio ${(background / foreground).toFixed(2)}`);
    console.log(
      `event log cost, same runs in-process (${logCost.events.toFixed(0)} events each): ${logCost.withLog.toFixed(0)} runs/s with the log, ` +
        `${logCost.without.toFixed(0)} without, ratio ${logCost.ratio.toFixed(2)}`,
    );
    console.log(`Redis memory of one stored background response (${events} events): snapshot ${snapshot} B, input ${input} B, history ${messages} B, event log ${log} B (${(log / events).toFixed(0)} B per event)`);
  } finally {
    redis.disconnect();
    await Promise.all([stopProcess(api), ...workers.map(stopProcess), stopProcess(sim)]);
    await agent.close();
    // This run's keys only (twice: closing queues may still write their metadata).
    await deleteBenchKeys(REDIS_URL, prefix);
    await new Promise((r) => setTimeout(r, 300));
    await deleteBenchKeys(REDIS_URL, prefix);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
