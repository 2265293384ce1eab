/**
 * Prints records through the shared hidden frame (lib/print-frame.ts): every value goes in
 * through textContent, never as markup (breach data is hostile).
 */
import { BRAND } from '@/lib/brand';
import { printInFrame } from '@/lib/print-frame';
import type { SearchRecord } from '../api/search-api';
import { recordLines } from './record-fields';

const PRINT_CSS = `
body { font: 12px/1.45 system-ui, sans-serif; color: #111; margin: 24px; }
h1 { font-size: 16px; margin: 0 0 4px; }
p.meta { color: #555; margin: 0 0 16px; }
section { border-top: 1px solid #ccc; padding: 8px 0; break-inside: avoid; }
dl { display: grid; grid-template-columns: 140px 1fr; gap: 2px 12px; margin: 0; }
dt { font-weight: 600; color: #444; }
dd { margin: 0; font-family: ui-monospace, monospace; overflow-wrap: anywhere; white-space: pre-wrap; }
`;

export const PRINT_FRAME_ID = 'search-print-frame';

/** Fills `doc` with the records; exported for the browser test's sake of clarity. */
export function buildPrintDocument(doc: Document, records: SearchRecord[], title: string): void {
  doc.title = title;
  const style = doc.createElement('style');
  style.textContent = PRINT_CSS;
  doc.head.replaceChildren(style);

  const heading = doc.createElement('h1');
  heading.textContent = title;
  const meta = doc.createElement('p');
  meta.className = 'meta';
  meta.textContent = `${BRAND} · ${records.length} record${records.length === 1 ? '' : 's'} · ${new Date().toLocaleString()}`;
  const sections = records.map((record) => {
    const section = doc.createElement('section');
    const list = doc.createElement('dl');
    for (const [label, value] of recordLines(record)) {
      const term = doc.createElement('dt');
      term.textContent = label;
      const detail = doc.createElement('dd');
      detail.textContent = value;
      list.append(term, detail);
    }
    section.append(list);
    return section;
  });
  doc.body.replaceChildren(heading, meta, ...sections);
}

export function printRecords(records: SearchRecord[], title: string): void {
  printInFrame(PRINT_FRAME_ID, (doc) => buildPrintDocument(doc, records, title));
}
