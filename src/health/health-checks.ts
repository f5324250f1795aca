import { Injectable } from '@nestjs/common';

export type CheckResult = { up: true; [detail: string]: unknown } | { up: false; reason: string };
export type ReadinessCheck = () => Promise<CheckResult>;

/**
 * Readiness checks registered by the modules that own a dependency (Redis here; the engine module
 * adds its own). Also carries the draining flag set on SIGTERM, so load balancers stop routing.
 */
@Injectable()
export class HealthChecks {
  private readonly checks = new Map<string, ReadinessCheck>();
  draining = false;

  register(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  async run(): Promise<{ ready: boolean; checks: Record<string, CheckResult> }> {
    const names = [...this.checks.keys()];
    const results = await Promise.all(
      names.map((name) =>
        this.checks.get(name)!().catch((error: unknown): CheckResult => ({ up: false, reason: String(error) })),
      ),
    );
    const checks = Object.fromEntries(names.map((name, i) => [name, results[i]!]));
    return { ready: !this.draining && results.every((result) => result.up), checks };
  }
}
