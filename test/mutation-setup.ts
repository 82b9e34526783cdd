// Setup of the mutation run (vitest.mutation.config.ts): Stryker switches mutants inside one test process, so a
// module-level memo filled under one mutant would answer for the next. Each test starts with it empty.
import { beforeEach } from 'vitest';
import { clearSelectorMemo } from '../src/model/selector.js';

beforeEach(() => clearSelectorMemo());
