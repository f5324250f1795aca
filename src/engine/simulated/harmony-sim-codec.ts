import {
  CALL,
  CHANNEL,
  CONSTRAIN,
  decodeTokens,
  encodeText,
  END,
  isSpecialToken,
  MESSAGE,
  parseMessagesFromCompletionTokens,
  RETURN,
  specialTokenId,
  START,
  StreamParser,
  tokenBytes,
  type ParsedMessage,
} from '../../harmony';
import type { SimCodec, SimParsedMessage } from './sim-codec';

const SPECIAL_SPELLING = /<\|[a-z_0-9]+\|>/g;

function toSim(message: ParsedMessage): SimParsedMessage {
  return {
    role: message.role,
    ...(message.name !== undefined ? { name: message.name } : {}),
    ...(message.recipient !== undefined ? { recipient: message.recipient } : {}),
    ...(message.channel !== undefined ? { channel: message.channel } : {}),
    ...(message.content_type !== undefined ? { contentType: message.content_type } : {}),
    content: message.content,
  };
}

/** Bytes per token id, kept: the server needs them for every token it streams as text. */
const bytesCache: Array<Uint8Array | undefined> = [];

function cachedTokenBytes(id: number): Uint8Array {
  let bytes = bytesCache[id];
  if (bytes === undefined) {
    bytes = tokenBytes(id);
    if (Number.isInteger(id) && id >= 0 && id < 1 << 20) bytesCache[id] = bytes;
  }
  return bytes;
}

/** The simulated engine's view of the harmony library. */
export function harmonySimCodec(): SimCodec {
  return {
    special: { start: START, end: END, message: MESSAGE, channel: CHANNEL, constrain: CONSTRAIN, return: RETURN, call: CALL },
    encodeOrdinary: (text) => [...encodeText(text)],
    encodeHarmony(text) {
      const ids: number[] = [];
      let last = 0;
      for (const match of text.matchAll(SPECIAL_SPELLING)) {
        const id = specialTokenId(match[0]);
        if (id === undefined) continue;
        if (match.index > last) ids.push(...encodeText(text.slice(last, match.index)));
        ids.push(id);
        last = match.index + match[0].length;
      }
      if (last < text.length) ids.push(...encodeText(text.slice(last)));
      return ids;
    },
    decode: (ids) => decodeTokens(ids),
    tokenBytes: cachedTokenBytes,
    isSpecial: isSpecialToken,
    parseConversation: (ids) => parseMessagesFromCompletionTokens(ids, null, true).map(toSim),
    parseCompletion(ids) {
      const parser = new StreamParser('assistant', false);
      try {
        for (const id of ids) parser.process(id);
        parser.processEos();
      } catch {
        // Lenient: whatever parsed before the malformed part.
      }
      return parser.messages.map(toSim);
    },
  };
}
