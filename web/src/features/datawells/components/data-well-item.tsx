import { useState } from 'react';
import { fieldLabel } from '@/lib/field-labels';
import type { DataWell } from '../api/datawells-api';

const numberFormat = new Intl.NumberFormat('en-US');
const dateFormat = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });

export const formatRecords = (records: number) => numberFormat.format(records);

/** "2021-03-04" → "Mar 4, 2021"; the day is read in UTC so no time zone can move it. */
export function formatWellDate(date: string | null): string {
  if (!date) return 'Unknown date';
  const parsed = new Date(`${date}T00:00:00Z`);
  return Number.isNaN(parsed.getTime()) ? 'Unknown date' : dateFormat.format(parsed);
}

export const dataTypes = (data: string) =>
  data
    .split(',')
    .map((type) => type.trim())
    .filter(Boolean);

/** Only our own images (same-origin paths or inline rasters): the CSP allows nothing else. */
const SAFE_IMAGE = /^(\/(?!\/)[^\s]*|data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+)$/;

function WellLogo({ well }: { well: DataWell }) {
  const [failed, setFailed] = useState(false);
  if (well.image && SAFE_IMAGE.test(well.image) && !failed) {
    return <img className="well-logo" src={well.image} alt="" loading="lazy" referrerPolicy="no-referrer" onError={() => setFailed(true)} />;
  }
  return (
    <span className="well-logo well-logo-letter" aria-hidden="true">
      {Array.from(well.name.trim())[0]?.toUpperCase() ?? '?'}
    </span>
  );
}

/** One breach source. Every string is rendered as text: names and descriptions are hostile. */
export function DataWellItem({ well }: { well: DataWell }) {
  return (
    <li className="well" data-testid="data-well">
      <WellLogo well={well} />
      <div className="well-main">
        <div className="well-heading">
          <h3 className="well-name" data-testid="data-well-name">
            {well.name}
          </h3>
          {well.is_sensitive && (
            <span className="badge badge-danger" title="This breach holds sensitive data">
              Sensitive
            </span>
          )}
        </div>
        {well.description && <p className="well-description">{well.description}</p>}
        {dataTypes(well.data).length > 0 && (
          <ul className="well-types" aria-label="Exposed data">
            {dataTypes(well.data).map((type) => (
              <li key={type} className="well-type">
                {fieldLabel(type)}
              </li>
            ))}
          </ul>
        )}
      </div>
      <dl className="well-facts">
        <div>
          <dt>Records</dt>
          <dd data-testid="data-well-records">{formatRecords(well.records)}</dd>
        </div>
        <div>
          <dt>Breach date</dt>
          <dd data-testid="data-well-date">
            {well.date ? <time dateTime={well.date}>{formatWellDate(well.date)}</time> : formatWellDate(null)}
          </dd>
        </div>
      </dl>
    </li>
  );
}
