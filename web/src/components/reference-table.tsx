import type { ReactNode } from 'react';
import { ScrollRegion } from './scroll-region';

interface ReferenceTableProps {
  /** The scroll region's name, when the table is wider than the screen. */
  label: string;
  head: readonly string[];
  /** One row a line: a name shown as code (a status, a field, a header), then the other cells. */
  rows: readonly (readonly ReactNode[])[];
  /** Classes beside `docs-table` (column widths). */
  className?: string;
}

/** A reference table of the documentation pages, scrolled in its own region on a phone. */
export function ReferenceTable({ label, head, rows, className }: ReferenceTableProps) {
  return (
    <ScrollRegion label={label}>
      <table className={className ? `docs-table ${className}` : 'docs-table'}>
        <thead>
          <tr>
            {head.map((title) => (
              <th key={title}>{title}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map(([name, ...cells]) => (
            <tr key={String(name)}>
              <td>
                <code>{name}</code>
              </td>
              {cells.map((cell, i) => (
                <td key={i}>{cell}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
