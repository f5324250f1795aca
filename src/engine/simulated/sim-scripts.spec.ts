import { SimScriptBook, SimScriptError, type SimScriptInput } from './sim-scripts';

describe('SimScriptBook', () => {
  it('matches by marker, once by default', () => {
    const book = new SimScriptBook();
    book.add({ match: 'MARK-1', completion: 'one' });
    expect(book.take('prompt without marker')).toBeUndefined();
    expect(book.take('xx MARK-1 yy')?.completion).toBe('one');
    expect(book.take('xx MARK-1 yy')).toBeUndefined();
  });

  it('keeps scripts of different markers apart and queues scripts of one marker in order', () => {
    const book = new SimScriptBook();
    book.add({ match: 'A', completion: 'a1' });
    book.add({ match: 'B', completion: 'b1' });
    book.add({ match: 'A', completion: 'a2' });
    expect(book.take('..B..')?.completion).toBe('b1');
    expect(book.take('..A..')?.completion).toBe('a1');
    expect(book.take('..A..')?.completion).toBe('a2');
  });

  it('honours a use count and unlimited scripts', () => {
    const book = new SimScriptBook();
    book.add({ match: 'T', completion: [1, 2], times: 2 });
    book.add({ match: 'U', completion: 'u', times: 'unlimited' });
    expect(book.take('T')).toBeDefined();
    expect(book.take('T')).toBeDefined();
    expect(book.take('T')).toBeUndefined();
    for (let i = 0; i < 100; i++) expect(book.take('U')).toBeDefined();
  });

  it('removes by id and by marker', () => {
    const book = new SimScriptBook();
    const first = book.add({ match: 'R', completion: 'x', times: 'unlimited' });
    book.add({ match: 'R', completion: 'y' });
    book.add({ match: 'S', completion: 'z' });
    expect(book.remove(first.id)).toBe(true);
    expect(book.remove(first.id)).toBe(false);
    expect(book.removeMatching('R')).toBe(1);
    expect(book.list().map((s) => s.match)).toEqual(['S']);
  });

  it('keeps only known fields of an input', () => {
    const book = new SimScriptBook();
    const script = book.add({ match: 'K', completion: 'k', extra: 'dropped' } as SimScriptInput);
    expect(Object.keys(script)).not.toContain('extra');
  });

  it.each([
    [{ match: '', completion: 'x' }],
    [{ match: 'm', completion: '' }],
    [{ match: 'm', completion: [1, -2] }],
    [{ match: 'm', completion: 'x', times: 0 }],
    [{ match: 'm', completion: 'x', times: 'forever' }],
    [{ match: 'm', completion: 'x', tokensPerSecond: -1 }],
  ])('rejects an invalid script %j', (input) => {
    expect(() => new SimScriptBook().add(input as SimScriptInput)).toThrow(SimScriptError);
  });
});
