import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { ValidationPipe, type INestApplicationContext, type ModuleMetadata } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { AppConfig } from '../config/app-config';
import { Errors } from '../common/errors/api-error';
import { AllExceptionsFilter, sendError } from '../common/errors/all-exceptions.filter';
import { toApiError } from '../common/errors/validation-errors';
import { PinoNestLogger } from '../common/logging/logger';
import { MetricsService } from '../health/metrics.service';
import { AppModule } from './app.module';

const REQUEST_ID = /^[\w.:-]{1,128}$/;
// Request ids: a random per-process part and a counter, unique without a CSPRNG call per request.
const PROCESS_ID = randomBytes(6).toString('hex');
let requestCounter = 0;

/** Unknown routes answer straight from the catalogue, without an exception round trip. */
class GatewayFastifyAdapter extends FastifyAdapter {
  override setNotFoundHandler(): ReturnType<FastifyAdapter['setNotFoundHandler']> {
    return super.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) =>
      sendError(reply, Errors.invalidUrl(request.method, request.url)),
    );
  }
}

/** Builds the HTTP application (roles `api` and `all`) without listening. Tests use it too. */
export async function createHttpApp(
  config: AppConfig,
  logger: Logger,
  extra: Pick<ModuleMetadata, 'imports'> = {},
): Promise<NestFastifyApplication> {
  const adapter = new GatewayFastifyAdapter({
    loggerInstance: logger,
    // One access-log line per request, written by our onResponse hook.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimitBytes,
    // In-flight requests finish on shutdown; idle keep-alive sockets are closed at once.
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    requestIdHeader: false,
    genReqId: (request: { headers: Record<string, string | string[] | undefined> }) => {
      const given = request.headers['x-request-id'];
      if (typeof given === 'string' && REQUEST_ID.test(given)) return given;
      requestCounter = (requestCounter + 1) % Number.MAX_SAFE_INTEGER;
      return `req_${PROCESS_ID}${requestCounter.toString(16).padStart(12, '0')}`;
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRole(config, extra), adapter, {
    logger: new PinoNestLogger(logger),
    bufferLogs: false,
    // Fastify's own JSON parser only; Nest would add a form parser the API must not accept.
    bodyParser: false,
  });
  configureHttpApp(app, config);
  await app.init();
  return app;
}

export function configureHttpApp(app: NestFastifyApplication, config: AppConfig): void {
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  // The API speaks JSON only: other bodies are a 415, not strings or forms the DTOs would misread.
  for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
    if (fastify.hasContentTypeParser(type)) fastify.removeContentTypeParser(type);
  }
  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    void reply.header('x-request-id', request.id);
    done();
  });
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    request.log.info(
      { method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 100) / 100 },
      'request completed',
    );
    done();
  });
  app.get(MetricsService).instrument(fastify);
  app.useGlobalFilters(new AllExceptionsFilter(config.bodyLimitBytes));
  app.useGlobalPipes(
    new ValidationPipe({
      whitelist: true,
      forbidNonWhitelisted: true,
      transform: true,
      validationError: { target: false, value: true },
      exceptionFactory: (errors) => toApiError(errors),
    }),
  );
}

/** The worker role: the same modules without an HTTP server. */
export async function createWorkerContext(config: AppConfig, logger: Logger): Promise<INestApplicationContext> {
  const context = await NestFactory.createApplicationContext(AppModule.forRole(config), {
    logger: new PinoNestLogger(logger),
  });
  await context.init();
  return context;
}
