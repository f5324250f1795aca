/**
 * o200k_harmony special tokens (harmony-spec §1). Ids ≥ 199998 are special; the table follows
 * harmony-rust (reserved ids up to and including 201088), not gpt-tokenizer's.
 */
export const START_OF_TEXT = 199998;
export const END_OF_TEXT = 199999;
export const RETURN = 200002;
export const CONSTRAIN = 200003;
export const CHANNEL = 200005;
export const START = 200006;
export const END = 200007;
export const MESSAGE = 200008;
export const CALL = 200012;

export const FIRST_SPECIAL = 199998;
export const LAST_SPECIAL = 201088;

/** What the sampler must stop on: a finished answer or a tool call. */
export const STOP_TOKENS_FOR_ASSISTANT_ACTIONS: readonly number[] = [RETURN, CALL];
/** What ends a message for the parser. */
export const STOP_TOKENS: readonly number[] = [RETURN, CALL, END];

const NAMED: ReadonlyMap<number, string> = new Map([
  [START_OF_TEXT, '<|startoftext|>'],
  [END_OF_TEXT, '<|endoftext|>'],
  [RETURN, '<|return|>'],
  [CONSTRAIN, '<|constrain|>'],
  [CHANNEL, '<|channel|>'],
  [START, '<|start|>'],
  [END, '<|end|>'],
  [MESSAGE, '<|message|>'],
  [CALL, '<|call|>'],
]);

export function isSpecialToken(id: number): boolean {
  return id >= FIRST_SPECIAL && id <= LAST_SPECIAL;
}

/** The text of a special id (`<|reserved_N|>` for reserved ones), or undefined. */
export function specialTokenText(id: number): string | undefined {
  if (!isSpecialToken(id)) return undefined;
  return NAMED.get(id) ?? `<|reserved_${id}|>`;
}

const BY_TEXT: ReadonlyMap<string, number> = new Map([...NAMED].map(([id, text]) => [text, id]));
const RESERVED = /^<\|reserved_(\d+)\|>$/;

/** The id of a special token's text, or undefined. */
export function specialTokenId(text: string): number | undefined {
  const named = BY_TEXT.get(text);
  if (named !== undefined) return named;
  const match = RESERVED.exec(text);
  if (!match) return undefined;
  const id = Number(match[1]);
  return isSpecialToken(id) && !NAMED.has(id) ? id : undefined;
}
