import { Global, Module, type OnModuleInit } from '@nestjs/common';
import { RedisService } from '../store/redis.service';
import { HealthChecks } from './health-checks';
import { HealthController } from './health.controller';
import { MetricsService } from './metrics.service';

@Global()
@Module({
  controllers: [HealthController],
  providers: [HealthChecks, MetricsService],
  exports: [HealthChecks, MetricsService],
})
export class HealthModule implements OnModuleInit {
  constructor(
    private readonly checks: HealthChecks,
    private readonly redis: RedisService,
  ) {}

  onModuleInit(): void {
    this.checks.register('redis', () => this.redis.health());
  }
}
