/**
 * Requests/s and p50/p99 latency of GET /health/live and of an unknown route (the error path),
 * for the gateway (`dist/main.js`, ROLE=api, default LOG_LEVEL=info with one access-log line per
 * request) and, in the same run, a bare Fastify server as the baseline. Reports ratios.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { runLoad, type LoadResult } from './support/load';
import { deleteBenchKeys, freePort, ROOT, startProcess, stopProcess } from './support/processes';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 5_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

async function measure(url: string): Promise<LoadResult> {
  await runLoad(url, { connections: CONNECTIONS, durationMs: 1_000 }); // warm-up
  const results: LoadResult[] = [];
  for (let round = 0; round < ROUNDS; round += 1) results.push(await runLoad(url, { connections: CONNECTIONS, durationMs: DURATION_MS }));
  return results.sort((a, b) => b.rps - a.rps)[0]!; // best round: least disturbed by the machine
}

async function main(): Promise<void> {
  if (!existsSync(resolve(ROOT, 'dist/main.js'))) throw new Error('build first: npm run build');
  const gatewayPort = await freePort();
  const barePort = await freePort();
  const prefix = `rgbench-${randomBytes(4).toString('hex')}`;
  const gateway = await startProcess(
    ['dist/main.js'],
    { ROLE: 'api', PORT: String(gatewayPort), HOST: '127.0.0.1', KEY_PREFIX: prefix, LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' },
    `http://127.0.0.1:${gatewayPort}/health/ready`,
  );
  const bare = await startProcess(
    ['-r', '@swc-node/register', 'bench/support/bare-fastify.ts', String(barePort)],
    {},
    `http://127.0.0.1:${barePort}/health/live`,
  );
  try {
    const rows: Array<[string, LoadResult, LoadResult]> = [];
    for (const [name, path] of [
      ['GET /health/live', '/health/live'],
      ['GET unknown route (404)', '/v1/no-such-route'],
    ] as const) {
      const base = await measure(`http://127.0.0.1:${barePort}${path}`);
      const ours = await measure(`http://127.0.0.1:${gatewayPort}${path}`);
      rows.push([name, ours, base]);
    }
    console.log(`connections=${CONNECTIONS} duration=${DURATION_MS}ms rounds=${ROUNDS} (best round each)\n`);
    console.log('| route | gateway req/s | bare req/s | ratio | gateway p50/p99 ms | bare p50/p99 ms |');
    console.log('| --- | --- | --- | --- | --- | --- |');
    for (const [name, ours, base] of rows) {
      console.log(
        `| ${name} | ${ours.rps.toFixed(0)} | ${base.rps.toFixed(0)} | ${(ours.rps / base.rps).toFixed(2)} | ` +
          `${ours.p50Ms.toFixed(2)} / ${ours.p99Ms.toFixed(2)} | ${base.p50Ms.toFixed(2)} / ${base.p99Ms.toFixed(2)} |`,
      );
      if (ours.errors + base.errors > 0) console.log(`  (errors: gateway ${ours.errors}, bare ${base.errors})`);
    }
  } finally {
    await Promise.all([stopProcess(gateway), stopProcess(bare)]);
    await deleteBenchKeys(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
