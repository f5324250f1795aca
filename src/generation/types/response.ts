import type { OutputItem } from './items';

export type ResponseStatus = 'queued' | 'in_progress' | 'completed' | 'incomplete' | 'failed' | 'cancelled';
export const TERMINAL_STATUSES: readonly ResponseStatus[] = ['completed', 'incomplete', 'failed', 'cancelled'];

export type ReasoningEffort = 'low' | 'medium' | 'high';

export interface FunctionToolEcho {
  type: 'function';
  name: string;
  description: string | null;
  parameters: Record<string, unknown> | null;
  strict: boolean;
}

export type ToolEcho = FunctionToolEcho;

export type ToolChoiceEcho = 'auto' | 'none' | 'required' | { type: 'function'; name: string };

export type TextFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; description: string | null; strict: boolean };

export interface ResponseError {
  code: 'server_error' | 'rate_limit_exceeded' | 'invalid_prompt';
  message: string;
}

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/** The Response object, with every key present (nullable keys as explicit null). */
export interface ResponseObject {
  id: string;
  object: 'response';
  created_at: number;
  completed_at: number | null;
  status: ResponseStatus;
  error: ResponseError | null;
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
  instructions: string | null;
  model: string;
  output: OutputItem[];
  parallel_tool_calls: boolean;
  previous_response_id: string | null;
  conversation: { id: string } | null;
  reasoning: { effort: ReasoningEffort | null; summary: 'auto' | 'concise' | 'detailed' | null };
  max_output_tokens: number | null;
  max_tool_calls: number | null;
  temperature: number;
  top_p: number;
  top_logprobs: number;
  presence_penalty: number;
  frequency_penalty: number;
  text: { format: TextFormat; verbosity: 'low' | 'medium' | 'high' };
  tool_choice: ToolChoiceEcho;
  tools: ToolEcho[];
  truncation: 'auto' | 'disabled';
  store: boolean;
  background: boolean;
  service_tier: 'auto' | 'default' | 'flex' | 'scale' | 'priority';
  metadata: Record<string, string>;
  prompt_cache_key: string | null;
  safety_identifier: string | null;
  user: string | null;
  usage: ResponseUsage | null;
}
