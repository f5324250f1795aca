import type { ResponseRun } from './response-run';
import type { ResponseObject, ResponseStatus } from './types/response';

/**
 * The Response as it stands before any output: every request setting echoed, normalised, with
 * every key present (contract §0.5). `created`/`in_progress`/`queued` events carry this object.
 */
export function initialResponse(run: ResponseRun, status: ResponseStatus): ResponseObject {
  const r = run.request;
  return {
    id: run.responseId,
    object: 'response',
    created_at: run.createdAt,
    completed_at: null,
    status,
    error: null,
    incomplete_details: null,
    instructions: r.instructions,
    model: run.model,
    output: [],
    parallel_tool_calls: r.parallelToolCalls,
    previous_response_id: r.previousResponseId,
    conversation: null,
    reasoning: { effort: r.reasoningEffort, summary: r.reasoningSummary },
    max_output_tokens: r.maxOutputTokens,
    max_tool_calls: r.maxToolCalls,
    temperature: r.temperature ?? 1,
    top_p: r.topP ?? 1,
    top_logprobs: r.topLogprobs,
    presence_penalty: 0,
    frequency_penalty: 0,
    text: { format: r.textFormat, verbosity: r.verbosity },
    tool_choice: r.toolChoice,
    tools: r.tools.map((tool) => ({ ...tool })),
    truncation: r.truncation,
    store: r.store,
    background: r.background,
    // The tier actually used: a self-hosted engine has one.
    service_tier: 'default',
    metadata: { ...r.metadata },
    prompt_cache_key: r.promptCacheKey,
    safety_identifier: r.safetyIdentifier,
    user: r.user,
    usage: null,
  };
}
