import { Module, type DynamicModule, type ModuleMetadata } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { ConfigModule } from '../config/config.module';
import { EngineModule } from '../engine/engine.module';
import { GenerationModule } from '../generation/generation.module';
import { HealthModule } from '../health/health.module';
import { QueueModule } from '../queue/queue.module';
import { ResponsesModule } from '../responses/responses.module';
import { StoreModule } from '../store/store.module';

/**
 * The module graph for a role. `api` serves HTTP (and runs foreground responses); `worker`
 * consumes background jobs without HTTP; `all` is both in one process.
 */
@Module({})
export class AppModule {
  static forRole(config: AppConfig, extra: Pick<ModuleMetadata, 'imports'> = {}): DynamicModule {
    const http = config.role !== 'worker';
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        StoreModule,
        HealthModule,
        EngineModule,
        GenerationModule,
        QueueModule.forRole(config.role !== 'api'),
        ...(http ? [ResponsesModule] : []),
        ...(extra.imports ?? []),
      ],
    };
  }
}
