import { Controller, Get, Header, HttpCode, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { HealthChecks } from './health-checks';
import { MetricsService } from './metrics.service';

@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthChecks,
    private readonly metrics: MetricsService,
  ) {}

  @Get('health/live')
  @HttpCode(200)
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('health/ready')
  async ready(@Res() reply: FastifyReply): Promise<void> {
    const { ready, checks } = await this.health.run();
    const status = ready ? 'ready' : this.health.draining ? 'draining' : 'unavailable';
    await reply.status(ready ? 200 : 503).send({ status, checks });
  }

  @Get('metrics')
  @Header('Cache-Control', 'no-store')
  async metricsText(@Res() reply: FastifyReply): Promise<void> {
    const { contentType, body } = await this.metrics.render();
    await reply.type(contentType).send(body);
  }
}
