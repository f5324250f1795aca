import type { Server } from 'node:http';
import type { ModuleMetadata } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp } from '../../src/app/create-app';
import type { AppConfig } from '../../src/config/app-config';
import { loadConfig } from '../../src/config/load-config';
import { createLogger } from '../../src/common/logging/logger';
import { TEST_REDIS_URL } from './redis';

export interface TestApp {
  app: NestFastifyApplication;
  config: AppConfig;
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Starts the real HTTP app on a random loopback port with the given environment overrides. */
export async function startTestApp(
  env: Record<string, string>,
  extra: Pick<ModuleMetadata, 'imports'> = {},
): Promise<TestApp> {
  const config = loadConfig({ REDIS_URL: TEST_REDIS_URL, LOG_LEVEL: 'silent', PORT: '8080', ROLE: 'api', ...env });
  const logger = createLogger(config.logLevel, config.role);
  const app = await createHttpApp(config, logger, extra);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const server = app.getHttpServer() as Server;
  const { port } = server.address() as { port: number };
  return { app, config, server, url: `http://127.0.0.1:${port}`, close: () => app.close() };
}
