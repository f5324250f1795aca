import type { INestApplicationContext } from '@nestjs/common';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { HealthChecks } from '../health/health-checks';

/**
 * SIGTERM/SIGINT: report not-ready, stop accepting, let in-flight requests finish for at most
 * `timeoutMs`, then cut the remaining connections so shutdown never hangs; Redis closes last
 * (RedisService.onApplicationShutdown runs after the HTTP server is closed).
 */
export interface CloseOptions {
  timeoutMs: number;
  logger: Logger;
  server?: Server;
}

/** Drains and closes the application; resolves when everything is closed. */
export async function gracefulClose(app: INestApplicationContext, options: CloseOptions): Promise<void> {
  const { logger, server, timeoutMs } = options;
  logger.info({ timeoutMs }, 'shutting down: draining in-flight work');
  markDraining(app);
  const force = setTimeout(() => {
    logger.warn('shutdown grace period over: closing the remaining connections');
    server?.closeAllConnections();
  }, timeoutMs);
  // A keep-alive connection whose request finishes during the drain would otherwise stay open
  // until the grace period ends: close connections as soon as they go idle.
  const reapIdle = setInterval(() => server?.closeIdleConnections(), 50);
  try {
    await app.close();
  } finally {
    clearTimeout(force);
    clearInterval(reapIdle);
  }
  logger.info('shutdown complete');
}

export function closeOnSignals(app: INestApplicationContext, options: CloseOptions): void {
  let closing = false;
  const close = (signal: NodeJS.Signals): void => {
    if (closing) return;
    closing = true;
    options.logger.info({ signal }, 'signal received');
    // Last resort if something still holds the process (a hung shutdown hook).
    const abort = setTimeout(() => {
      options.logger.error('shutdown did not complete; exiting');
      process.exit(1);
    }, options.timeoutMs + 5_000);
    abort.unref();
    gracefulClose(app, options)
      .then(() => {
        options.logger.flush();
        // Everything is closed; leftover library timers must not hold the process.
        process.exit(0);
      })
      .catch((error: unknown) => {
        options.logger.error({ err: error }, 'error during shutdown');
        process.exit(1);
      })
      .finally(() => clearTimeout(abort));
  };
  process.once('SIGTERM', close);
  process.once('SIGINT', close);
}

function markDraining(app: INestApplicationContext): void {
  try {
    app.get(HealthChecks, { strict: false }).draining = true;
  } catch {
    // The worker role has no health module and nothing to drain from a load balancer.
  }
}
