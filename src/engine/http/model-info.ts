import { EngineError } from '../engine-error';
import type { EngineHealth } from '../engine';
import type { EngineHttpClient } from './engine-http-client';
import { modelsFrom, type ModelEntry } from './wire';

/**
 * What an OpenAI-compatible engine says about itself: the served model id and context length
 * (`GET /v1/models`, learned once and cached), and liveness (`GET /health`).
 */
export class ModelInfo {
  private models: Promise<ModelEntry[]> | undefined;

  constructor(
    private readonly http: EngineHttpClient,
    private readonly configuredModel: string | undefined,
    private readonly timeoutMs: number,
  ) {}

  async modelId(): Promise<string> {
    if (this.configuredModel) return this.configuredModel;
    const models = await this.list();
    const first = models[0];
    if (!first) throw new EngineError('server_error', `${this.http.label} serves no model (GET /v1/models is empty)`);
    return first.id;
  }

  async contextLength(): Promise<number | undefined> {
    const models = await this.list();
    const id = await this.modelId();
    return (models.find((model) => model.id === id) ?? (this.configuredModel ? undefined : models[0]))?.maxModelLen;
  }

  async health(): Promise<EngineHealth> {
    try {
      await this.http.get('/health', this.timeoutMs);
    } catch (error) {
      return { up: false, reason: error instanceof Error ? error.message : String(error) };
    }
    try {
      const health: EngineHealth = { up: true, model: await this.modelId() };
      const contextLength = await this.contextLength();
      if (contextLength !== undefined) health.contextLength = contextLength;
      return health;
    } catch {
      // /health answered; details are a bonus (some engines have no model list).
      return { up: true };
    }
  }

  /** Cached on success only, so an engine that was down at first is asked again later. */
  private list(): Promise<ModelEntry[]> {
    if (!this.models) {
      const pending = this.http
        .getJson('/v1/models', this.timeoutMs)
        .then((body) => modelsFrom(body, this.http.label));
      pending.catch(() => {
        if (this.models === pending) this.models = undefined;
      });
      this.models = pending;
    }
    return this.models;
  }
}
