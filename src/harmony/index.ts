/**
 * The harmony library (gpt-oss prompt format): o200k_harmony encoding, renderer, JSON-Schema →
 * TypeScript tool rendering and the streaming parser. Pure: no I/O, no Nest. Inputs and outputs
 * use the JSON shapes of the conformance data (types.ts).
 */
export * from './types';
export * from './special-tokens';
export { encodeText, encodePieces, type Piece } from './encoding';
export { decodeTokens, tokenBytes, InvalidTokenError } from './token-decoder';
export { schemaToTypeScript } from './tool-schema';
export {
  HarmonyRenderError,
  render,
  renderConversation,
  renderConversationForCompletion,
  renderConversationForTraining,
  type Rendered,
} from './render';
export { HarmonyParseError, StreamParser, parseHeader, parseMessagesFromCompletionTokens, type ParserState, type ParsedHeader } from './stream-parser';
