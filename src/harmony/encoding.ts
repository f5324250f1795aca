import { encode } from 'gpt-tokenizer/encoding/o200k_harmony';

const ORDINARY = { disallowedSpecial: new Set<string>() };
const CACHE_LIMIT = 4_096;
const SHORT = 64;
const cache = new Map<string, readonly number[]>();

/**
 * Ordinary o200k_harmony encoding of one text piece: `<|…|>` spelled in text stays plain tokens
 * (harmony-spec §1). gpt-tokenizer's special-token handling is never used (it only recognises a
 * special token at the start of a string). Short pieces — header words, fixed prompt fragments —
 * are cached, since every prompt repeats them.
 */
export function encodeText(text: string): readonly number[] {
  if (text.length > SHORT) return encode(text, ORDINARY);
  let ids = cache.get(text);
  if (ids === undefined) {
    ids = encode(text, ORDINARY);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(text, ids);
  }
  return ids;
}

/** A rendered piece: text to encode, or a special token id emitted as is. */
export type Piece = string | number;

/** Encodes a list of pieces into one id array. */
export function encodePieces(pieces: readonly Piece[]): number[] {
  const out: number[] = [];
  for (const piece of pieces) {
    if (typeof piece === 'number') out.push(piece);
    else if (piece.length > 0) for (const id of encodeText(piece)) out.push(id);
  }
  return out;
}
