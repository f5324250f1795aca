import { Inject, Injectable } from '@nestjs/common';
import { ReasoningCipher } from '../common/reasoning-cipher';
import { ENGINE, type ConfiguredEngine } from '../engine/engine.module';
import { chatTurn } from './chat-turn';
import { countHarmonyPromptTokens, harmonyTurn } from './harmony-turn';
import { OutputEmitter } from './output-emitter';
import type { ResponseRun } from './response-run';
import type { RunResult } from './turn-support';
import type { ResponseStreamEvent } from './types/events';

export type { RunResult } from './turn-support';

/**
 * The generation loop (design.md, "Inside ResponseRunner"): builds the prompt, drives the engine,
 * turns its output into Responses events through the OutputEmitter, and ends every run with one
 * terminal event. It knows nothing of HTTP, queues or where events go.
 *
 * A failure before the engine produced anything (engine unavailable, prompt too long, …) is thrown
 * as an EngineError/ApiError after `response.created`/`in_progress` were yielded, so a foreground
 * caller that has sent nothing yet can still answer with an HTTP error. Once output has started,
 * a failure ends the run with `response.failed`; an aborted signal ends it `cancelled`.
 */
@Injectable()
export class ResponseRunner {
  constructor(
    @Inject(ENGINE) private readonly handle: ConfiguredEngine,
    private readonly cipher: ReasoningCipher,
  ) {}

  async *run(run: ResponseRun, signal: AbortSignal): AsyncGenerator<ResponseStreamEvent, RunResult, undefined> {
    const seal = run.request.include.includes('reasoning.encrypted_content') ? (text: string) => this.cipher.seal(text, run.tenant) : undefined;
    const emitter = new OutputEmitter(run, seal);
    yield* emitter.start();
    if (this.handle.format === 'chat') return yield* chatTurn(this.handle.engine, run, emitter, signal);
    return yield* harmonyTurn(this.handle.engine, run, emitter, signal);
  }

  /** The prompt size of a run, as the engine would receive it (harmony engines only). */
  countPromptTokens(run: ResponseRun): number {
    if (this.handle.format !== 'harmony') throw new Error('token counting needs a harmony engine');
    return countHarmonyPromptTokens(run);
  }
}
