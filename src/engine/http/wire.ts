/**
 * Conversions between our camelCase engine types and the OpenAI/vLLM wire fields, shared by the
 * token and chat engines. Wire objects are validated where read: an engine is an external party.
 */
import { EngineError } from '../engine-error';
import type { EngineUsage, Sampling } from '../engine';

export type WireRecord = Record<string, unknown>;

export function samplingFields(sampling: Sampling | undefined): WireRecord {
  const fields: WireRecord = {};
  if (!sampling) return fields;
  if (sampling.temperature !== undefined) fields.temperature = sampling.temperature;
  if (sampling.topP !== undefined) fields.top_p = sampling.topP;
  if (sampling.topK !== undefined) fields.top_k = sampling.topK;
  if (sampling.seed !== undefined) fields.seed = sampling.seed;
  if (sampling.presencePenalty !== undefined) fields.presence_penalty = sampling.presencePenalty;
  if (sampling.frequencyPenalty !== undefined) fields.frequency_penalty = sampling.frequencyPenalty;
  return fields;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** Reads an OpenAI `usage` object; undefined when absent or malformed. */
export function usageFrom(value: unknown): EngineUsage | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const usage = value as WireRecord;
  const promptTokens = count(usage.prompt_tokens);
  const completionTokens = count(usage.completion_tokens);
  if (promptTokens === undefined || completionTokens === undefined) return undefined;
  const result: EngineUsage = { promptTokens, completionTokens };
  const promptDetails = usage.prompt_tokens_details as WireRecord | null | undefined;
  const cached = count(promptDetails?.cached_tokens);
  if (cached !== undefined) result.cachedTokens = cached;
  const completionDetails = usage.completion_tokens_details as WireRecord | null | undefined;
  const reasoning = count(completionDetails?.reasoning_tokens);
  if (reasoning !== undefined) result.reasoningTokens = reasoning;
  return result;
}

/** The first choice of a streamed chunk, or undefined for choice-less chunks (the usage chunk). */
export function firstChoice(event: unknown, label: string): WireRecord | undefined {
  const choices = (event as WireRecord).choices;
  if (choices === undefined || choices === null) return undefined;
  if (!Array.isArray(choices)) throw new EngineError('protocol', `${label} sent a chunk whose "choices" is not an array`);
  if (choices.length === 0) return undefined;
  const choice: unknown = choices[0];
  if (typeof choice !== 'object' || choice === null) {
    throw new EngineError('protocol', `${label} sent a chunk with a malformed choice`);
  }
  return choice as WireRecord;
}

/** Model list entry of `GET /v1/models` (vLLM adds `max_model_len`). */
export interface ModelEntry {
  id: string;
  maxModelLen?: number;
}

export function modelsFrom(body: unknown, label: string): ModelEntry[] {
  const data = (body as WireRecord | null)?.data;
  if (!Array.isArray(data)) throw new EngineError('protocol', `${label} answered GET /v1/models without a "data" list`);
  const models: ModelEntry[] = [];
  for (const entry of data as unknown[]) {
    if (typeof entry !== 'object' || entry === null) continue;
    const record = entry as WireRecord;
    if (typeof record.id !== 'string') continue;
    const model: ModelEntry = { id: record.id };
    const maxLen = count(record.max_model_len);
    if (maxLen !== undefined && maxLen > 0) model.maxModelLen = maxLen;
    models.push(model);
  }
  return models;
}
