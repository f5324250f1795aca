import { Module, type DynamicModule, type ModuleMetadata } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { ConfigModule } from '../config/config.module';
import { EngineModule } from '../engine/engine.module';
import { HealthModule } from '../health/health.module';
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
        ...(http ? [HealthModule, EngineModule, ResponsesModule] : []),
        ...(extra.imports ?? []),
      ],
    };
  }
}
