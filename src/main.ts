import 'reflect-metadata';
import type { Server } from 'node:http';
import { loadConfigOrExit } from './config/load-config';
import { createLogger } from './common/logging/logger';
import { createHttpApp, createWorkerContext } from './app/create-app';
import { closeOnSignals } from './app/shutdown';
import { RedisService } from './store/redis.service';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger(config.logLevel, config.role);

  if (config.role === 'worker') {
    const context = await createWorkerContext(config, logger);
    closeOnSignals(context, { timeoutMs: config.shutdownTimeoutMs, logger });
    const redis = context.get(RedisService);
    const health = await redis.health(5_000);
    logger.info({ redis: health }, 'worker started');
    return;
  }

  const app = await createHttpApp(config, logger);
  closeOnSignals(app, {
    timeoutMs: config.shutdownTimeoutMs,
    logger,
    server: app.getHttpServer() as Server,
  });
  await app.listen({ port: config.port, host: config.host });
  const shown = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  logger.info(
    { url: `http://${shown}:${config.port}`, role: config.role, engine: config.engine },
    `listening on http://${shown}:${config.port}`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
