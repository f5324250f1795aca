import type { InputItem } from './types/items';
import type { ReasoningEffort, TextFormat, ToolChoiceEcho } from './types/response';

export type IncludeValue = 'reasoning.encrypted_content' | 'message.output_text.logprobs';

export interface FunctionTool {
  type: 'function';
  name: string;
  description: string | null;
  parameters: Record<string, unknown> | null;
  strict: boolean;
}

/**
 * A create request after validation and normalisation (request DTO → this, in one mapper): every
 * default applied, `input` always a list of items, camelCase. The runner and the stores only ever
 * see this shape.
 */
export interface ResponseRequest {
  model: string;
  input: InputItem[];
  instructions: string | null;
  tools: FunctionTool[];
  toolChoice: ToolChoiceEcho;
  parallelToolCalls: boolean;
  maxOutputTokens: number | null;
  maxToolCalls: number | null;
  /** null = the engine's default (echoed as 1 in the Response, like OpenAI). */
  temperature: number | null;
  topP: number | null;
  topLogprobs: number;
  textFormat: TextFormat;
  verbosity: 'low' | 'medium' | 'high';
  reasoningEffort: ReasoningEffort | null;
  reasoningSummary: 'auto' | 'concise' | 'detailed' | null;
  store: boolean;
  stream: boolean;
  background: boolean;
  metadata: Record<string, string>;
  previousResponseId: string | null;
  truncation: 'auto' | 'disabled';
  user: string | null;
  safetyIdentifier: string | null;
  promptCacheKey: string | null;
  serviceTier: 'auto' | 'default' | 'flex' | 'scale' | 'priority';
  include: IncludeValue[];
  includeObfuscation: boolean;
}
