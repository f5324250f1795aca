import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { RunRegistry } from '../store/run-registry';
import { initialResponse } from '../generation/initial-response';
import { ResponseRunner, type RunResult } from '../generation/response-runner';
import type { ResponseRun } from '../generation/response-run';
import type { ResponseStreamEvent } from '../generation/types/events';
import { EventLog } from '../store/event-log';
import { ResponseStore } from '../store/response-store';
import { CancelBus } from './cancel-bus';
import { LogWriter } from './log-writer';

/**
 * Runs one background response on a worker: claims it (queued → in_progress, atomically, unless
 * it was cancelled), runs the same ResponseRunner as foreground mode, appends every event to the
 * response's log, and saves the final snapshot with a transition that never overrides a terminal
 * status. Cancels arrive through the CancelBus and abort the engine request.
 */
@Injectable()
export class BackgroundExecution implements OnApplicationShutdown {
  private readonly logger = new Logger(BackgroundExecution.name);
  readonly workerId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private readonly running = new Set<string>();
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly runner: ResponseRunner,
    private readonly store: ResponseStore,
    private readonly log: EventLog,
    private readonly bus: CancelBus,
    private readonly registry: RunRegistry,
    config: AppConfig,
  ) {
    // One timer beats for every run of this process; a process killed with -9 stops beating.
    this.heartbeat = setInterval(() => {
      this.registry.beat([...this.running], this.workerId).catch((error: unknown) => this.logger.warn(`heartbeat failed: ${String(error)}`));
    }, config.heartbeatIntervalMs);
    this.heartbeat.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.heartbeat);
  }

  async execute(run: ResponseRun): Promise<void> {
    const claimed = await this.store.transition(initialResponse(run, 'in_progress'), ['queued']);
    await this.registry.release(run.tenant, run.responseId);
    if (!claimed.written) {
      this.logger.log(`skipping ${run.responseId}: it is ${claimed.current ?? 'gone'}`);
      return;
    }
    await this.registry.start(run.responseId, this.workerId);
    this.running.add(run.responseId);
    const controller = new AbortController();
    const unwatch = await this.bus.watch(run.responseId, controller);
    const writer = new LogWriter(this.log, run.responseId);
    try {
      // A cancel published before we subscribed left its flag.
      if (await this.store.isCancelFlagged(run.responseId)) controller.abort(new Error('cancelled'));
      const result = await this.drive(run, controller.signal, writer);
      await writer.drain();
      if (result) {
        const saved = await this.store.transition(result.response, ['in_progress']);
        if (!saved.written) this.logger.warn(`${run.responseId} ended ${result.response.status} but is already ${saved.current}`);
        await this.store.saveHistory(run.responseId, { conversation: result.conversation });
      }
      await this.log.touch(run.responseId);
    } finally {
      unwatch();
      this.running.delete(run.responseId);
      await this.registry.finish(run.responseId);
    }
  }

  private async drive(run: ResponseRun, signal: AbortSignal, writer: LogWriter): Promise<RunResult | undefined> {
    const iterator = this.runner.run(run, signal);
    let last: ResponseStreamEvent | undefined;
    try {
      for (;;) {
        const step = await iterator.next();
        if (step.done) return step.value;
        last = step.value;
        writer.push(step.value);
      }
    } catch (error) {
      // Failed before any output (engine down, prompt too long): end the log with response.failed.
      const message = error instanceof Error ? error.message : 'The response failed.';
      const response = { ...initialResponse(run, 'failed'), error: { code: 'server_error' as const, message } };
      const sequence = (last?.sequence_number ?? 1) + 1;
      writer.push({ type: 'error', sequence_number: sequence, code: 'server_error', message, param: null, error: { type: 'server_error', code: 'server_error', message, param: null } });
      writer.push({ type: 'response.failed', sequence_number: sequence + 1, response });
      await writer.drain();
      await this.store.transition(response, ['in_progress']);
      return undefined;
    }
  }
}
