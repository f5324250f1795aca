import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'rg1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * `reasoning.encrypted_content` for stateless clients (`store: false`, e.g. Codex): the reasoning
 * text sealed with AES-256-GCM, bound to the tenant (additional authenticated data), so it can be
 * sent back as input but neither read nor forged, nor replayed by another tenant.
 */
export class ReasoningCipher {
  private readonly key: Buffer;

  constructor(key: string | undefined) {
    this.key = key === undefined ? randomBytes(32) : decodeKey(key);
  }

  seal(text: string, tenant: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(tenant, 'utf8'));
    const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  /** The sealed text, or undefined if it was not sealed by this key for this tenant. */
  open(sealed: string, tenant: string): string | undefined {
    if (!sealed.startsWith(`${VERSION}.`)) return undefined;
    const raw = Buffer.from(sealed.slice(VERSION.length + 1), 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(tenant, 'utf8'));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}

function decodeKey(key: string): Buffer {
  const bytes = /^[0-9a-fA-F]{64}$/.test(key) ? Buffer.from(key, 'hex') : Buffer.from(key, 'base64url');
  if (bytes.length !== 32) throw new Error('REASONING_ENCRYPTION_KEY must decode to 32 bytes');
  return bytes;
}
