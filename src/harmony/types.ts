/**
 * Harmony's data model in the JSON shapes of the conformance data (cases.json): what the renderer
 * takes and the parser returns, so vectors can be fed in directly.
 */
export type HarmonyRole = 'user' | 'assistant' | 'system' | 'developer' | 'tool';
export type ReasoningEffortLevel = 'low' | 'medium' | 'high';

export interface ToolDescription {
  name: string;
  description: string;
  parameters?: Record<string, unknown> | null;
}

export interface HarmonyToolNamespace {
  name: string;
  description?: string | null;
  tools: ToolDescription[];
}

export interface ChannelConfig {
  valid_channels: string[];
  channel_required: boolean;
}

export interface SystemContent {
  type: 'system_content';
  model_identity?: string | null;
  reasoning_effort?: ReasoningEffortLevel | null;
  conversation_start_date?: string | null;
  knowledge_cutoff?: string | null;
  channel_config?: ChannelConfig | null;
  tools?: Record<string, HarmonyToolNamespace> | null;
}

/** A structured-output format described to the model (docs/format.md "Response Formats"). */
export interface ResponseFormatSection {
  name: string;
  description?: string | null;
  schema: Record<string, unknown>;
}

export interface DeveloperContent {
  type: 'developer_content';
  instructions?: string | null;
  tools?: Record<string, HarmonyToolNamespace> | null;
  /** Not in the upstream library: rendered as the docs' "# Response Formats" section. */
  response_format?: ResponseFormatSection | null;
}

export interface TextContent {
  type: 'text';
  text: string;
}

export type HarmonyContent = TextContent | SystemContent | DeveloperContent;

export interface HarmonyMessage {
  role: HarmonyRole;
  name?: string | null;
  recipient?: string | null;
  channel?: string | null;
  content_type?: string | null;
  content: string | HarmonyContent[];
}

/** A parsed message: exactly one text content. */
export interface ParsedMessage {
  role: HarmonyRole;
  name?: string;
  recipient?: string;
  channel?: string;
  content_type?: string;
  content: string;
}

export interface RenderConfig {
  auto_drop_analysis?: boolean;
}

export interface RenderOptions {
  conversation_has_function_tools?: boolean;
}
