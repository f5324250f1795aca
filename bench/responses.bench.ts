/**
 * The gateway's cost on top of the engine, in one run (issue: Responses API core):
 * - gateway CPU time per output token (from /proc of the gateway process), target ≤ 5 µs;
 * - added time to first token: first text delta through the gateway minus the engine's own first
 *   token chunk, p50 over sequential requests, target ≤ 2 ms;
 * - delivered tokens/s at 1, 16 and 256 concurrent streams, as a ratio to reading the engine's
 *   stream directly with the same prompt.
 * The engine is the simulated one at full speed in its own process (npm run engine:sim), the
 * gateway is dist/main.js (ROLE=api, ENGINE=vllm), the clients run here.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { renderConversationForCompletion } from '../src/harmony';
import { buildHarmonyPrompt } from '../src/prompt/harmony-prompt';
import { aRequest } from '../test/support/fixtures';
import { deleteBenchKeys, freePort, startProcess, stopProcess } from './support/processes';

const TOKENS = Number(process.env.BENCH_COMPLETION_TOKENS ?? 2_000);
const TTFT_RUNS = Number(process.env.BENCH_TTFT_RUNS ?? 60);
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? '1,16,256').split(',').map(Number);
const agent = new Agent({ connections: 512, keepAliveTimeout: 30_000 });

/** CPU time of every thread of a process, in seconds (schedstat: nanoseconds on CPU). */
function cpuSeconds(pid: number): number {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
  }
  return ns / 1e9;
}

/** Streams one SSE response, calling `onLine` per `data:` line; resolves at the end. */
async function sse(url: string, body: unknown, onData: (data: string) => void): Promise<void> {
  const response = await request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), dispatcher: agent });
  if (response.statusCode !== 200) throw new Error(`${url}: HTTP ${response.statusCode} ${await response.body.text()}`);
  let buffer = '';
  for await (const chunk of response.body) {
    buffer += (chunk as Buffer).toString('utf8');
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line.startsWith('data: ')) onData(line.slice(6));
    }
  }
}

async function main(): Promise<void> {
  const simPort = await freePort();
  const gatewayPort = await freePort();
  const sim = await startProcess(['dist/engine/simulated/sim-server.main.js'], { SIM_PORT: String(simPort), HOST: '127.0.0.1' }, `http://127.0.0.1:${simPort}/health`);
  const prefix = `rgbench-${randomBytes(4).toString('hex')}`;
  const gateway = await startProcess(
    ['dist/main.js'],
    { ROLE: 'api', PORT: String(gatewayPort), HOST: '127.0.0.1', KEY_PREFIX: prefix, ENGINE: 'vllm', ENGINE_URL: `http://127.0.0.1:${simPort}`, LOG_LEVEL: 'warn' },
    `http://127.0.0.1:${gatewayPort}/health/ready`,
  );
  const simUrl = `http://127.0.0.1:${simPort}`;
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  try {
    // A long final answer for every prompt that carries the marker.
    const marker = `bench-${randomBytes(4).toString('hex')}`;
    const words = Array.from({ length: TOKENS }, (_, i) => ` w${i % 10}`).join('');
    await fetch(`${simUrl}/sim/scripts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ match: marker, completion: `<|channel|>final<|message|>${words}<|return|>`, times: 'unlimited' }),
    });
    const gatewayBody = { model: 'gpt-oss-simulated', input: marker, stream: true, store: false };
    const promptTokens = renderConversationForCompletion(buildHarmonyPrompt(aRequest({ input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: marker }] }] }), null, '2026-11-23').messages, 'assistant').tokens;
    const engineBody = {
      model: 'gpt-oss-simulated',
      prompt: promptTokens,
      stream: true,
      return_token_ids: true,
      skip_special_tokens: false,
      stop_token_ids: [200002, 200012],
      max_tokens: TOKENS + 100,
      stream_options: { include_usage: true },
    };

    const viaGateway = async (): Promise<{ tokens: number; firstMs: number }> => {
      const started = performance.now();
      let firstMs = -1;
      let tokens = 0;
      await sse(`${gatewayUrl}/v1/responses`, gatewayBody, (data) => {
        if (firstMs < 0 && data.includes('"response.output_text.delta"')) firstMs = performance.now() - started;
        if (data.startsWith('{"type":"response.completed"')) tokens = (JSON.parse(data) as { response: { usage: { output_tokens: number } } }).response.usage.output_tokens;
      });
      return { tokens, firstMs };
    };
    const direct = async (): Promise<{ tokens: number; firstMs: number }> => {
      const started = performance.now();
      let firstMs = -1;
      let tokens = 0;
      await sse(`${simUrl}/v1/completions`, engineBody, (data) => {
        if (data === '[DONE]') return;
        const chunk = JSON.parse(data) as { choices: Array<{ token_ids?: number[] }> };
        const ids = chunk.choices[0]?.token_ids;
        if (ids?.length) {
          if (firstMs < 0) firstMs = performance.now() - started;
          tokens += ids.length;
        }
      });
      return { tokens, firstMs };
    };

    // Warm up both paths.
    for (let i = 0; i < 10; i += 1) await Promise.all([viaGateway(), direct()]);

    // Added time to first token, sequential.
    const gatewayFirst: number[] = [];
    const directFirst: number[] = [];
    for (let i = 0; i < TTFT_RUNS; i += 1) {
      directFirst.push((await direct()).firstMs);
      gatewayFirst.push((await viaGateway()).firstMs);
    }
    const p50 = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

    // Throughput at each concurrency, and gateway CPU per token.
    const rows: string[] = [];
    let cpuPerToken = 0;
    for (const streams of CONCURRENCY) {
      const runBoth = async (fn: () => Promise<{ tokens: number }>): Promise<{ rate: number; tokens: number; seconds: number }> => {
        const started = performance.now();
        const results = await Promise.all(Array.from({ length: streams }, fn));
        const seconds = (performance.now() - started) / 1000;
        const tokens = results.reduce((sum, r) => sum + r.tokens, 0);
        return { rate: tokens / seconds, tokens, seconds };
      };
      const base = await runBoth(direct);
      const cpuBefore = cpuSeconds(gateway.pid!);
      const ours = await runBoth(viaGateway);
      const cpu = cpuSeconds(gateway.pid!) - cpuBefore;
      if (streams === 16) cpuPerToken = (cpu / ours.tokens) * 1e6;
      rows.push(
        `| ${streams} | ${ours.tokens} | ${(ours.rate / 1000).toFixed(0)}k | ${(base.rate / 1000).toFixed(0)}k | ${(ours.rate / base.rate).toFixed(2)} | ${((cpu / ours.tokens) * 1e6).toFixed(2)} µs |`,
      );
    }
    console.log(`completion of ${TOKENS} tokens per stream; engine at full speed; the client shares the machine's 2 cores\n`);
    console.log(`added time to first token (p50 of ${TTFT_RUNS}): gateway ${p50(gatewayFirst).toFixed(2)} ms, engine ${p50(directFirst).toFixed(2)} ms, added ${(p50(gatewayFirst) - p50(directFirst)).toFixed(2)} ms`);
    console.log(`gateway CPU per output token at 16 streams: ${cpuPerToken.toFixed(2)} µs\n`);
    console.log('| streams | tokens via gateway | gateway tokens/s | direct tokens/s | ratio | gateway CPU/token |');
    console.log('| --- | --- | --- | --- | --- | --- |');
    for (const row of rows) console.log(row);
  } finally {
    await Promise.all([stopProcess(gateway), stopProcess(sim)]);
    await deleteBenchKeys(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix);
    await agent.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
