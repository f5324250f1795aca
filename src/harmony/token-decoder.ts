import o200k from 'gpt-tokenizer/encoding/o200k_harmony';
import { isSpecialToken, specialTokenText } from './special-tokens';

const processor = (o200k as unknown as { bytePairEncodingCoreProcessor: { tryDecodeToken(id: number): string | Uint8Array | undefined } })
  .bytePairEncodingCoreProcessor;
const utf8 = new TextEncoder();
// ignoreBOM: a token may start with EF BB BF (U+FEFF), which is content, not a byte-order mark.
const lossy = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** Per id: its text when its bytes are valid UTF-8 on their own, else its raw bytes. */
const table: Array<string | Uint8Array | null | undefined> = [];

export class InvalidTokenError extends Error {
  constructor(readonly id: number) {
    super(`Invalid token for decoding: ${id}`);
    this.name = 'InvalidTokenError';
  }
}

/**
 * A token's decoded form, cached: a string for tokens that are whole UTF-8 text (almost all), a
 * byte array for tokens that carry part of a multi-byte character, undefined for unknown ids.
 * Specials decode to their text. Never uses gpt-tokenizer's shared streaming decoder.
 */
export function tokenForm(id: number): string | Uint8Array | undefined {
  let form = table[id];
  if (form === undefined) {
    if (!Number.isInteger(id) || id < 0) return undefined;
    const decoded = isSpecialToken(id) ? specialTokenText(id) : processor.tryDecodeToken(id);
    form = decoded === undefined ? null : decoded;
    table[id] = form;
  }
  return form === null ? undefined : form;
}

export function tokenBytes(id: number): Uint8Array {
  const form = tokenForm(id);
  if (form === undefined) throw new InvalidTokenError(id);
  return typeof form === 'string' ? utf8.encode(form) : form;
}

/** One-shot decode of whole ids (specials as their text); invalid UTF-8 becomes U+FFFD. */
export function decodeTokens(ids: readonly number[]): string {
  let text = '';
  let pending: number[] = [];
  for (const id of ids) {
    const form = tokenForm(id);
    if (form === undefined) throw new InvalidTokenError(id);
    if (typeof form === 'string' && pending.length === 0) {
      text += form;
      continue;
    }
    const bytes = typeof form === 'string' ? utf8.encode(form) : form;
    for (const byte of bytes) pending.push(byte);
  }
  if (pending.length > 0) text += lossy.decode(new Uint8Array(pending));
  return text;
}
