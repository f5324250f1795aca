import { loadCases, readConformance } from '../../test/support/harmony-conformance';
import { decodeTokens } from './token-decoder';
import { HarmonyParseError, StreamParser } from './stream-parser';
import type { HarmonyRole, ParsedMessage } from './types';

interface TraceStep {
  token: number;
  state: string;
  current_role: string | null;
  current_channel: string | null;
  current_recipient: string | null;
  current_content_type: string | null;
  last_content_delta: string | null;
  current_content: string;
  messages: number;
}

interface ParseCase {
  id: string;
  role: HarmonyRole | null;
  strict: boolean;
  eos: boolean;
  tokens: number[];
  expected_messages?: ParsedMessage[];
  expected_messages_before_error?: ParsedMessage[];
  expected_error?: string;
  trace?: TraceStep[];
  reference_deltas?: string[];
}

const cases = loadCases().parse_cases as unknown as ParseCase[];

describe('StreamParser against every parse case of cases.json', () => {
  it('has the cases', () => expect(cases.length).toBeGreaterThanOrEqual(33));

  it.each(cases.map((c) => [c.id, c] as const))('%s', (_id, c) => {
    const parser = new StreamParser(c.role, c.strict);
    const deltas: string[] = [];
    const trace: TraceStep[] = [];
    const run = (): void => {
      for (const token of c.tokens) {
        parser.process(token);
        if (parser.lastContentDelta !== null) deltas.push(parser.lastContentDelta);
        trace.push({
          token,
          state: parser.state,
          current_role: parser.currentRole,
          current_channel: parser.currentChannel,
          current_recipient: parser.currentRecipient,
          current_content_type: parser.currentContentType,
          last_content_delta: parser.lastContentDelta,
          current_content: parser.currentContent,
          messages: parser.messages.length,
        });
      }
      if (c.eos) parser.processEos();
    };
    if (c.expected_error !== undefined) {
      expect(run).toThrow(HarmonyParseError);
      try {
        run();
      } catch {
        // already asserted
      }
      const fresh = new StreamParser(c.role, c.strict);
      let message = '';
      try {
        for (const token of c.tokens) fresh.process(token);
        if (c.eos) fresh.processEos();
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain(c.expected_error);
      if (c.expected_messages_before_error) expect(fresh.messages).toEqual(c.expected_messages_before_error);
      return;
    }
    run();
    expect(parser.messages).toEqual(c.expected_messages);
    if (c.trace) expect(trace).toEqual(c.trace);
    if (c.reference_deltas) expect(deltas).toEqual(c.reference_deltas);
  });
});

describe('parse cases drawn from upstream test-data files', () => {
  const withFiles = cases.filter((c) => (c as { expected_file?: string }).expected_file);
  it('covers the parsing files', () => expect(withFiles.length).toBeGreaterThanOrEqual(3));
  it.each(withFiles.map((c) => [(c as { expected_file?: string }).expected_file!, c] as const))('%s: the case is the file', (file, c) => {
    const content = readConformance(`upstream-test-data/${file}`).trim();
    // Parsing files hold token ids (whitespace-separated); the others hold text.
    if (/^[\d\s]+$/.test(content)) expect(c.tokens).toEqual(content.split(/\s+/).map(Number));
    else expect(decodeTokens(c.tokens).trimEnd()).toBe(content);
  });
});

describe('a token that starts with U+FEFF (bytes EF BB BF)', () => {
  it('keeps the character when it is decoded through the byte path', () => {
    // 9552 leaves F0 9F pending, so the next token goes through byte decoding.
    const parser = new StreamParser('assistant', false);
    for (const id of [200005, 17196, 200008, 9552, 5574]) parser.process(id);
    parser.processEos();
    expect(parser.messages[0]!.content).toContain('\uFEFF');
    expect(decodeTokens([9552, 5574])).toContain('\uFEFF');
  });
});
