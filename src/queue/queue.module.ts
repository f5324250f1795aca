import { Global, Module, type DynamicModule } from '@nestjs/common';
import { BackgroundExecution } from './background-execution';
import { CancelBus } from './cancel-bus';
import { Reaper } from './reaper';
import { ResponseQueue } from './response-queue';
import { RunResponseProcessor } from './run-response.processor';

/** The background queue: producer and cancel bus everywhere, the consumer on worker roles. */
@Global()
@Module({})
export class QueueModule {
  static forRole(worker: boolean): DynamicModule {
    return {
      module: QueueModule,
      providers: [ResponseQueue, CancelBus, ...(worker ? [BackgroundExecution, RunResponseProcessor, Reaper] : [])],
      exports: [ResponseQueue, CancelBus],
    };
  }
}
