import type { Sampling } from '../engine/engine';
import { EngineError } from '../engine/engine-error';
import type { ConversationRecord } from '../store/response-store';
import type { Outcome } from './output-emitter';
import type { ResponseRequest } from './response-request';
import type { ResponseRun } from './response-run';
import type { ResponseObject } from './types/response';

export interface RunResult {
  /** The final Response: the fold of every event yielded. */
  response: ResponseObject;
  /** The engine-level conversation after this response, for chaining. */
  conversation: ConversationRecord;
}

/** The prompt cache key, scoped to the tenant so tenants cannot probe each other's cached prompts. */
export function cacheSaltOf(run: ResponseRun): string {
  return `${run.tenant}:${run.request.promptCacheKey ?? ''}`;
}

export function samplingOf(request: ResponseRequest): Sampling {
  return {
    ...(request.temperature !== null ? { temperature: request.temperature } : {}),
    ...(request.topP !== null ? { topP: request.topP } : {}),
  };
}

export function failed(message: string): Outcome {
  return { status: 'failed', error: { code: 'server_error', message } };
}

export function messageOf(error: unknown): string {
  return error instanceof EngineError ? error.message : 'The server had an error while generating the response.';
}
