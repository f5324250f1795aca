import { Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import type { ResponseRun } from '../generation/response-run';
import { QUEUE_NAMES } from '../store/redis-keys';
import { RedisService } from '../store/redis.service';

export const RUN_JOB = 'run';

/**
 * The producer side of the background queue (API replicas). The job id is the response id, so a
 * response is never enqueued twice; the job carries the whole run (request and resolved history),
 * re-validated when a worker reads it back.
 */
@Injectable()
export class ResponseQueue implements BeforeApplicationShutdown {
  private readonly queue: Queue;

  constructor(redis: RedisService) {
    this.queue = new Queue(QUEUE_NAMES.responses, { connection: redis.createQueueConnection('queue'), prefix: redis.keys.queuePrefix() });
  }

  async enqueue(run: ResponseRun): Promise<void> {
    await this.queue.add(RUN_JOB, run, { jobId: run.responseId, attempts: 1, removeOnComplete: true, removeOnFail: { age: 24 * 3600 } });
  }

  /** The run a job carries, while BullMQ still has the job. */
  async runOf(responseId: string): Promise<unknown> {
    return (await this.queue.getJob(responseId))?.data;
  }

  /** Enqueues a second (and last) attempt of a run whose worker died before producing anything. */
  async enqueueRetry(run: ResponseRun): Promise<void> {
    await this.queue.add(RUN_JOB, run, { jobId: `${run.responseId}-retry`, attempts: 1, removeOnComplete: true, removeOnFail: { age: 24 * 3600 } });
  }

  /** Removes a job no worker has taken yet; false if it is running (or gone). */
  async removeWaiting(responseId: string): Promise<boolean> {
    const job = await this.queue.getJob(responseId);
    if (!job || !(await job.isWaiting()) && !(await job.isDelayed())) return false;
    try {
      await job.remove();
      return true;
    } catch {
      return false; // a worker locked it in between
    }
  }

  // Before Redis closes its connections (that happens in onApplicationShutdown).
  async beforeApplicationShutdown(): Promise<void> {
    await this.queue.close().catch(() => undefined); // nothing is lost: jobs live in Redis
  }
}
