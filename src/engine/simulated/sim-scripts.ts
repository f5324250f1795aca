/**
 * Scripted completions for tests. A script is matched by a marker string that appears in the
 * prompt, so tests running in parallel against one simulated engine never take each other's
 * scripts. Scripts are tried in the order they were added (a queue per marker).
 */
export interface SimScriptInput {
  /** Marker text: the script applies to prompts that contain it. */
  match: string;
  /** Harmony text (special tokens spelled out, e.g. `<|channel|>final<|message|>Hi<|return|>`) or token ids. */
  completion: string | number[];
  /** How many requests may use it (default 1). */
  times?: number | 'unlimited';
  /** Repeat the completion until `max_tokens` is reached (for long or endless streams). */
  loop?: boolean;
  /** Per-script speed, overriding the engine's. */
  ttftMs?: number;
  tokensPerSecond?: number;
}

export interface SimScript extends Readonly<SimScriptInput> {
  readonly id: string;
  /** Uses left; Infinity for unlimited. */
  remaining: number;
}

export class SimScriptError extends Error {}

export class SimScriptBook {
  private readonly scripts: SimScript[] = [];
  private nextId = 1;

  add(input: SimScriptInput): SimScript {
    validate(input);
    // Copy known fields only: the input may be an HTTP body with anything in it.
    const script: SimScript = {
      id: `script_${this.nextId++}`,
      match: input.match,
      completion: input.completion,
      remaining: input.times === 'unlimited' ? Number.POSITIVE_INFINITY : (input.times ?? 1),
      ...(input.times !== undefined ? { times: input.times } : {}),
      ...(input.loop !== undefined ? { loop: input.loop } : {}),
      ...(input.ttftMs !== undefined ? { ttftMs: input.ttftMs } : {}),
      ...(input.tokensPerSecond !== undefined ? { tokensPerSecond: input.tokensPerSecond } : {}),
    };
    this.scripts.push(script);
    return script;
  }

  /** Removes one script by id; returns whether it existed. */
  remove(id: string): boolean {
    const index = this.scripts.findIndex((s) => s.id === id);
    if (index === -1) return false;
    this.scripts.splice(index, 1);
    return true;
  }

  /** Removes every script with this marker; returns how many. */
  removeMatching(match: string): number {
    let removed = 0;
    for (let i = this.scripts.length - 1; i >= 0; i--) {
      if (this.scripts[i]!.match === match) {
        this.scripts.splice(i, 1);
        removed++;
      }
    }
    return removed;
  }

  clear(): void {
    this.scripts.length = 0;
  }

  list(): readonly SimScript[] {
    return this.scripts;
  }

  /** Takes one use of the first script whose marker occurs in `prompt`. */
  take(prompt: string): SimScript | undefined {
    const index = this.scripts.findIndex((s) => prompt.includes(s.match));
    if (index === -1) return undefined;
    const script = this.scripts[index]!;
    script.remaining -= 1;
    if (script.remaining <= 0) this.scripts.splice(index, 1);
    return script;
  }
}

function validate(input: SimScriptInput): void {
  if (typeof input !== 'object' || input === null) throw new SimScriptError('a script must be a JSON object');
  if (typeof input.match !== 'string' || input.match.length === 0) {
    throw new SimScriptError('"match" must be a non-empty string');
  }
  const completion: unknown = input.completion;
  const ids = Array.isArray(completion) && completion.every((id) => Number.isInteger(id) && (id as number) >= 0);
  if (!(typeof completion === 'string' && completion.length > 0) && !(ids && (completion as number[]).length > 0)) {
    throw new SimScriptError('"completion" must be non-empty harmony text or a non-empty array of token ids');
  }
  const times: unknown = input.times;
  if (times !== undefined && times !== 'unlimited' && !(Number.isInteger(times) && (times as number) >= 1)) {
    throw new SimScriptError('"times" must be a positive integer or "unlimited"');
  }
  if (input.loop !== undefined && typeof input.loop !== 'boolean') throw new SimScriptError('"loop" must be a boolean');
  for (const key of ['ttftMs', 'tokensPerSecond'] as const) {
    const value: unknown = input[key];
    if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
      throw new SimScriptError(`"${key}" must be a number ≥ 0`);
    }
  }
}
