import { CALL, END, MESSAGE, RETURN, START } from './special-tokens';
import { tokenForm } from './token-decoder';
import type { HarmonyRole, ParsedMessage } from './types';
import { checkUtf8 } from './utf8';

export type ParserState = 'ExpectStart' | 'Header' | 'Content';

export class HarmonyParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HarmonyParseError';
  }
}

export interface ParsedHeader {
  role: HarmonyRole;
  name?: string;
  recipient?: string;
  channel?: string;
  contentType?: string;
}

const ROLES: ReadonlySet<string> = new Set(['user', 'assistant', 'system', 'developer', 'tool']);
// ignoreBOM: a token may start with EF BB BF (U+FEFF), which is content, not a byte-order mark.
const lossy = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/**
 * The harmony streaming parser (harmony-spec §4): fed one token at a time, it exposes after each
 * token the state, the current message's role, channel, recipient and content type, the text the
 * token added (`lastContentDelta`), the current content and the completed messages. The hot path
 * — a content token that is whole UTF-8 text with nothing pending — is one table lookup and one
 * string append.
 */
export class StreamParser {
  state: ParserState;
  readonly messages: ParsedMessage[] = [];
  readonly tokens: number[] = [];
  lastContentDelta: string | null = null;
  /** The stop token that ended the last completed message (to tell `<|call|>` from `<|return|>`). */
  lastStopToken: number | null = null;

  private nextRole: HarmonyRole | null;
  private headerTokens: number[] = [];
  private header: ParsedHeader | null = null;
  private content = '';
  private undecodedTokens: number[] = [];
  private undecodedBytes: number[] = [];

  constructor(role: HarmonyRole | null, readonly strict = true) {
    this.nextRole = role;
    this.state = role === null ? 'ExpectStart' : 'Header';
  }

  get currentRole(): HarmonyRole | null {
    return this.state === 'Content' ? this.header!.role : this.nextRole;
  }
  get currentChannel(): string | null {
    return this.state === 'Content' ? (this.header!.channel ?? null) : null;
  }
  get currentRecipient(): string | null {
    return this.state === 'Content' ? (this.header!.recipient ?? null) : null;
  }
  get currentContentType(): string | null {
    return this.state === 'Content' ? (this.header!.contentType ?? null) : null;
  }
  get currentName(): string | null {
    return this.state === 'Content' ? (this.header!.name ?? null) : null;
  }
  get currentContent(): string {
    return this.state === 'Content' ? this.content : '';
  }

  process(id: number): void {
    this.tokens.push(id);
    switch (this.state) {
      case 'Content':
        if (id === END || id === CALL || id === RETURN) this.finishMessage(id);
        else this.contentToken(id);
        return;
      case 'Header':
        if (id === MESSAGE) this.endHeader();
        else if (!this.strict && (id === END || id === CALL || id === RETURN)) this.recoverHeader();
        else this.headerTokens.push(id);
        return;
      case 'ExpectStart':
        if (id !== START) throw new HarmonyParseError(`Unexpected token ${id} while expecting start token ${START}`);
        this.state = 'Header';
        this.headerTokens = [];
        return;
    }
  }

  processEos(): void {
    if (this.state === 'Header') throw new HarmonyParseError('Unexpected EOS while waiting for message header to complete');
    if (this.state === 'Content') this.finishMessage(null);
  }

  private contentToken(id: number): void {
    if (this.undecodedTokens.length === 0 && this.undecodedBytes.length === 0) {
      const form = tokenForm(id);
      if (typeof form === 'string') {
        this.content += form;
        this.lastContentDelta = form;
        return;
      }
    }
    this.undecodedTokens.push(id);
    const forms: Uint8Array[] = [];
    for (const pending of this.undecodedTokens) {
      const form = tokenForm(pending);
      if (form === undefined) {
        this.lastContentDelta = null;
        return;
      }
      forms.push(typeof form === 'string' ? encoder.encode(form) : form);
    }
    this.undecodedTokens = [];
    for (const bytes of forms) for (const byte of bytes) this.undecodedBytes.push(byte);
    const check = checkUtf8(this.undecodedBytes);
    let delta = '';
    if (check.errorLen === undefined) {
      delta = lossy.decode(new Uint8Array(this.undecodedBytes));
      this.undecodedBytes = [];
    } else {
      if (check.validUpTo > 0) {
        delta = lossy.decode(new Uint8Array(this.undecodedBytes.slice(0, check.validUpTo)));
        this.undecodedBytes = this.undecodedBytes.slice(check.validUpTo);
      }
      if (check.errorLen !== null) {
        // The invalid sequence becomes U+FFFD; the bytes after it wait for the next token.
        delta += '\uFFFD';
        this.undecodedBytes = this.undecodedBytes.slice(check.errorLen);
      }
    }
    this.content += delta;
    this.lastContentDelta = delta === '' ? null : delta;
  }

  private finishMessage(stopToken: number | null): void {
    let text = this.content;
    if (this.undecodedTokens.length > 0) text += '\uFFFD';
    if (this.undecodedBytes.length > 0) text += lossy.decode(new Uint8Array(this.undecodedBytes));
    this.messages.push(toMessage(this.header!, text));
    this.lastStopToken = stopToken;
    this.state = 'ExpectStart';
    this.lastContentDelta = null;
    this.header = null;
    this.content = '';
    this.undecodedTokens = [];
    this.undecodedBytes = [];
  }

  private endHeader(): void {
    this.state = 'ExpectStart';
    let text: string;
    try {
      text = decodeHeader(this.headerTokens, true);
    } catch {
      throw new HarmonyParseError('could not decode header');
    }
    this.header = parseHeader(text, this.nextRole);
    this.nextRole = null;
    this.state = 'Content';
    this.content = '';
    this.lastContentDelta = null;
  }

  /** Non-strict mode: a stop token before `<|message|>` (harmony-spec §4.5). */
  private recoverHeader(): void {
    if (this.nextRole !== null && this.headerTokens.length > 0) {
      const text = decodeHeader(this.headerTokens, false);
      const { channel, words } = splitHeader(text, this.nextRole);
      this.messages.push({ role: this.nextRole, ...(channel !== undefined ? { channel } : {}), content: words.join(' ') });
    }
    this.state = 'ExpectStart';
    this.nextRole = null;
    this.headerTokens = [];
    this.lastContentDelta = null;
  }
}

function toMessage(header: ParsedHeader, content: string): ParsedMessage {
  return {
    role: header.role,
    ...(header.name !== undefined ? { name: header.name } : {}),
    ...(header.recipient !== undefined ? { recipient: header.recipient } : {}),
    ...(header.channel !== undefined ? { channel: header.channel } : {}),
    ...(header.contentType !== undefined ? { content_type: header.contentType } : {}),
    content,
  };
}

function decodeHeader(ids: readonly number[], strict: boolean): string {
  const bytes: number[] = [];
  for (const id of ids) {
    const form = tokenForm(id);
    if (form === undefined) {
      if (strict) throw new HarmonyParseError(`Invalid token for decoding: ${id}`);
      continue;
    }
    for (const byte of typeof form === 'string' ? encoder.encode(form) : form) bytes.push(byte);
  }
  return (strict ? strictDecoder : lossy).decode(new Uint8Array(bytes));
}

const CHANNEL_TEXT = '<|channel|>';
const CONSTRAIN_TEXT = '<|constrain|>';
// Unicode White_Space (what Rust's char::is_whitespace tests).
const WHITE_SPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;
const ASCII_WHITESPACE = /[\t\n\f\r ]+/;

function trimWhiteSpace(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && WHITE_SPACE.test(text[start]!)) start += 1;
  while (end > start && WHITE_SPACE.test(text[end - 1]!)) end -= 1;
  return text.slice(start, end);
}

/** Steps 1–6 of harmony-spec §4.2: channel, role (and tool author), and the remaining words. */
function splitHeader(raw: string, givenRole: HarmonyRole | null): { role: HarmonyRole; name?: string; channel?: string; words: string[] } {
  let text = raw;
  let channel: string | undefined;
  const at = text.indexOf(CHANNEL_TEXT);
  if (at >= 0) {
    const valueStart = at + CHANNEL_TEXT.length;
    let valueEnd = valueStart;
    while (valueEnd < text.length && text[valueEnd] !== '<' && !WHITE_SPACE.test(text[valueEnd]!)) valueEnd += 1;
    if (valueEnd === valueStart) throw new HarmonyParseError('channel marker present but no channel value found in header');
    channel = text.slice(valueStart, valueEnd);
    text = text.slice(0, at) + text.slice(valueEnd);
  }
  text = trimWhiteSpace(text);
  if (text.includes(CONSTRAIN_TEXT)) text = trimWhiteSpace(text.split(CONSTRAIN_TEXT).join(` ${CONSTRAIN_TEXT}`));
  const words = text.split(ASCII_WHITESPACE).filter((word) => word.length > 0);
  let role: HarmonyRole;
  let name: string | undefined;
  if (givenRole !== null) {
    role = givenRole;
  } else {
    const first = words[0];
    if (first === undefined) throw new HarmonyParseError('message header did not contain a role');
    if (ROLES.has(first)) {
      role = first as HarmonyRole;
    } else if (words.length > 1 || first.startsWith('to=')) {
      words.shift();
      role = 'tool';
      name = first;
    } else {
      throw new HarmonyParseError(`Unknown role: ${first}`);
    }
  }
  if (words[0] === role) words.shift();
  return { role, ...(name !== undefined ? { name } : {}), ...(channel !== undefined ? { channel } : {}), words };
}

/** harmony-spec §4.2: the decoded header text → role, author name, recipient, channel, content type. */
export function parseHeader(raw: string, givenRole: HarmonyRole | null): ParsedHeader {
  const { role, name, channel, words } = splitHeader(raw, givenRole);
  const header: ParsedHeader = { role, ...(name !== undefined ? { name } : {}), ...(channel !== undefined ? { channel } : {}) };
  if (words.length > 0) {
    const only = words.length === 1;
    const last = words.pop()!;
    if (last.startsWith('to=')) header.recipient = last.slice(3);
    else if (only) header.recipient = last;
    else {
      header.contentType = last;
      const recipient = words.pop();
      if (recipient !== undefined) header.recipient = recipient.startsWith('to=') ? recipient.slice(3) : recipient;
    }
    if (words.length > 0) throw new HarmonyParseError(`unexpected tokens remaining in message header: Some(${JSON.stringify(words.join(' '))})`);
  }
  return header;
}

/** Parses a completion's ids (without the prompt) with a known role for the first message. */
export function parseMessagesFromCompletionTokens(ids: readonly number[], role: HarmonyRole | null, strict = true): ParsedMessage[] {
  const parser = new StreamParser(role, strict);
  for (const id of ids) parser.process(id);
  parser.processEos();
  return parser.messages;
}
