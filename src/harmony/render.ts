import { encodePieces, type Piece } from './encoding';
import { CALL, CHANNEL, CONSTRAIN, END, MESSAGE, RETURN, START } from './special-tokens';
import { schemaToTypeScript } from './tool-schema';
import type {
  DeveloperContent,
  HarmonyContent,
  HarmonyMessage,
  HarmonyRole,
  HarmonyToolNamespace,
  RenderConfig,
  RenderOptions,
  SystemContent,
} from './types';

export class HarmonyRenderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HarmonyRenderError';
  }
}

export interface Rendered {
  tokens: number[];
}

const CONSTRAIN_TEXT = '<|constrain|>';

/** One message (harmony-spec §3.1). */
export function render(message: HarmonyMessage, options: RenderOptions = {}): Rendered {
  const pieces: Piece[] = [];
  renderMessage(message, options.conversation_has_function_tools ?? false, pieces);
  return { tokens: encodePieces(pieces) };
}

export function renderConversation(messages: readonly HarmonyMessage[], config: RenderConfig = { auto_drop_analysis: true }): Rendered {
  return { tokens: encodePieces(conversationPieces(messages, config)) };
}

/** The conversation then `<|start|>` + the next role: the prompt for a completion. */
export function renderConversationForCompletion(
  messages: readonly HarmonyMessage[],
  nextTurnRole: HarmonyRole,
  config: RenderConfig = { auto_drop_analysis: true },
): Rendered {
  const pieces = conversationPieces(messages, config);
  pieces.push(START, nextTurnRole);
  return { tokens: encodePieces(pieces) };
}

/** As renderConversation, but a final assistant answer ends in `<|return|>` (harmony-spec §3.6). */
export function renderConversationForTraining(messages: readonly HarmonyMessage[], config: RenderConfig = { auto_drop_analysis: true }): Rendered {
  const { tokens } = renderConversation(messages, config);
  const last = messages[messages.length - 1];
  if (last?.role === 'assistant' && last.channel === 'final' && tokens[tokens.length - 1] === END) tokens[tokens.length - 1] = RETURN;
  return { tokens };
}

function conversationPieces(messages: readonly HarmonyMessage[], config: RenderConfig): Piece[] {
  const hasFunctionTools = messages.some((message) => contentItems(message).some((item) => item.type === 'developer_content' && (item.tools?.functions?.tools.length ?? 0) > 0));
  const keep = analysisFilter(messages, config);
  const pieces: Piece[] = [];
  messages.forEach((message, index) => {
    if (keep(message, index)) renderMessage(message, hasFunctionTools, pieces);
  });
  return pieces;
}

/** The library's dropping rule: analysis before the first final, when the last assistant message is final. */
function analysisFilter(messages: readonly HarmonyMessage[], config: RenderConfig): (message: HarmonyMessage, index: number) => boolean {
  if (!config.auto_drop_analysis) return () => true;
  const lastAssistant = [...messages].reverse().find((message) => message.role === 'assistant');
  if (lastAssistant?.channel !== 'final') return () => true;
  const firstFinal = messages.findIndex((message) => message.channel === 'final');
  return (message, index) => !(message.channel === 'analysis' && index < firstFinal);
}

function contentItems(message: HarmonyMessage): HarmonyContent[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

function renderMessage(message: HarmonyMessage, hasFunctionTools: boolean, pieces: Piece[]): void {
  pieces.push(START);
  if (message.role === 'tool') {
    if (!message.name) throw new HarmonyRenderError('Tools should have a name!');
    pieces.push(message.name);
  } else {
    pieces.push(message.name ? `${message.role}:${message.name}` : message.role);
  }
  if (message.recipient && message.recipient !== 'all') pieces.push(` to=${message.recipient}`);
  if (message.channel) pieces.push(CHANNEL, message.channel);
  if (message.content_type) {
    if (message.content_type.startsWith(CONSTRAIN_TEXT)) {
      pieces.push(' ', CONSTRAIN);
      const rest = message.content_type.slice(CONSTRAIN_TEXT.length);
      if (rest) pieces.push(rest);
    } else {
      pieces.push(` ${message.content_type}`);
    }
  }
  pieces.push(MESSAGE);
  for (const item of contentItems(message)) {
    if (item.type === 'text') pieces.push(item.text);
    else if (item.type === 'system_content') {
      if (message.role !== 'system') throw new HarmonyRenderError(`SystemContent may only appear in system messages, found in ${message.role}`);
      pieces.push(systemText(item, hasFunctionTools));
    } else {
      if (message.role !== 'developer') throw new HarmonyRenderError(`DeveloperContent may only appear in developer messages, found in ${message.role}`);
      pieces.push(developerText(item));
    }
  }
  pieces.push(message.role === 'assistant' && message.recipient ? CALL : END);
}

/** harmony-spec §3.2 */
export function systemText(content: SystemContent, hasFunctionTools: boolean): string {
  const sections: string[] = [];
  const identity: string[] = [];
  if (content.model_identity) identity.push(content.model_identity);
  if (content.knowledge_cutoff) identity.push(`Knowledge cutoff: ${content.knowledge_cutoff}`);
  if (content.conversation_start_date !== undefined && content.conversation_start_date !== null) {
    identity.push(`Current date: ${content.conversation_start_date}`);
  }
  if (identity.length > 0) sections.push(identity.join('\n'));
  if (content.reasoning_effort) sections.push(`Reasoning: ${content.reasoning_effort}`);
  if (content.tools && Object.keys(content.tools).length > 0) sections.push(toolsSection(content.tools));
  const channels = content.channel_config;
  if (channels && channels.valid_channels.length > 0) {
    let line = `# Valid channels: ${channels.valid_channels.join(', ')}.`;
    if (channels.channel_required) line += ' Channel must be included for every message.';
    if (hasFunctionTools) line += "\nCalls to these tools must go to the commentary channel: 'functions'.";
    sections.push(line);
  }
  return sections.join('\n\n');
}

/** harmony-spec §3.3, plus the docs' "# Response Formats" section after the tools. */
export function developerText(content: DeveloperContent): string {
  const sections: string[] = [];
  if (content.instructions !== undefined && content.instructions !== null) sections.push('# Instructions', content.instructions);
  if (content.tools && Object.keys(content.tools).length > 0) sections.push(toolsSection(content.tools));
  if (content.response_format) {
    const format = content.response_format;
    const lines = [`## ${format.name}`, ''];
    if (format.description) lines.push(`// ${format.description}`);
    lines.push(JSON.stringify(format.schema));
    sections.push('# Response Formats', lines.join('\n'));
  }
  return sections.join('\n\n');
}

/** harmony-spec §3.4: namespaces sorted by key (byte order), tools in the order given. */
export function toolsSection(tools: Readonly<Record<string, HarmonyToolNamespace>>): string {
  const keys = Object.keys(tools).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return ['# Tools', ...keys.map((key) => namespaceSection(tools[key]!))].join('\n\n');
}

function namespaceSection(ns: HarmonyToolNamespace): string {
  const lines: string[] = [`## ${ns.name}\n`];
  const hasTools = ns.tools.length > 0;
  if (ns.description) for (const line of rustLines(ns.description)) lines.push(hasTools ? `// ${line}` : line);
  if (hasTools) {
    lines.push(`namespace ${ns.name} {\n`);
    for (const tool of ns.tools) {
      for (const line of rustLines(tool.description)) lines.push(`// ${line}`);
      lines.push(
        tool.parameters === undefined || tool.parameters === null
          ? `type ${tool.name} = () => any;\n`
          : `type ${tool.name} = (_: ${schemaToTypeScript(tool.parameters)}) => any;\n`,
      );
    }
    lines.push(`} // namespace ${ns.name}`);
  }
  return lines.join('\n');
}

/** Rust's `str::lines()`: split on \n, strip one trailing \r per line, no empty last line. */
function rustLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  if (text.endsWith('\n')) lines.pop();
  return lines;
}
