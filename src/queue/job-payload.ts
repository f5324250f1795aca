import type { ResponseRun } from '../generation/response-run';

/** Re-validates a job payload read back from Redis before a worker trusts it (style.md, point 4). */
export function parseJobRun(data: unknown): ResponseRun {
  const run = data as Partial<ResponseRun> | null;
  if (
    !run ||
    typeof run.responseId !== 'string' ||
    !/^resp_[0-9a-f]{48}$/.test(run.responseId) ||
    typeof run.tenant !== 'string' ||
    typeof run.createdAt !== 'number' ||
    typeof run.model !== 'string' ||
    typeof run.request !== 'object' ||
    run.request === null ||
    !Array.isArray(run.request.input) ||
    run.request.background !== true
  ) {
    throw new Error('malformed background job payload');
  }
  return run as ResponseRun;
}
