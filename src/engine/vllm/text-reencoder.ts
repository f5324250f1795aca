/**
 * Turns streamed completion text back into token ids, for engines that send `text` but no
 * `token_ids`. With `skip_special_tokens: false` the text spells special tokens (`<|channel|>`),
 * so the text is split on special-token strings: those become their ids directly and the pieces
 * between them are encoded as ordinary text (never via a tokenizer's own special-token matching).
 *
 * Chunk boundaries differ from the model's, so the ids may not be the ones the model sampled, but
 * they decode to the same text, which is all the harmony parser needs. A chunk ending in what may
 * be the start of a special token (`…<|chan`) is held back until the next chunk completes it.
 */
export interface TokenTextCodec {
  /** Encodes text with every `<|…|>` spelling treated as plain text. */
  encodeOrdinary(text: string): number[];
  /** Special token id for an exact special-token spelling, e.g. `<|call|>` → 200012. */
  specialTokenId(text: string): number | undefined;
  /** Length of the longest special-token spelling (bounds how much text is held back). */
  readonly maxSpecialTokenLength: number;
}

export class TextReencoder {
  private held = '';

  constructor(private readonly codec: TokenTextCodec) {}

  push(text: string): number[] {
    const s = this.held + text;
    this.held = '';
    const ids: number[] = [];
    let pos = 0; // start of text not yet encoded
    let search = 0;
    while (search < s.length) {
      const open = s.indexOf('<|', search);
      if (open === -1) {
        // A lone trailing `<` may be the first half of `<|`.
        if (s.endsWith('<')) {
          this.encodeText(s.slice(pos, s.length - 1), ids);
          this.held = '<';
          return ids;
        }
        break;
      }
      const close = s.indexOf('|>', open + 2);
      if (close === -1) {
        if (s.length - open <= this.codec.maxSpecialTokenLength && /^<\|[A-Za-z0-9_]*\|?$/.test(s.slice(open))) {
          this.encodeText(s.slice(pos, open), ids);
          this.held = s.slice(open);
          return ids;
        }
        break;
      }
      const id = close + 2 - open <= this.codec.maxSpecialTokenLength ? this.codec.specialTokenId(s.slice(open, close + 2)) : undefined;
      if (id === undefined) {
        search = open + 1;
        continue;
      }
      this.encodeText(s.slice(pos, open), ids);
      ids.push(id);
      pos = close + 2;
      search = pos;
    }
    this.encodeText(s.slice(pos), ids);
    return ids;
  }

  /** Ends the stream: whatever was held back is plain text after all. */
  flush(): number[] {
    const ids: number[] = [];
    this.encodeText(this.held, ids);
    this.held = '';
    return ids;
  }

  private encodeText(text: string, into: number[]): void {
    if (text === '') return;
    for (const id of this.codec.encodeOrdinary(text)) into.push(id);
  }
}
