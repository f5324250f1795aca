import { encodeText, LAST_SPECIAL, specialTokenId, specialTokenText } from '../../harmony';
import type { TokenTextCodec } from './text-reencoder';

const LONGEST_SPECIAL = Math.max('<|startoftext|>'.length, (specialTokenText(LAST_SPECIAL) ?? '').length);

/** The o200k_harmony codec the vLLM engine re-encodes streamed text with. */
export function harmonyTextCodec(): TokenTextCodec {
  return {
    encodeOrdinary: (text) => [...encodeText(text)],
    specialTokenId,
    maxSpecialTokenLength: LONGEST_SPECIAL,
  };
}
