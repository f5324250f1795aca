import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { Worker, type Job } from 'bullmq';
import { AppConfig } from '../config/app-config';
import type { ResponseRun } from '../generation/response-run';
import { QUEUE_NAMES } from '../store/redis-keys';
import { RedisService } from '../store/redis.service';
import { BackgroundExecution } from './background-execution';
import { parseJobRun } from './job-payload';

/**
 * The worker's BullMQ consumer: thin, it validates the job payload and hands the run to
 * BackgroundExecution. A long lock keeps a long generation from being taken twice.
 */
@Injectable()
export class RunResponseProcessor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RunResponseProcessor.name);
  private worker?: Worker;

  constructor(
    private readonly redis: RedisService,
    private readonly config: AppConfig,
    private readonly execution: BackgroundExecution,
  ) {}

  onApplicationBootstrap(): void {
    this.worker = new Worker(QUEUE_NAMES.responses, (job: Job<ResponseRun>) => this.execution.execute(parseJobRun(job.data)), {
      connection: this.redis.createQueueConnection('worker'),
      prefix: this.redis.keys.queuePrefix(),
      concurrency: this.config.workerConcurrency,
      lockDuration: 10 * 60_000,
      maxStalledCount: 1,
    });
    this.worker.on('failed', (job, error) => this.logger.error({ err: error, responseId: job?.id }, 'background response job failed'));
  }

  /** Stops taking jobs and lets running ones finish, before Redis connections close. */
  async beforeApplicationShutdown(): Promise<void> {
    try {
      await this.worker?.close();
    } catch (error) {
      // Shutting down anyway: runs that could not finish are reaped by another worker.
      this.logger.warn(`closing the job consumer failed: ${String(error)}`);
    }
  }
}
