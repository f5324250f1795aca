import { Injectable } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { RedisService } from '../store/redis.service';

const startTimes = new WeakMap<FastifyRequest, bigint>();

/** Prometheus metrics of this process, served by GET /metrics. */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  private readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method, route template and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  private readonly inFlight = new Gauge({
    name: 'http_requests_in_flight',
    help: 'HTTP requests being served right now.',
    registers: [this.registry],
  });
  readonly redisErrors = new Counter({
    name: 'redis_errors_total',
    help: 'Redis connection errors, by connection.',
    labelNames: ['connection'] as const,
    registers: [this.registry],
  });

  constructor(redis: RedisService) {
    collectDefaultMetrics({ register: this.registry });
    redis.onError((connection) => this.redisErrors.inc({ connection }));
  }

  /** Adds request hooks to the Fastify instance; cheap enough for every request. */
  instrument(fastify: FastifyInstance): void {
    fastify.addHook('onRequest', (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
      startTimes.set(request, process.hrtime.bigint());
      this.inFlight.inc();
      done();
    });
    fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      this.inFlight.dec();
      const started = startTimes.get(request);
      if (started !== undefined) {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        // The route template (not the raw URL) keeps label cardinality bounded.
        const route = request.routeOptions.url ?? 'unmatched';
        this.httpDuration.observe({ method: request.method, route, status: String(reply.statusCode) }, seconds);
      }
      done();
    });
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
