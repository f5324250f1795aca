import type { ResponseRequest } from '../../src/generation/response-request';
import type { ResponseRun } from '../../src/generation/response-run';
import { initialResponse } from '../../src/generation/initial-response';
import type { ResponseObject, ResponseStatus } from '../../src/generation/types/response';
import { newResponseId } from '../../src/common/ids';

/** A normalised request with every default applied (factory for tests). */
export function aRequest(overrides: Partial<ResponseRequest> = {}): ResponseRequest {
  return {
    model: 'gpt-oss-simulated',
    input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
    instructions: null,
    tools: [],
    toolChoice: 'auto',
    parallelToolCalls: true,
    maxOutputTokens: null,
    maxToolCalls: null,
    temperature: null,
    topP: null,
    topLogprobs: 0,
    textFormat: { type: 'text' },
    verbosity: 'medium',
    reasoningEffort: null,
    reasoningSummary: null,
    store: true,
    stream: false,
    background: false,
    metadata: {},
    previousResponseId: null,
    truncation: 'disabled',
    user: null,
    safetyIdentifier: null,
    promptCacheKey: null,
    serviceTier: 'auto',
    include: [],
    includeObfuscation: false,
    ...overrides,
  };
}

export function aRun(overrides: Partial<ResponseRun> = {}, request: Partial<ResponseRequest> = {}): ResponseRun {
  return {
    responseId: newResponseId(),
    tenant: 'default',
    createdAt: Math.floor(Date.now() / 1000),
    model: 'gpt-oss-simulated',
    request: aRequest(request),
    history: null,
    ...overrides,
  };
}

export function aResponse(status: ResponseStatus, run: ResponseRun = aRun()): ResponseObject {
  return initialResponse(run, status);
}
