import { Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Errors } from '../common/errors/api-error';
import { SseWriter } from '../common/sse-writer';
import { AppConfig } from '../config/app-config';
import { cancelledWhileQueuedEvent, QUEUED_EVENT_COUNT, queuedEvents } from '../generation/output-emitter';
import { CANCELLED_CODE } from '../generation/response-accumulator';
import type { ResponseRun } from '../generation/response-run';
import { TERMINAL_STATUSES, type ResponseObject } from '../generation/types/response';
import { CancelBus } from '../queue/cancel-bus';
import { toLoggedEvent } from '../queue/log-writer';
import { ResponseQueue } from '../queue/response-queue';
import { EventLog, type LoggedEvent } from '../store/event-log';
import { EventTail } from '../store/event-tail';
import { ResponseStore, type StoredResponse } from '../store/response-store';
import { RunRegistry } from '../store/run-registry';
import { toStoredInputItems } from './input-items';

const CANCEL_WAIT_MS = 5_000;

/** The last event of a response for a reader: completed/incomplete/failed, or a cancel's error. */
function isTerminal(event: LoggedEvent): boolean {
  if (event.type === 'error') return event.json.includes(`"code":"${CANCELLED_CODE}"`);
  return event.type === 'response.completed' || event.type === 'response.incomplete' || event.type === 'response.failed';
}

/**
 * The background side of the Responses API on an API replica: enqueue (with the per-tenant
 * bound), stream a response's event log from any point on any replica, and cancel wherever the
 * run is. Workers do the running (src/queue/).
 */
@Injectable()
export class BackgroundResponses {
  constructor(
    private readonly store: ResponseStore,
    private readonly log: EventLog,
    private readonly tail: EventTail,
    private readonly queue: ResponseQueue,
    private readonly bus: CancelBus,
    private readonly registry: RunRegistry,
    private readonly config: AppConfig,
  ) {}

  /**
   * Background: the queued snapshot, the input items and the first two events are saved, then the
   * job is enqueued; a worker on any replica continues the event log from there.
   */
  async start(run: ResponseRun, reply: FastifyReply): Promise<void> {
    if (!(await this.registry.reserve(run.tenant, run.responseId, this.config.queueLimitPerTenant))) {
      throw Errors.tooManyQueued(this.config.queueLimitPerTenant, 5);
    }
    const events = queuedEvents(run);
    const queued = (events[0] as { response: ResponseObject }).response;
    await this.store.save({ tenant: run.tenant, response: queued }, { input: toStoredInputItems(run.responseId, run.request.input) });
    await this.log.append(run.responseId, events.map(toLoggedEvent));
    try {
      await this.queue.enqueue(run);
    } catch (error) {
      await this.registry.release(run.tenant, run.responseId);
      throw error;
    }
    if (run.request.stream) await this.follow(run.responseId, -1, reply);
    else await reply.send(queued);
  }

  /**
   * Streams a background response's log from `after` (-1 = the first event): a replay, then live
   * events until the terminal one. A reader going away only detaches; generation goes on.
   */
  async follow(responseId: string, after: number, reply: FastifyReply): Promise<void> {
    const writer = new SseWriter(reply, { keepAliveMs: 15_000 });
    let last = after;
    let finished = false;
    const write = async (events: readonly LoggedEvent[]): Promise<void> => {
      for (const event of events) {
        if (finished) return;
        await writer.write(event.type, event.json);
        last = event.sequence;
        finished = isTerminal(event);
      }
    };
    while (!writer.isClosed) {
      const batch = await this.log.readAfter(responseId, last, 1_000);
      if (batch.length === 0) break;
      await write(batch);
      if (finished) break;
    }
    if (!finished && !writer.isClosed) {
      await new Promise<void>((resolve) => {
        let writing = Promise.resolve();
        const stop = this.tail.follow(responseId, last, (events) => {
          writing = writing.then(() => write(events)).then(() => {
            if (finished) done();
          });
        });
        const done = (): void => {
          stop();
          reply.raw.off('close', done);
          resolve();
        };
        reply.raw.once('close', done);
        // A response that ended while we subscribed (or whose log lost its end) must not hang us.
        void this.store.load(responseId).then((stored) => {
          if (stored && TERMINAL_STATUSES.includes(stored.response.status)) {
            void writing.then(() => this.log.readAfter(responseId, last)).then((rest) => write(rest)).then(done);
          }
        });
      });
    }
    writer.end();
  }

  /** Cancels an (owned) response: background only; a terminal one is returned unchanged. */
  async cancel({ tenant, response }: StoredResponse): Promise<ResponseObject> {
    const id = response.id;
    if (!response.background) throw Errors.invalidValue('response_id', 'only background responses can be cancelled');
    if (TERMINAL_STATUSES.includes(response.status)) return response;
    if (response.status === 'queued') {
      const cancelled: ResponseObject = { ...response, status: 'cancelled' };
      if ((await this.store.transition(cancelled, ['queued'])).written) {
        await this.queue.removeWaiting(id);
        await this.registry.release(tenant, id);
        await this.log.append(id, [toLoggedEvent(cancelledWhileQueuedEvent(QUEUED_EVENT_COUNT))]);
        return cancelled;
      }
    }
    // Running: the saved flag plus a broadcast reach the worker holding it, wherever it runs.
    await this.store.flagCancel(id);
    await this.bus.publish(id);
    const deadline = Date.now() + CANCEL_WAIT_MS;
    for (;;) {
      const stored = await this.store.load(id);
      if (!stored || TERMINAL_STATUSES.includes(stored.response.status) || Date.now() > deadline) return (stored ?? { response }).response;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
