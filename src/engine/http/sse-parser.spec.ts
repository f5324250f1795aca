import fc from 'fast-check';
import { SseParser, SseProtocolError } from './sse-parser';

function feed(parser: SseParser, ...chunks: (string | Buffer)[]): string[] {
  return chunks.flatMap((chunk) => parser.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
}

describe('SseParser', () => {
  it('yields the data of each event, including [DONE]', () => {
    const parser = new SseParser();
    expect(feed(parser, 'data: {"a":1}\n\ndata: {"b":2}\n\ndata: [DONE]\n\n')).toEqual(['{"a":1}', '{"b":2}', '[DONE]']);
  });

  it('joins multi-line data with newlines and dispatches only at a blank line', () => {
    const parser = new SseParser();
    expect(feed(parser, 'data: one\ndata: two\n')).toEqual([]);
    expect(feed(parser, '\n')).toEqual(['one\ntwo']);
  });

  it('ignores comments, event/id/retry fields and blank lines without data', () => {
    const parser = new SseParser();
    expect(feed(parser, ': ping\n\nevent: message\nid: 7\nretry: 100\ndata: x\n\n\n\n')).toEqual(['x']);
  });

  it('strips only one space after the colon and accepts no space', () => {
    const parser = new SseParser();
    expect(feed(parser, 'data:x\n\ndata:  y\n\ndata\n\n')).toEqual(['x', ' y', '']);
  });

  it('handles CRLF and lone CR line ends, including a CRLF split across chunks', () => {
    const parser = new SseParser();
    expect(feed(parser, 'data: a\r\n\r\ndata: b\r\rdata: c\r', '\n\r', '\n')).toEqual(['a', 'b', 'c']);
  });

  it('keeps multi-byte characters whole when a chunk splits them', () => {
    const bytes = Buffer.from('data: {"t":"héllo 💖"}\n\n');
    const split = bytes.indexOf(0xf0) + 2; // inside the emoji
    const parser = new SseParser();
    expect(feed(parser, bytes.subarray(0, split), bytes.subarray(split))).toEqual(['{"t":"héllo 💖"}']);
  });

  it('does not depend on how the stream is cut (any chunking gives the same events)', () => {
    const stream = Buffer.from(
      'data: {"id":1,"text":"αβγ"}\n\n: keep-alive\n\ndata: {"id":2}\r\n\r\nevent: x\ndata: multi\ndata: line\n\ndata: [DONE]\n\n',
    );
    const whole = new SseParser().push(stream);
    expect(whole).toEqual(['{"id":1,"text":"αβγ"}', '{"id":2}', 'multi\nline', '[DONE]']);
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: stream.length - 1 }), { maxLength: 12 }), (cuts) => {
        const points = [0, ...cuts.sort((a, b) => a - b), stream.length];
        const parser = new SseParser();
        const events: string[] = [];
        for (let i = 0; i + 1 < points.length; i++) events.push(...parser.push(stream.subarray(points[i], points[i + 1])));
        expect(events).toEqual(whole);
      }),
    );
  });

  it('drops an event the stream ended in the middle of', () => {
    const parser = new SseParser();
    expect(feed(parser, 'data: {"a":1}\n\ndata: {"trunc')).toEqual(['{"a":1}']);
    parser.end();
    // The truncated line is gone: its tail is not mistaken for the rest of the event.
    expect(feed(parser, 'ated"}\n\ndata: next\n\n')).toEqual(['next']);
  });

  it('does not keep a reference to a chunk buffer the caller may reuse', () => {
    const parser = new SseParser();
    const chunk = Buffer.from('data: abc');
    parser.push(chunk);
    chunk.fill(0x7a);
    expect(feed(parser, 'def\n\n')).toEqual(['abcdef']);
  });

  it('rejects a line longer than the limit instead of buffering forever', () => {
    const parser = new SseParser({ maxLineBytes: 16 });
    expect(() => feed(parser, 'data: 0123456789', 'abcdefghij')).toThrow(SseProtocolError);
    expect(() => new SseParser({ maxLineBytes: 16 }).push(Buffer.from('data: 0123456789abcdef\n'))).toThrow(SseProtocolError);
  });
});
