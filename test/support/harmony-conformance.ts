import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** Test-only loader of the shared harmony conformance data (never copied into the repo). */
export const CONFORMANCE_DIR = resolve(__dirname, '../../../shared/conformance/harmony');

export function readConformance(path: string): string {
  return readFileSync(resolve(CONFORMANCE_DIR, path), 'utf8');
}

export function loadCases(): { render_cases: Array<Record<string, unknown>>; parse_cases: Array<Record<string, unknown>> } {
  return JSON.parse(readConformance('cases.json')) as never;
}
