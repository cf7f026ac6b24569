import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { crc32, deflateRawSync } from 'node:zlib';

/**
 * A real XLSX zip bomb, written part by part without holding the unpacked sheet in memory: a
 * valid workbook (content types, relationships, workbook, one sheet `InvoiceId,amountToPay`)
 * whose one payment row's amount is an inline string of `megabytes` MB, deflated chunk by chunk
 * (one raw deflate stream cut into full-flushed blocks). Its zip central directory declares the
 * true unpacked sizes.
 */
export async function writeXlsxBomb(
  file: string,
  invoice: string,
  megabytes: number,
): Promise<{ bytes: number; unpacked: number }> {
  const out = createWriteStream(file);
  let offset = 0;
  const directory: Buffer[] = [];
  const write = async (b: Buffer) => {
    offset += b.length;
    if (!out.write(b)) await once(out, 'drain');
  };
  const entry = async (name: string, chunks: Iterable<Buffer>) => {
    const start = offset;
    const nameBytes = Buffer.from(name);
    // Local header with sizes in a data descriptor after the data (flag bit 3).
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0008, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt16LE(nameBytes.length, 26);
    await write(Buffer.concat([local, nameBytes]));
    let crc = 0;
    let size = 0;
    let packed = 0;
    const all = [...chunks];
    for (let i = 0; i < all.length; i++) {
      const chunk = all[i] as Buffer;
      crc = crc32(chunk, crc);
      size += chunk.length;
      const z = deflateRawSync(chunk, { level: 9, finishFlush: i === all.length - 1 ? 4 : 3 });
      packed += z.length;
      await write(z);
    }
    const descriptor = Buffer.alloc(16);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(crc >>> 0, 4);
    descriptor.writeUInt32LE(packed, 8);
    descriptor.writeUInt32LE(size, 12);
    await write(descriptor);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0008, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc >>> 0, 16);
    central.writeUInt32LE(packed, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(start, 42);
    directory.push(Buffer.concat([central, nameBytes]));
    return size;
  };
  const text = (s: string) => [Buffer.from(s)];
  const ns = 'http://schemas.openxmlformats.org';
  let unpacked = 0;
  unpacked += await entry(
    '[Content_Types].xml',
    text(
      `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="${ns}/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`,
    ),
  );
  unpacked += await entry(
    '_rels/.rels',
    text(
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${ns}/package/2006/relationships"><Relationship Id="rId1" Type="${ns}/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ),
  );
  unpacked += await entry(
    'xl/workbook.xml',
    text(
      `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${ns}/spreadsheetml/2006/main" xmlns:r="${ns}/officeDocument/2006/relationships"><sheets><sheet name="Pay" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ),
  );
  unpacked += await entry(
    'xl/_rels/workbook.xml.rels',
    text(
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${ns}/package/2006/relationships"><Relationship Id="rId1" Type="${ns}/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    ),
  );
  const block = Buffer.alloc(4 * 1_048_576, 'x');
  const sheet = function* () {
    yield Buffer.from(
      `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="${ns}/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>InvoiceId</t></is></c><c r="B1" t="inlineStr"><is><t>amountToPay</t></is></c></row><row r="2"><c r="A2" t="inlineStr"><is><t>${invoice}</t></is></c><c r="B2" t="inlineStr"><is><t>`,
    );
    for (let n = 0; n < megabytes; n += 4) yield block;
    yield Buffer.from('</t></is></c></row></sheetData></worksheet>');
  };
  unpacked += await entry('xl/worksheets/sheet1.xml', sheet());
  const dir = Buffer.concat(directory);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(directory.length, 8);
  end.writeUInt16LE(directory.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  await write(dir);
  await write(end);
  out.end();
  await once(out, 'finish');
  return { bytes: offset, unpacked };
}
