import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

const FLUSH_MS = 2;

export interface SseOptions {
  /** A comment line is sent after this much silence, so proxies keep the connection. 0 = never. */
  keepAliveMs: number;
}

/**
 * Writes Server-Sent Events straight to the socket: each event in a single write (some SSE
 * parsers lose events split across chunks), backpressure respected, `data: [DONE]` at the end.
 * Headers are sent on the first event, as late as possible, so an early failure can still be a
 * JSON error (style.md, point 8). After `reply.hijack()` Fastify no longer sends its headers, so
 * they are written here.
 */
export class SseWriter {
  private readonly raw: ServerResponse;
  private started = false;
  private closed = false;
  private keepAlive?: NodeJS.Timeout;
  private lastWrite = 0;
  private lastFlush = 0;
  private flushedContent = false;

  constructor(
    private readonly reply: FastifyReply,
    private readonly options: SseOptions,
  ) {
    this.raw = reply.raw;
    this.raw.once('close', () => this.stop());
  }

  /** True once the client has gone away (or the stream was ended). */
  get isClosed(): boolean {
    return this.closed;
  }

  get headersSent(): boolean {
    return this.started;
  }

  /**
   * Writes one event; resolves when the socket can take more (immediately unless buffered).
   * Node corks the socket on a write and uncorks it on the next tick, which a burst of events
   * processed in microtasks (an engine read holding many chunks) would postpone to the end of
   * the burst. So the first delta is flushed at once (time to first token) and later ones
   * at most FLUSH_MS apart, while events in between share one socket write.
   */
  async write(type: string, json: string): Promise<void> {
    if (this.closed) return;
    if (!this.started) this.start();
    const ok = this.raw.write(`event: ${type}\ndata: ${json}\n\n`);
    const now = performance.now();
    if (!this.flushedContent ? type.endsWith('.delta') : now - this.lastFlush >= FLUSH_MS) {
      this.flushedContent = true;
      this.lastFlush = now;
      const socket = this.raw.socket;
      if (socket?.writableCorked) socket.uncork();
    }
    this.lastWrite = now;
    if (!ok) await this.drained();
  }

  /** Ends the stream with `data: [DONE]`. */
  end(): void {
    if (this.closed) return;
    if (!this.started) this.start();
    this.raw.end('data: [DONE]\n\n');
    this.stop();
  }

  private start(): void {
    this.started = true;
    this.reply.hijack();
    this.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'x-request-id': String(this.reply.request.id),
    });
    if (this.options.keepAliveMs > 0) {
      this.keepAlive = setInterval(() => {
        if (performance.now() - this.lastWrite >= this.options.keepAliveMs && !this.closed) this.raw.write(': keepalive\n\n');
      }, this.options.keepAliveMs);
      this.keepAlive.unref();
    }
  }

  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.raw.off('drain', done);
        this.raw.off('close', done);
        resolve();
      };
      this.raw.once('drain', done);
      this.raw.once('close', done);
    });
  }

  private stop(): void {
    this.closed = true;
    if (this.keepAlive) clearInterval(this.keepAlive);
  }
}
