import { defineConfig, mergeConfig } from 'vitest/config';
import base from '../vitest.config.js';

/**
 * The vitest configuration Stryker runs a module's unit tests with (stryker.config.mjs): the
 * project's own, plus a setup file that makes every mutant run against every test of its module
 * (mutation/vitest-setup.ts says why).
 */
export default mergeConfig(base, defineConfig({ test: { setupFiles: ['mutation/vitest-setup.ts'] } }));
