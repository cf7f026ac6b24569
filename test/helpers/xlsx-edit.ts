import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type ExcelJS from 'exceljs';
import JSZip from 'jszip';

/**
 * Writes a workbook made with exceljs to `dir/name`, its XML parts first edited as another program
 * would write them (what exceljs cannot write: a row height of 0, a hidden tab bar, a data table).
 * An edit that changes nothing throws, so a test never passes on a file it did not make.
 */
export async function writeEdited(
  wb: ExcelJS.Workbook,
  dir: string,
  name: string,
  edits: Record<string, (xml: string) => string>,
): Promise<string> {
  const zip = await JSZip.loadAsync(await wb.xlsx.writeBuffer());
  for (const [part, edit] of Object.entries(edits)) {
    const xml = await zip.file(part)?.async('string');
    if (xml === undefined) throw new Error(`no ${part}`);
    const edited = edit(xml);
    if (edited === xml) throw new Error(`${name}: the edit of ${part} changed nothing`);
    zip.file(part, edited);
  }
  const out = join(dir, name);
  writeFileSync(out, await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }));
  return out;
}
