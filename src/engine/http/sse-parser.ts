/**
 * Incremental Server-Sent Events parser for engine streams, working on raw bytes.
 *
 * This sits on the token hot path, so it scans with `Buffer.indexOf` (native memchr) and decodes
 * only `data:` values; other fields (`event:`, `id:`, `retry:`) and comments are skipped without
 * decoding. Chunks may split a line, a `\r\n` pair or a multi-byte character anywhere: only
 * complete lines are decoded, and a line always ends on an ASCII byte, so UTF-8 stays whole.
 * Line ends may be `\n`, `\r\n` or a lone `\r` (the SSE spec allows all three).
 */
export class SseProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SseProtocolError';
  }
}

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const DATA = Buffer.from('data');

export interface SseParserOptions {
  /** A line longer than this is a protocol error (bounds memory on a garbage stream). */
  maxLineBytes?: number;
}

export class SseParser {
  private readonly maxLineBytes: number;
  /** Bytes of an unfinished line, kept as pieces so a long line is joined once, not per chunk. */
  private partial: Buffer[] = [];
  private partialBytes = 0;
  /** The previous chunk ended with `\r`: a `\n` starting the next chunk belongs to it. */
  private skipLeadingLf = false;
  private data: string | undefined;

  constructor(options: SseParserOptions = {}) {
    this.maxLineBytes = options.maxLineBytes ?? 8 * 1024 * 1024;
  }

  /** Feeds bytes; returns the data of every event completed by them, in order. */
  push(chunk: Uint8Array): string[] {
    const events: string[] = [];
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let pos = 0;
    if (this.skipLeadingLf) {
      this.skipLeadingLf = false;
      if (buf.length > 0 && buf[0] === LF) pos = 1;
    }
    // Most engines never send a CR; only then is the CR-aware scan needed.
    let nextCr = buf.indexOf(CR, pos);
    while (pos < buf.length) {
      let end = buf.indexOf(LF, pos);
      let next = end + 1;
      if (nextCr !== -1) {
        if (nextCr < pos) nextCr = buf.indexOf(CR, pos);
        if (nextCr !== -1 && (end === -1 || nextCr < end)) {
          end = nextCr;
          if (nextCr + 1 === buf.length) {
            next = buf.length;
            this.skipLeadingLf = true;
          } else {
            next = buf[nextCr + 1] === LF ? nextCr + 2 : nextCr + 1;
          }
        }
      }
      if (end === -1) {
        this.keepPartial(buf.subarray(pos));
        break;
      }
      if (this.partialBytes > 0) {
        this.partial.push(buf.subarray(pos, end));
        const line = Buffer.concat(this.partial, this.partialBytes + (end - pos));
        this.partial = [];
        this.partialBytes = 0;
        this.line(line, 0, line.length, events);
      } else {
        this.line(buf, pos, end, events);
      }
      pos = next;
    }
    return events;
  }

  /**
   * Ends the stream. Per the SSE spec an event not closed by a blank line is discarded, so a stream
   * cut mid-event never yields a truncated payload.
   */
  end(): void {
    this.partial = [];
    this.partialBytes = 0;
    this.skipLeadingLf = false;
    this.data = undefined;
  }

  private keepPartial(piece: Buffer): void {
    this.partialBytes += piece.length;
    if (this.partialBytes > this.maxLineBytes) {
      throw new SseProtocolError(`an event-stream line exceeds ${this.maxLineBytes} bytes`);
    }
    // Copy: the caller's chunk buffer may be reused by the socket layer.
    this.partial.push(Buffer.from(piece));
  }

  private line(buf: Buffer, start: number, end: number, events: string[]): void {
    if (start === end) {
      if (this.data !== undefined) {
        events.push(this.data);
        this.data = undefined;
      }
      return;
    }
    if (end - start > this.maxLineBytes) {
      throw new SseProtocolError(`an event-stream line exceeds ${this.maxLineBytes} bytes`);
    }
    // Fast path: `data:` is by far the most common field.
    if (
      end - start >= 5 &&
      buf[start + 4] === COLON &&
      buf[start] === DATA[0] &&
      buf[start + 1] === DATA[1] &&
      buf[start + 2] === DATA[2] &&
      buf[start + 3] === DATA[3]
    ) {
      let valueStart = start + 5;
      if (valueStart < end && buf[valueStart] === SPACE) valueStart++;
      const value = buf.toString('utf8', valueStart, end);
      this.data = this.data === undefined ? value : `${this.data}\n${value}`;
      return;
    }
    if (buf[start] === COLON) return; // comment (keep-alive ping)
    // A field named exactly `data` without a colon has an empty value.
    if (end - start === 4 && buf.compare(DATA, 0, 4, start, end) === 0) {
      this.data = this.data === undefined ? '' : `${this.data}\n`;
    }
    // event:, id:, retry: and unknown fields carry nothing an engine stream needs.
  }
}
