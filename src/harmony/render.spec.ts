import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { CONFORMANCE_DIR, loadCases, readConformance } from '../../test/support/harmony-conformance';
import { encodeText } from './encoding';
import { render, renderConversation, renderConversationForCompletion, renderConversationForTraining } from './render';
import { decodeTokens } from './token-decoder';
import type { HarmonyMessage, HarmonyRole, RenderConfig, RenderOptions } from './types';

interface RenderCase {
  id: string;
  origin: string;
  function: 'render' | 'render_conversation' | 'render_conversation_for_completion' | 'render_conversation_for_training';
  next_turn_role?: HarmonyRole;
  config?: RenderConfig;
  render_options?: RenderOptions;
  messages: HarmonyMessage[];
  drop_last_token?: boolean;
  expected_text: string;
  expected_tokens: number[];
  expected_file?: string;
}

const cases = loadCases().render_cases as unknown as RenderCase[];

function renderCase(c: RenderCase): number[] {
  switch (c.function) {
    case 'render':
      return render(c.messages[0]!, c.render_options).tokens;
    case 'render_conversation':
      return renderConversation(c.messages, c.config).tokens;
    case 'render_conversation_for_completion':
      return renderConversationForCompletion(c.messages, c.next_turn_role ?? 'assistant', c.config).tokens;
    case 'render_conversation_for_training':
      return renderConversationForTraining(c.messages, c.config).tokens;
  }
}

describe('renderer against every render case of cases.json', () => {
  it('has the cases', () => expect(cases.length).toBeGreaterThanOrEqual(23));

  it.each(cases.map((c) => [c.id, c] as const))('%s: text byte for byte and token ids exactly', (_id, c) => {
    let tokens = renderCase(c);
    if (c.drop_last_token) tokens = tokens.slice(0, -1);
    expect(decodeTokens(tokens)).toBe(c.expected_text);
    expect(tokens).toEqual(c.expected_tokens);
  });
});

describe('renderer against the upstream test-data files', () => {
  const byFile = new Map(cases.filter((c) => c.expected_file).map((c) => [c.expected_file!, c]));
  const files = readdirSync(resolve(CONFORMANCE_DIR, 'upstream-test-data')).filter((name) => byFile.has(name));

  it('covers every rendering file', () => expect(files.length).toBeGreaterThanOrEqual(15));

  it.each(files)('%s', (file) => {
    const c = byFile.get(file)!;
    let tokens = renderCase(c);
    if (c.drop_last_token) tokens = tokens.slice(0, -1);
    // Upstream compares after trimming trailing whitespace.
    expect(decodeTokens(tokens).trimEnd()).toBe(readConformance(`upstream-test-data/${file}`).trimEnd());
  });
});

describe('encoding', () => {
  it('keeps special-token spellings in text as ordinary tokens', () => {
    expect(encodeText('<|start|>')).toEqual([27, 91, 5236, 91, 29]);
    expect(encodeText('hello world')).toEqual([24912, 2375]);
    expect(encodeText('functions.get_weather')).toEqual([44580, 775, 170154]);
  });
});
