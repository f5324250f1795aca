import { createHash, randomBytes } from 'node:crypto';

/**
 * Ids. A response id is 24 random bytes (unguessable, never taken from client input). Item ids
 * derive from the response id, the item's position and its kind, so a retried run produces the
 * same ids instead of duplicates, and they reveal nothing about the response id.
 */
export type ItemIdKind = 'msg' | 'rs' | 'fc' | 'call' | 'ws' | 'ci' | 'mcp' | 'mcpl' | 'mcpr' | 'fco' | 'ref';

export function newResponseId(): string {
  return `resp_${randomBytes(24).toString('hex')}`;
}

export function derivedId(kind: ItemIdKind, responseId: string, scope: 'output' | 'input', index: number): string {
  const digest = createHash('sha256').update(`${responseId}\u0000${scope}\u0000${kind}\u0000${index}`).digest('hex');
  return `${kind}_${digest.slice(0, 48)}`;
}

const RESPONSE_ID = /^resp_[0-9a-f]{48}$/;

/** Shape check before touching storage: ids we never issue cannot exist. */
export function isResponseId(value: string): boolean {
  return RESPONSE_ID.test(value);
}
