import type { EngineUsage } from '../engine/engine';
import type { ResponseUsage } from './types/response';

/** Usage summed over the engine turns of one response (several turns once built-in tools run). */
export class UsageCounter {
  private input = 0;
  private cached = 0;
  private output = 0;
  private reasoning = 0;

  /** One engine turn: its prompt and completion sizes (engine-reported when available). */
  addTurn(promptTokens: number, completionTokens: number, engine?: EngineUsage): void {
    this.input += engine?.promptTokens ?? promptTokens;
    this.output += engine?.completionTokens ?? completionTokens;
    this.cached += engine?.cachedTokens ?? 0;
  }

  addReasoning(tokens: number): void {
    this.reasoning += tokens;
  }

  get outputTokens(): number {
    return this.output;
  }

  toUsage(): ResponseUsage {
    return {
      input_tokens: this.input,
      input_tokens_details: { cached_tokens: this.cached, cache_write_tokens: 0 },
      output_tokens: this.output,
      output_tokens_details: { reasoning_tokens: Math.min(this.reasoning, this.output) },
      total_tokens: this.input + this.output,
    };
  }
}
