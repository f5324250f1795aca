import OpenAI from 'openai';
import { SimServer } from '../../src/engine/simulated/sim-server';
import { startTestApp, type TestApp } from './app';
import { deleteKeys, testPrefix } from './redis';

export interface Gateway {
  app: TestApp;
  sim: SimServer;
  prefix: string;
  client(apiKey?: string): OpenAI;
  close(): Promise<void>;
}

/**
 * The gateway over real HTTP, driving the simulated engine through its vLLM-compatible HTTP
 * server (ENGINE=vllm), with its own Redis key prefix that `close()` cleans up.
 */
export async function startGateway(env: Record<string, string> = {}, name = 'gw', simOptions: { contextLength?: number } = {}): Promise<Gateway> {
  const sim = new SimServer({ port: 0, ...simOptions });
  const simUrl = await sim.listen();
  const prefix = testPrefix(name);
  const app = await startTestApp({ KEY_PREFIX: prefix, ENGINE: 'vllm', ENGINE_URL: simUrl, ...env });
  return {
    app,
    sim,
    prefix,
    client: (apiKey = 'unused') => new OpenAI({ apiKey, baseURL: `${app.url}/v1`, maxRetries: 0, timeout: 20_000 }),
    async close() {
      await app.close();
      await sim.close();
      await deleteKeys(prefix);
    },
  };
}
