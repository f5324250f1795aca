/**
 * The simulated model's deterministic answering rules (documented in ./README.md). They work on a
 * small summary of the conversation, so harmony prompts and chat requests share them.
 */
import { sampleValue, simTypeFromSchema, type SimToolSignature } from './tool-signatures';
import type { JsonSchema } from '../engine';

export interface SimConversation {
  /** Role of the last message: what the model is answering. */
  lastRole: 'user' | 'tool' | 'assistant' | 'system' | 'developer' | 'none';
  /** Text of the last user message ('' if none). */
  userText: string;
  functionTools: SimToolSignature[];
  /** Builtin tool namespaces offered in the system message. */
  browser: boolean;
  python: boolean;
  /** Set when the last message is a tool result. */
  toolResult?: { name: string; output: string };
  /** Chat only: `tool_choice`. `none` forbids calls; a name forces that function. */
  toolChoice?: 'auto' | 'none' | 'required' | { name: string };
}

export type SimChannel = 'analysis' | 'commentary' | 'final';

/** One message of the simulated completion. */
export interface SimMessage {
  channel: SimChannel;
  /** `functions.NAME`, `browser.search` or `python` for a tool call. */
  recipient?: string;
  /** `<|constrain|>json` for JSON arguments, `code` for python source. */
  contentType?: string;
  content: string;
  /** How the message ends: `<|end|>`, `<|call|>` (tool call) or `<|return|>` (final answer). */
  end: 'end' | 'call' | 'return';
}

export interface SimReplyOptions {
  /** A JSON-schema (or `json_object`) constraint: the final answer becomes a JSON value that fits. */
  structuredOutput?: { schema?: JsonSchema };
}

const SEARCH_WORDS = /\b(search|look up|lookup|browse|google|find online|on the web)\b/i;
const CODE_WORDS = /\b(run|execute|python|code|compute|calculate)\b/i;
const QUOTED = /"([^"\n]{1,200})"/;
const MAX_ECHO = 200;

export function reply(conversation: SimConversation, options: SimReplyOptions = {}): SimMessage[] {
  if (conversation.lastRole === 'tool' && conversation.toolResult) {
    const { name, output } = conversation.toolResult;
    return [
      analysis(`The tool ${name} returned a result. I will answer with it.`),
      final(`Result from ${name}: ${clip(output)}`, options),
    ];
  }
  const text = conversation.userText;
  const allowCalls = conversation.toolChoice !== 'none';
  if (allowCalls && conversation.browser && SEARCH_WORDS.test(text)) {
    return [
      analysis('The user asks me to search the web. I will use browser.search.'),
      {
        channel: 'analysis',
        recipient: 'browser.search',
        contentType: '<|constrain|>json',
        content: JSON.stringify({ query: quotedOr(text) }),
        end: 'call',
      },
    ];
  }
  if (allowCalls && conversation.python && CODE_WORDS.test(text)) {
    return [
      analysis('The user asks me to run code. I will use python.'),
      { channel: 'analysis', recipient: 'python', contentType: 'code', content: pythonFor(text), end: 'call' },
    ];
  }
  const tool = allowCalls ? pickFunction(conversation) : undefined;
  if (tool) {
    return [
      analysis(`The user's request needs the function ${tool.name}. I will call it.`),
      {
        channel: 'commentary',
        recipient: `functions.${tool.name}`,
        contentType: '<|constrain|>json',
        content: JSON.stringify(sampleValue(tool.params ?? { kind: 'object', properties: [] }, quotedOr(text))),
        end: 'call',
      },
    ];
  }
  return [analysis(`The user wrote: "${clip(text)}". I will answer.`), final(`You said: ${clip(text)}`, options)];
}

function analysis(content: string): SimMessage {
  return { channel: 'analysis', content, end: 'end' };
}

function final(content: string, options: SimReplyOptions): SimMessage {
  if (options.structuredOutput) {
    const schema = options.structuredOutput.schema;
    const value = schema ? sampleValue(simTypeFromSchema(schema), content) : { answer: content };
    return { channel: 'final', content: JSON.stringify(value), end: 'return' };
  }
  return { channel: 'final', content, end: 'return' };
}

/** The function named in the user's text (longest name first), else the forced one, else the first. */
function pickFunction(conversation: SimConversation): SimToolSignature | undefined {
  const tools = conversation.functionTools;
  if (tools.length === 0) return undefined;
  const choice = conversation.toolChoice;
  if (typeof choice === 'object') return tools.find((t) => t.name === choice.name) ?? tools[0];
  const named = [...tools]
    .sort((a, b) => b.name.length - a.name.length)
    .find((t) => new RegExp(`(^|[^\\w])${escapeRegExp(t.name)}($|[^\\w])`).test(conversation.userText));
  return named ?? tools[0];
}

/** Python to run: the text between backticks in the request, else a print of the request. */
function pythonFor(text: string): string {
  const fenced = /```(?:python)?\n?([\s\S]*?)```/.exec(text) ?? /`([^`\n]+)`/.exec(text);
  return fenced ? fenced[1]!.trim() : `print(${JSON.stringify(clip(text))})`;
}

function quotedOr(text: string): string {
  return QUOTED.exec(text)?.[1] ?? clip(text, 100);
}

function clip(text: string, max = MAX_ECHO): string {
  const flat = text.trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
