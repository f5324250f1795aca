import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { RedisService } from '../store/redis.service';

/**
 * Cancel = a saved flag + a broadcast (style.md, point 6). Any replica publishes a response id on
 * the cancel channel; the worker running that response aborts its controller. The flag (the
 * snapshot's status, set atomically) covers a worker that subscribes after the broadcast.
 */
@Injectable()
export class CancelBus implements OnApplicationShutdown {
  private readonly logger = new Logger(CancelBus.name);
  private readonly running = new Map<string, AbortController>();
  private subscribed?: Promise<unknown>;

  constructor(private readonly redis: RedisService) {}

  /** Registers a running response; its controller aborts when a cancel for it is broadcast. */
  async watch(responseId: string, controller: AbortController): Promise<() => void> {
    this.running.set(responseId, controller);
    this.subscribed ??= this.subscribe();
    await this.subscribed;
    return () => {
      if (this.running.get(responseId) === controller) this.running.delete(responseId);
    };
  }

  async publish(responseId: string): Promise<void> {
    await this.redis.command.publish(this.redis.keys.cancelChannel(), responseId);
  }

  onApplicationShutdown(): void {
    this.running.clear();
  }

  private async subscribe(): Promise<unknown> {
    const channel = this.redis.keys.cancelChannel();
    this.redis.subscriber.on('message', (from: string, responseId: string) => {
      if (from !== channel) return;
      const controller = this.running.get(responseId);
      if (controller && !controller.signal.aborted) {
        this.logger.log(`cancelling ${responseId}`);
        controller.abort(new Error('cancelled'));
      }
    });
    return this.redis.subscriber.subscribe(channel);
  }
}
