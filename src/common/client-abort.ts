import type { FastifyReply } from 'fastify';

/**
 * An AbortSignal that fires when the client goes away before the response was fully written:
 * a foreground response's generation must stop then (style.md, point 8).
 */
export function clientAbortSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const response = reply.raw;
  response.once('close', () => {
    if (!response.writableFinished) controller.abort(new Error('client disconnected'));
  });
  return controller.signal;
}
