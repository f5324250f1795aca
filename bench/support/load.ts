import { Pool } from 'undici';

export interface LoadResult {
  requests: number;
  errors: number;
  statuses: Record<number, number>;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
}

/**
 * Closed-loop load: `connections` clients each send the next request as soon as the previous
 * answer is read, for `durationMs`. Bounded in time and only ever aimed at a loopback URL.
 */
export async function runLoad(
  url: string,
  options: { connections: number; durationMs: number; method?: 'GET' | 'POST'; body?: string },
): Promise<LoadResult> {
  const target = new URL(url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname)) throw new Error('load tests target loopback only');
  const pool = new Pool(target.origin, { connections: options.connections, pipelining: 1 });
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;
  const started = performance.now();
  const deadline = started + options.durationMs;
  const client = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        const response = await pool.request({
          origin: target.origin,
          path: target.pathname + target.search,
          method: options.method ?? 'GET',
          headers: options.body ? { 'content-type': 'application/json' } : {},
          body: options.body,
        });
        await response.body.dump();
        statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
        latencies.push(performance.now() - t0);
      } catch {
        errors += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: options.connections }, client));
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
  return { requests: latencies.length, errors, statuses, seconds, rps: latencies.length / seconds, p50Ms: at(0.5), p99Ms: at(0.99) };
}
