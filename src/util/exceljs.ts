import type ExcelJS from 'exceljs';
import { lazyRequire } from './lazy-require.js';

/**
 * exceljs, loaded on first use. It is the heaviest module the CLI depends on (about 0.6 s of CPU
 * to load, half of the CLI's start-up), and only `ohs report` (xlsx) needs it (input
 * workbooks are read from their XML: src/input/xlsx-book.ts), so every other command (and `ohs --help`) starts without it. exceljs is
 * CommonJS: `require` gives what `import ExcelJS from 'exceljs'` gives, synchronously.
 */
export const exceljs = lazyRequire<typeof ExcelJS>('exceljs');
