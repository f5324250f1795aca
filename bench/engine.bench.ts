/**
 * Tokens/s the vLLM token engine (`VllmEngine`: SSE parsing, JSON, token-id validation, timers)
 * can consume from the simulated engine at full speed, with 1, 16 and 128 concurrent streams, as
 * a ratio to a raw HTTP read of the same streams (undici, counting bytes only) in the same run.
 * The simulated server runs in a child process, so the client is measured on its own core.
 * Targets: ≥ 0.8 of raw; ≥ 500k tokens/s at 16 streams. Reports only; never fails on timing.
 * When the server is the bottleneck both reads run at its speed, so the CPU columns also give what
 * each reader costs: tokens per CPU-second of this process (its capacity on one core).
 *
 *   node -r @swc-node/register bench/engine.bench.ts [rounds]
 */
import { Pool } from 'undici';
import { SimServer } from '../src/engine/simulated/sim-server';
import { VllmEngine } from '../src/engine/vllm/vllm-engine';
import { freePort, startProcess, stopProcess } from './support/processes';

const MARKER = 'ENGINE-BENCH-STREAM';
const STOP_TOKENS = [200002, 200012];
/** Tokens per round at each concurrency (split evenly over the streams). */
const LEVELS: ReadonlyArray<{ streams: number; tokens: number }> = [
  { streams: 1, tokens: 2_000_000 },
  { streams: 16, tokens: 4_000_000 },
  { streams: 128, tokens: 4_000_000 },
];

async function serve(port: number): Promise<void> {
  const server = new SimServer({ port, contextLength: 10_000_000 });
  // Ordinary prose, looped until max_tokens: realistic token ids and text per chunk.
  server.engine.scripts.add({
    match: MARKER,
    completion: '<|channel|>final<|message|>The quick brown fox jumps over the lazy dog, and then it runs far away into the forest. ',
    times: 'unlimited',
    loop: true,
  });
  await server.listen();
  process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
}

interface Measured {
  tokens: number;
  seconds: number;
  /** CPU seconds this (reading) process spent: user + system. */
  cpuSeconds: number;
}

async function timed(tokens: () => Promise<number>): Promise<Measured> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const count = await tokens();
  const used = process.cpuUsage(cpu);
  return { tokens: count, seconds: (performance.now() - started) / 1000, cpuSeconds: (used.user + used.system) / 1e6 };
}

async function rawRead(pool: Pool, body: string, streams: number, expectedTokens: number): Promise<Measured> {
  return timed(async () => {
    await Promise.all(
      Array.from({ length: streams }, async () => {
        const res = await pool.request({ path: '/v1/completions', method: 'POST', body, headers: { 'content-type': 'application/json' } });
        let bytes = 0;
        for await (const chunk of res.body) bytes += (chunk as Buffer).length;
        if (res.statusCode !== 200 || bytes === 0) throw new Error(`raw read failed: HTTP ${res.statusCode}`);
      }),
    );
    return expectedTokens * streams;
  });
}

async function engineRead(engine: VllmEngine, promptTokens: number[], streams: number, maxTokens: number): Promise<Measured> {
  return timed(async () => {
    const counts = await Promise.all(
      Array.from({ length: streams }, async () => {
        let tokens = 0;
        for await (const chunk of engine.generate({ promptTokens, maxTokens, stopTokenIds: STOP_TOKENS, signal: new AbortController().signal })) {
          tokens += chunk.tokenIds.length;
        }
        return tokens;
      }),
    );
    const tokens = counts.reduce((a, b) => a + b, 0);
    if (tokens !== maxTokens * streams) throw new Error(`engine read ${tokens} tokens, expected ${maxTokens * streams}`);
    return tokens;
  });
}

const rate = (m: Measured): number => m.tokens / m.seconds;
const best = (runs: Measured[]): Measured => runs.reduce((a, b) => (rate(b) > rate(a) ? b : a));
/** Tokens per CPU-second of the reading process: what one core could sustain if the server kept up. */
const capacity = (runs: Measured[]): number => Math.max(...runs.map((m) => m.tokens / m.cpuSeconds));

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 3);
  const port = await freePort();
  const child = await startProcess(['-r', '@swc-node/register', 'bench/engine.bench.ts', 'serve', String(port)], {}, `http://127.0.0.1:${port}/health`);
  const url = `http://127.0.0.1:${port}`;
  // Only used to build the prompt ids; the measured client is VllmEngine.
  const local = new SimServer();
  const promptTokens = local.engine.codec.encodeHarmony(`<|start|>user<|message|>${MARKER}<|end|><|start|>assistant`);
  const engine = new VllmEngine({ url, model: 'gpt-oss-simulated', maxConnections: 256 });
  const pool = new Pool(url, { connections: 256 });
  try {
    console.log(`simulated server in a child process; best of ${rounds} rounds per cell\n`);
    console.log('| streams | raw read tok/s | VllmEngine tok/s | ratio | raw tok per CPU-s | VllmEngine tok per CPU-s | CPU ratio |');
    console.log('| --- | --- | --- | --- | --- | --- | --- |');
    for (const { streams, tokens } of LEVELS) {
      const maxTokens = Math.floor(tokens / streams);
      const body = JSON.stringify({
        model: 'gpt-oss-simulated',
        prompt: promptTokens,
        max_tokens: maxTokens,
        stream: true,
        stream_options: { include_usage: true },
        return_token_ids: true,
        skip_special_tokens: false,
        stop_token_ids: STOP_TOKENS,
      });
      await rawRead(pool, body, streams, Math.min(maxTokens, 50_000)); // warm-up (JIT, connections)
      await engineRead(engine, promptTokens, streams, Math.min(maxTokens, 50_000));
      const raws: Measured[] = [];
      const ours: Measured[] = [];
      for (let round = 0; round < rounds; round++) {
        // Alternate the order so neither side always runs on a warmer server.
        if (round % 2 === 0) raws.push(await rawRead(pool, body, streams, maxTokens));
        ours.push(await engineRead(engine, promptTokens, streams, maxTokens));
        if (round % 2 === 1) raws.push(await rawRead(pool, body, streams, maxTokens));
      }
      const raw = rate(best(raws));
      const client = rate(best(ours));
      const rawCpu = capacity(raws);
      const clientCpu = capacity(ours);
      console.log(
        `| ${streams} | ${fmt(raw)} | ${fmt(client)} | ${(client / raw).toFixed(2)} | ${fmt(rawCpu)} | ${fmt(clientCpu)} | ${(clientCpu / rawCpu).toFixed(2)} |`,
      );
    }
  } finally {
    await engine.close();
    await pool.close();
    await stopProcess(child);
  }
}

function fmt(tokensPerSecond: number): string {
  return `${(tokensPerSecond / 1000).toFixed(0)}k`;
}

if (process.argv[2] === 'serve') {
  serve(Number(process.argv[3])).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
} else {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
