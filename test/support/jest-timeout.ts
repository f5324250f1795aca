// Real Redis, real HTTP and child processes: a generous per-test timeout for a loaded 2-core machine.
jest.setTimeout(30_000);
