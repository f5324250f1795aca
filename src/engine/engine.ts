/**
 * The contract between the generation loop and an inference engine (design.md, "Engine contract").
 * Two shapes: `Engine` streams harmony token ids for a token prompt (vLLM's /v1/completions);
 * `ChatEngine` streams chat deltas for chat messages (any /v1/chat/completions server).
 * Nothing here knows about Responses events: engines only move tokens and deltas.
 *
 * Stream rules shared by both:
 * - exactly one chunk carries `finishReason`, and it is the last one; `usage` (when the engine
 *   reports it) rides on that same last chunk;
 * - a failure is thrown as an `EngineError` (engine-error.ts), never yielded; aborting `signal`
 *   throws an `EngineError` of kind `aborted` and closes the engine connection;
 * - breaking out of the loop early also closes the engine connection (the engine stops generating).
 */
export type EngineKind = 'vllm' | 'chat' | 'simulated';

/** Why generation ended. `abort` is the engine's own report (e.g. it dropped the request). */
export type FinishReason = 'stop' | 'length' | 'abort';

export interface Sampling {
  temperature?: number;
  topP?: number;
  topK?: number;
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
}

/** A JSON Schema value as given by the client; engines pass it through untouched. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** A decoding constraint. `json_schema` also covers Responses' `text.format` of that type. */
export type StructuredOutput =
  | { type: 'json_schema'; schema: JsonSchema; name?: string; strict?: boolean }
  | { type: 'json_object' };

export interface EngineUsage {
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens served from the engine's prefix cache, when it reports them. */
  cachedTokens?: number;
  /** Chat engines only, when the server reports it. */
  reasoningTokens?: number;
}

export type EngineHealth =
  | { up: true; model?: string; contextLength?: number }
  | { up: false; reason: string };

export interface GenerateRequest {
  promptTokens: readonly number[];
  maxTokens: number;
  sampling?: Sampling;
  /** Generation stops after emitting one of these (harmony: 200002 `<|return|>`, 200012 `<|call|>`). */
  stopTokenIds: readonly number[];
  structuredOutput?: StructuredOutput;
  /** Salts the engine's prefix cache so tenants cannot probe each other's prompts. */
  cacheSalt?: string;
  /** Sent as `X-Request-Id` so engine logs can be correlated with the response. */
  requestId?: string;
  signal: AbortSignal;
}

export interface GenerateChunk {
  /** New completion token ids. When generation stopped on a stop token, it is the last id here. */
  tokenIds: number[];
  finishReason?: FinishReason;
  /** The stop token that ended generation, when `finishReason` is `stop` because of one. */
  stopTokenId?: number;
  usage?: EngineUsage;
}

/** Harmony token engine: token ids in, token ids out. */
export interface Engine {
  readonly kind: EngineKind;
  generate(request: GenerateRequest): AsyncIterable<GenerateChunk>;
  /** The served model id (configured, or learned from the engine's model list). */
  modelId(): Promise<string>;
  /** The model's context window in tokens, learned lazily; undefined if the engine does not say. */
  contextLength(): Promise<number | undefined>;
  health(): Promise<EngineHealth>;
  /** Closes keep-alive connections; in-flight streams are aborted. */
  close(): Promise<void>;
}

// ---- chat-completions engines -------------------------------------------------------------

export type ChatContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; imageUrl: { url: string; detail?: 'auto' | 'low' | 'high' } };

export interface ChatToolCall {
  id: string;
  name: string;
  arguments: string;
}

export type ChatMessage =
  | { role: 'system' | 'developer'; content: string }
  | { role: 'user'; content: string | readonly ChatContentPart[] }
  | { role: 'assistant'; content: string | null; reasoning?: string; toolCalls?: readonly ChatToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

export interface ChatTool {
  name: string;
  description?: string;
  parameters?: JsonSchema;
  strict?: boolean;
}

export type ChatToolChoice = 'auto' | 'none' | 'required' | { name: string };

export interface ChatRequest {
  messages: readonly ChatMessage[];
  tools?: readonly ChatTool[];
  toolChoice?: ChatToolChoice;
  parallelToolCalls?: boolean;
  sampling?: Sampling;
  maxTokens?: number;
  /** Set to request token logprobs with this many alternatives per token (0 = logprobs only). */
  topLogprobs?: number;
  structuredOutput?: StructuredOutput;
  /** Salts the engine's prefix cache (vLLM's `cache_salt`; other servers ignore it). */
  cacheSalt?: string;
  requestId?: string;
  signal: AbortSignal;
}

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'abort';

/** One streamed fragment of a tool call; `id` and `name` come on the first fragment of an index. */
export interface ChatToolCallDelta {
  index: number;
  id?: string;
  name?: string;
  argumentsDelta: string;
}

export interface ChatTopLogprob {
  token: string;
  logprob: number;
  bytes: number[] | null;
}

export interface ChatTokenLogprob extends ChatTopLogprob {
  topLogprobs: ChatTopLogprob[];
}

export interface ChatDelta {
  content?: string;
  /** Reasoning text (`reasoning_content`, or `reasoning` in newer vLLM). */
  reasoning?: string;
  toolCalls?: ChatToolCallDelta[];
  logprobs?: ChatTokenLogprob[];
  finishReason?: ChatFinishReason;
  usage?: EngineUsage;
}

export interface ChatEngine {
  readonly kind: EngineKind;
  chat(request: ChatRequest): AsyncIterable<ChatDelta>;
  modelId(): Promise<string>;
  contextLength(): Promise<number | undefined>;
  health(): Promise<EngineHealth>;
  close(): Promise<void>;
}
