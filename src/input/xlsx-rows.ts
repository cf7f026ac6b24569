import { zipEntry } from './zip-size.js';

/**
 * The rows of a workbook's first sheet that a person cannot see although they are not marked
 * hidden: a height under half a point (`<row ht="0" customHeight="1">`). exceljs reads such a
 * height as no height at all, so the sheet's XML is read here: the first `<sheet>` of
 * xl/workbook.xml, its part through xl/_rels/workbook.xml.rels, then each `<row>` tag's `r` and
 * `ht`. An empty set when the parts cannot be found (the exceljs read then decides).
 */
export async function zeroHeightRows(file: string): Promise<Set<number>> {
  const rows = new Set<number>();
  const workbook = (await zipEntry(file, 'xl/workbook.xml'))?.toString('utf8');
  const rels = (await zipEntry(file, 'xl/_rels/workbook.xml.rels'))?.toString('utf8');
  if (workbook === undefined || rels === undefined) return rows;
  const rid = /<(?:\w+:)?sheet\b[^>]*\br:id="([^"]+)"/.exec(workbook)?.[1];
  if (rid === undefined) return rows;
  const rel = [...rels.matchAll(/<Relationship\b[^>]*>/g)]
    .map((m) => m[0])
    .find((tag) => new RegExp(`\\bId="${rid.replace(/[^\w-]/g, '')}"`).test(tag));
  const target = rel === undefined ? undefined : /\bTarget="([^"]+)"/.exec(rel)?.[1];
  if (target === undefined) return rows;
  const part = target.startsWith('/') ? target.slice(1) : `xl/${target}`;
  const xml = (await zipEntry(file, part))?.toString('utf8');
  if (xml === undefined) return rows;
  for (const m of xml.matchAll(/<(?:\w+:)?row\b[^>]*>/g)) {
    const ht = /\bht="([^"]*)"/.exec(m[0])?.[1];
    const r = /\br="(\d+)"/.exec(m[0])?.[1];
    if (ht !== undefined && r !== undefined && Number(ht) < 0.5) rows.add(Number(r));
  }
  return rows;
}
