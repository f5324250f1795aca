import fc from 'fast-check';
import { renderConversation } from './render';
import { parseMessagesFromCompletionTokens } from './stream-parser';
import type { HarmonyMessage, ParsedMessage } from './types';

const SPECIAL_SPELLINGS = ['<|start|>', '<|end|>', '<|message|>', '<|channel|>', '<|call|>', '<|return|>', '<|constrain|>', '<|reserved_200013|>', '<|endoftext|>'];

/** Any unicode text, biased towards text that spells special tokens (which must stay text). */
const text = fc
  .array(fc.oneof(fc.constantFrom(...SPECIAL_SPELLINGS), fc.string({ unit: 'binary', maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 6 })), { maxLength: 8 })
  .map((parts) => parts.join(''))
  .filter((value) => (value as unknown as { isWellFormed(): boolean }).isWellFormed());

const word = fc.stringMatching(/^[a-z][a-z0-9_]{0,11}$/);
const channel = fc.constantFrom('analysis', 'commentary', 'final');

const assistant: fc.Arbitrary<HarmonyMessage> = fc.oneof(
  fc.record({ role: fc.constant('assistant' as const), channel, content: text }),
  fc.record({
    role: fc.constant('assistant' as const),
    channel: fc.constantFrom('commentary', 'analysis'),
    recipient: word.map((name) => `functions.${name}`),
    content_type: fc.constantFrom('<|constrain|>json', 'json', 'code'),
    content: text,
  }),
);
const user: fc.Arbitrary<HarmonyMessage> = fc.record({ role: fc.constant('user' as const), content: text });
const tool: fc.Arbitrary<HarmonyMessage> = fc.record({
  role: fc.constant('tool' as const),
  name: word.map((name) => `functions.${name}`),
  recipient: fc.constant('assistant'),
  channel: fc.constant('commentary'),
  content: text,
});

function expected(message: HarmonyMessage): ParsedMessage {
  const out: ParsedMessage = { role: message.role, content: typeof message.content === 'string' ? message.content : '' };
  if (message.name) out.name = message.name;
  if (message.recipient) out.recipient = message.recipient;
  if (message.channel) out.channel = message.channel;
  if (message.content_type) out.content_type = message.content_type;
  return out;
}

describe('render → parse round trip', () => {
  it('gives back every message, and special-token spellings in text stay text', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(user, assistant, tool), { minLength: 1, maxLength: 6 }), (messages) => {
        const { tokens } = renderConversation(messages, { auto_drop_analysis: false });
        const parsed = parseMessagesFromCompletionTokens(tokens, null, true);
        expect(parsed).toEqual(messages.map(expected));
      }),
      { numRuns: 400 },
    );
    // 400 runs take ~2 s; a loaded CI machine can take several times that.
  }, 60_000);
});
