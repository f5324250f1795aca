import 'reflect-metadata';
import { loadConfigOrExit } from '../../config/load-config';
import { SimServer } from './sim-server';

/** `npm run engine:sim`: the simulated engine as a standalone vLLM-compatible server on SIM_PORT. */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const server = new SimServer({
    port: config.simPort,
    host: config.host,
    ttftMs: config.simTtftMs,
    tokensPerSecond: config.simTokensPerSecond,
  });
  const url = await server.listen();
  const shown = url.replace('0.0.0.0', '127.0.0.1');
  process.stdout.write(
    `${JSON.stringify({ level: 'info', msg: `simulated engine listening on ${shown}`, model: server.engine.model, ttftMs: config.simTtftMs, tokensPerSecond: config.simTokensPerSecond })}\n`,
  );
  const stop = (): void => {
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
