// Zip and tar archives built in memory, for the archive ingest tests and the bench (no
// archiver needed). Just enough of each format: zip members stored or deflated with 32-bit
// sizes; ustar headers, with a pax extended header for long names.
import { crc32, deflateRawSync } from 'node:zlib';

export type ZipEntry = { name: string; data: Buffer | string; method?: 0 | 8; declaredSize?: number };

/** A zip archive; `copies` more central directory entries all point at the first member's data (an overlapping bomb). */
export function makeZip(entries: ZipEntry[], copies = 0): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  const central = (name: Buffer, method: number, crc: number, csize: number, size: number, at: number) => {
    const ch = Buffer.alloc(46);
    ch.writeUInt32LE(0x02014b50, 0);
    ch.writeUInt16LE(20, 4);
    ch.writeUInt16LE(20, 6);
    ch.writeUInt16LE(method, 10);
    ch.writeUInt32LE(crc, 16);
    ch.writeUInt32LE(csize, 20);
    ch.writeUInt32LE(size, 24);
    ch.writeUInt16LE(name.length, 28);
    ch.writeUInt32LE(at, 42);
    centrals.push(ch, name);
  };
  for (const e of entries) {
    const data = Buffer.from(e.data);
    const method = e.method ?? 8;
    const body = method === 8 ? deflateRawSync(data) : data;
    const name = Buffer.from(e.name);
    const crc = crc32(data);
    const size = e.declaredSize ?? data.length;
    const lh = Buffer.alloc(30);
    lh.writeUInt32LE(0x04034b50, 0);
    lh.writeUInt16LE(20, 4);
    lh.writeUInt16LE(method, 8);
    lh.writeUInt32LE(crc, 14);
    lh.writeUInt32LE(body.length, 18);
    lh.writeUInt32LE(size, 22);
    lh.writeUInt16LE(name.length, 26);
    locals.push(lh, name, body);
    central(name, method, crc, body.length, size, offset);
    if (offset === 0) for (let i = 0; i < copies; i++) central(Buffer.from(`copy${i}.txt`), method, crc, body.length, size, 0);
    offset += 30 + name.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const count = entries.length + copies;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

function tarHeader(name: string, size: number, type: string): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0, 100);
  h.write('0000644\0', 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write(size.toString(8).padStart(11, '0') + '\0', 124);
  h.write('00000000000\0', 136);
  h.write('        ', 148);
  h.write(type, 156);
  h.write('ustar\0', 257);
  h.write('00', 263);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  return h;
}

/** A pax record: its length counts its own digits. */
function pax(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let len = body.length + 1;
  while (String(len).length + body.length !== len) len++;
  return `${len}${body}`;
}

/** A ustar archive; `pax` gives the member a long name through a pax extended header. */
export function makeTar(entries: { name: string; data: Buffer | string; type?: string; pax?: string }[]): Buffer {
  const out: Buffer[] = [];
  const put = (name: string, data: Buffer, type: string) => {
    out.push(tarHeader(name, data.length, type), data, Buffer.alloc((512 - (data.length % 512)) % 512));
  };
  for (const e of entries) {
    const long = e.pax ?? (Buffer.byteLength(e.name) > 100 ? e.name : undefined);
    if (long !== undefined) put('PaxHeader', Buffer.from(pax('path', long)), 'x');
    put(e.name, Buffer.from(e.data), e.type ?? '0');
  }
  out.push(Buffer.alloc(1024));
  return Buffer.concat(out);
}
