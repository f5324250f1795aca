import type { EngineHealth } from '../engine';
import { EngineHttpClient, type EngineHttpOptions } from './engine-http-client';
import { ModelInfo } from './model-info';

export interface HttpEngineOptions extends EngineHttpOptions {
  /** Model name to send; learned from `GET /v1/models` when unset. */
  model?: string;
  /** Timeout of `GET /v1/models` and `GET /health`. */
  metadataTimeoutMs?: number;
}

/** What every HTTP engine client shares: its connection pool, the model it serves, health, close. */
export abstract class HttpEngine {
  protected readonly http: EngineHttpClient;
  protected readonly info: ModelInfo;

  protected constructor(
    options: HttpEngineOptions,
    protected readonly label: string,
  ) {
    this.http = new EngineHttpClient(options, label);
    this.info = new ModelInfo(this.http, options.model, options.metadataTimeoutMs ?? 5_000);
  }

  modelId(): Promise<string> {
    return this.info.modelId();
  }

  contextLength(): Promise<number | undefined> {
    return this.info.contextLength();
  }

  health(): Promise<EngineHealth> {
    return this.info.health();
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
