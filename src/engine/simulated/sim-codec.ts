/**
 * The harmony operations the simulated engine needs, as one small interface, so the model logic
 * does not depend on the exact shape of the harmony library's API.
 */
export interface SimParsedMessage {
  role: string;
  /** Author name (tool messages: the tool that answered, e.g. `functions.get_weather`). */
  name?: string;
  recipient?: string;
  channel?: string;
  contentType?: string;
  content: string;
}

export interface SimCodec {
  readonly special: {
    readonly start: number;
    readonly end: number;
    readonly message: number;
    readonly channel: number;
    readonly constrain: number;
    readonly return: number;
    readonly call: number;
  };
  /** Text with `<|…|>` treated as plain characters. */
  encodeOrdinary(text: string): number[];
  /** Harmony text with special tokens spelled out (`<|channel|>`) → ids, specials as their ids. */
  encodeHarmony(text: string): number[];
  /** Ids → text, special tokens spelled out. */
  decode(ids: readonly number[]): string;
  /** The UTF-8 bytes of one token (a special token's spelling for specials). */
  tokenBytes(id: number): Uint8Array;
  isSpecial(id: number): boolean;
  /** Parses whole messages from ids beginning with `<|start|>`; throws on malformed input. */
  parseConversation(ids: readonly number[]): SimParsedMessage[];
  /** Parses a completion (the ids after the prompt's `<|start|>assistant`), leniently. */
  parseCompletion(ids: readonly number[]): SimParsedMessage[];
}
