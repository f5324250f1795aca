// Three tiers (design.md "Tests"): unit specs beside the code, integration against real Redis,
// e2e over real HTTP. swc compiles TypeScript and the ESM-only @nestjs packages to CommonJS.
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];
const esmPackages = ['@nestjs', 'uid', 'file-type', 'strtok3', 'token-types', 'peek-readable', '@tokenizer'];
const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j|mj)s$': swc },
  transformIgnorePatterns: [`/node_modules/(?!(${esmPackages.join('|')})/)`],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
};
module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
    // Real Redis, real HTTP and child processes: generous timeouts for a loaded 2-core CI machine.
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.int-spec.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/jest-timeout.ts'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/jest-timeout.ts'],
    },
  ],
};
