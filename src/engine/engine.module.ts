import { Global, Inject, Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { HealthChecks } from '../health/health-checks';
import { ChatCompletionsEngine } from './chat/chat-engine';
import type { ChatEngine, Engine } from './engine';
import { SimulatedEngine } from './simulated/simulated-engine';
import { VllmEngine } from './vllm/vllm-engine';

/** Injection token of the configured engine. */
export const ENGINE = 'ENGINE';

/**
 * The engine this process talks to, tagged with the prompt format it needs: harmony token ids
 * (vLLM serving gpt-oss, or the simulated engine) or chat messages (any chat-completions server).
 */
export type ConfiguredEngine = { format: 'harmony'; engine: Engine } | { format: 'chat'; engine: ChatEngine };

export function createEngine(config: AppConfig): ConfiguredEngine {
  const http = {
    firstTokenTimeoutMs: config.engineFirstTokenTimeoutMs,
    idleTimeoutMs: config.engineIdleTimeoutMs,
    ...(config.engineModel ? { model: config.engineModel } : {}),
  };
  switch (config.engine) {
    case 'vllm':
      return { format: 'harmony', engine: new VllmEngine({ url: requireUrl(config), ...http }) };
    case 'chat':
      return { format: 'chat', engine: new ChatCompletionsEngine({ url: requireUrl(config), ...http }) };
    case 'simulated':
      return {
        format: 'harmony',
        engine: new SimulatedEngine({
          ...(config.engineModel ? { model: config.engineModel } : {}),
          ttftMs: config.simTtftMs,
          tokensPerSecond: config.simTokensPerSecond,
        }),
      };
  }
}

function requireUrl(config: AppConfig): string {
  // Config validation already demands it; this keeps the type honest.
  if (!config.engineUrl) throw new Error(`ENGINE=${config.engine} needs ENGINE_URL`);
  return config.engineUrl;
}

/** Provides the configured engine as `ENGINE`, adds its readiness check, closes it on shutdown. */
@Global()
@Module({
  providers: [{ provide: ENGINE, useFactory: createEngine, inject: [AppConfig] }],
  exports: [ENGINE],
})
export class EngineModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(ENGINE) private readonly configured: ConfiguredEngine,
    private readonly checks: HealthChecks,
  ) {}

  onModuleInit(): void {
    this.checks.register('engine', () => this.configured.engine.health());
  }

  async onApplicationShutdown(): Promise<void> {
    await this.configured.engine.close();
  }
}
