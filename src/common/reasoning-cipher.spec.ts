import { ReasoningCipher } from './reasoning-cipher';

describe('ReasoningCipher', () => {
  const cipher = new ReasoningCipher('11'.repeat(32));

  it('round-trips text for the same tenant', () => {
    const sealed = cipher.seal('The user wants the weather. ✓ 😀', 'acme');
    expect(sealed).toMatch(/^rg1\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('weather');
    expect(cipher.open(sealed, 'acme')).toBe('The user wants the weather. ✓ 😀');
  });

  it('refuses another tenant, another key, and tampering', () => {
    const sealed = cipher.seal('secret thoughts', 'acme');
    expect(cipher.open(sealed, 'globex')).toBeUndefined();
    expect(new ReasoningCipher('22'.repeat(32)).open(sealed, 'acme')).toBeUndefined();
    const tampered = sealed.slice(0, -2) + (sealed.endsWith('A') ? 'BB' : 'AA');
    expect(cipher.open(tampered, 'acme')).toBeUndefined();
    expect(cipher.open('not-ours', 'acme')).toBeUndefined();
  });

  it('accepts base64 keys and seals differently each time', () => {
    const b64 = new ReasoningCipher(Buffer.alloc(32, 7).toString('base64'));
    const a = b64.seal('x', 't');
    expect(a).not.toBe(b64.seal('x', 't'));
    expect(b64.open(a, 't')).toBe('x');
  });
});
