import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { ResponseAccumulator } from '../generation/response-accumulator';
import type { ResponseStreamEvent } from '../generation/types/events';
import type { ResponseObject } from '../generation/types/response';
import { initialResponse } from '../generation/initial-response';
import { QUEUED_EVENT_COUNT } from '../generation/output-emitter';
import { EventLog } from '../store/event-log';
import { RedisService } from '../store/redis.service';
import { parseJobRun } from './job-payload';
import { toLoggedEvent } from './log-writer';
import { ResponseQueue } from './response-queue';
import { ResponseStore } from '../store/response-store';
import { RunRegistry } from '../store/run-registry';

const MESSAGE = 'The worker running this response stopped before it finished.';

/**
 * Runs in every worker: finds background runs whose worker died (heartbeat expired), marks them
 * `failed` with their partial output (the fold of the logged events), and ends their event log
 * with `error` + `response.failed` so every reader finishes. Atomic: a run that finished or was
 * reaped by another worker in the meantime is left alone.
 */
@Injectable()
export class Reaper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(Reaper.name);
  private timer?: NodeJS.Timeout;
  private sweeping = false;

  constructor(
    private readonly registry: RunRegistry,
    private readonly store: ResponseStore,
    private readonly log: EventLog,
    private readonly config: AppConfig,
    private readonly queue: ResponseQueue,
    private readonly redis: RedisService,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), this.config.heartbeatIntervalMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** One pass; returns the ids it failed. */
  async sweep(): Promise<string[]> {
    if (this.sweeping) return [];
    this.sweeping = true;
    const reaped: string[] = [];
    try {
      for (const id of await this.registry.orphans()) {
        if (await this.reap(id)) reaped.push(id);
      }
    } catch (error) {
      this.logger.warn(`reaper pass failed: ${String(error)}`);
    } finally {
      this.sweeping = false;
    }
    return reaped;
  }

  /**
   * A run whose worker died before producing any event is run again by another worker, once:
   * back to `queued` (atomically, from in_progress) and enqueued as a retry job.
   */
  private async retry(id: string, response: ResponseObject): Promise<boolean> {
    const once = await this.redis.command.set(this.redis.keys.response(id, 'retried'), '1', 'EX', this.config.responseTtlSeconds, 'NX');
    if (once !== 'OK') return false;
    let run;
    try {
      run = parseJobRun(await this.queue.runOf(id));
    } catch {
      return false;
    }
    if (!(await this.store.transition({ ...initialResponse(run, 'queued'), created_at: response.created_at }, ['in_progress'])).written) return false;
    await this.registry.forget(id);
    await this.queue.enqueueRetry(run);
    this.logger.warn(`re-queued ${id}: its worker died before producing any event`);
    return true;
  }

  private async reap(id: string): Promise<boolean> {
    const stored = await this.store.load(id);
    if (!stored || stored.response.status !== 'in_progress') {
      await this.registry.forget(id);
      return false;
    }
    const logged = await this.log.readAfter(id, -1, 100_000);
    if (logged.length <= QUEUED_EVENT_COUNT && (await this.retry(id, stored.response))) return true;
    const fold = new ResponseAccumulator();
    for (const event of logged) fold.apply(JSON.parse(event.json) as ResponseStreamEvent);
    const partial: ResponseObject = fold.started ? fold.response : stored.response;
    const failed: ResponseObject = {
      ...partial,
      status: 'failed',
      error: { code: 'server_error', message: MESSAGE },
      output: partial.output.map((item) => ('status' in item && item.status === 'in_progress' ? { ...item, status: 'incomplete' } : item)) as ResponseObject['output'],
    };
    if (!(await this.store.transition(failed, ['in_progress'])).written) return false;
    const next = (logged[logged.length - 1]?.sequence ?? -1) + 1;
    const error: ResponseStreamEvent = {
      type: 'error',
      sequence_number: next,
      code: 'server_error',
      message: MESSAGE,
      param: null,
      error: { type: 'server_error', code: 'server_error', message: MESSAGE, param: null },
    };
    const terminal: ResponseStreamEvent = { type: 'response.failed', sequence_number: next + 1, response: failed };
    await this.log.append(id, [error, terminal].map(toLoggedEvent));
    await this.registry.forget(id);
    this.logger.warn(`failed ${id}: its worker's heartbeat expired`);
    return true;
  }
}
