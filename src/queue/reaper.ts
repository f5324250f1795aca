import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { ResponseAccumulator } from '../generation/response-accumulator';
import type { ResponseStreamEvent } from '../generation/types/events';
import type { ResponseObject } from '../generation/types/response';
import { EventLog } from '../store/event-log';
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

  private async reap(id: string): Promise<boolean> {
    const stored = await this.store.load(id);
    if (!stored || stored.response.status !== 'in_progress') {
      await this.registry.forget(id);
      return false;
    }
    const fold = new ResponseAccumulator();
    const logged = await this.log.readAfter(id, -1, 100_000);
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
    await this.log.append(id, [error, terminal].map((event) => ({ sequence: event.sequence_number, type: event.type, json: JSON.stringify(event) })));
    await this.registry.forget(id);
    this.logger.warn(`failed ${id}: its worker's heartbeat expired`);
    return true;
  }
}
