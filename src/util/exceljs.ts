import type ExcelJS from 'exceljs';
import { lazyRequire } from './lazy-require.js';

/**
 * exceljs's streaming workbook writer, loaded on first use: the one part of exceljs the CLI uses
 * (input workbooks are read from their XML: src/input/xlsx-book.ts). Required by its own path, not
 * through the package's index, which loads the whole library (the document model, the readers,
 * their zip and XML parsers): 0.55 s of CPU against 0.15 s for the writer alone on Node 20, paid
 * by every `ohs report`, nightly job and demo. Commands that write no workbook never load it.
 * exceljs is CommonJS: `require` gives the class synchronously.
 */
export const workbookWriter = lazyRequire<typeof ExcelJS.stream.xlsx.WorkbookWriter>(
  'exceljs/lib/stream/xlsx/workbook-writer.js',
);
