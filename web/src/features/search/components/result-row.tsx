import { useState } from 'react';
import { ChevronDownIcon, ShieldIcon, StarIcon, TrashIcon } from '@/components/icons';
import type { SearchRecord } from '../api/search-api';
import {
  displayedFields,
  fieldLabel,
  headline,
  isMaskedEmail,
  parseHashedPassword,
  rawRecordText,
  removableEmails,
} from '../lib/record-fields';

/** One value, as text. Hashed passwords show their salt apart; "hidden" emails are masked. */
function Value({ field, value }: { field: string; value: string }) {
  if (field === 'email' && isMaskedEmail(value)) {
    return <span className="value-masked">Hidden</span>;
  }
  if (field === 'hashed_password') {
    const { hash, salt, extra } = parseHashedPassword(value);
    return (
      <span className="value-hash">
        <span className="value-text">{hash}</span>
        {salt && <span className="value-meta">salt: {salt}</span>}
        {extra && <span className="value-meta">{extra}</span>}
      </span>
    );
  }
  return <span className="value-text">{value}</span>;
}

/** Past this many characters an expanded value is cut, with a button for the rest. */
export const LONG_VALUE_CHARS = 400;

/**
 * A value in the expanded record. A very long one (a 3,000-character "address" from a broken
 * dump) is cut at LONG_VALUE_CHARS with a button that shows all of it, so one value cannot
 * push the rest of the record off a phone's screen. Copy and export always take the whole value.
 */
function DetailValue({ field, value }: { field: string; value: string }) {
  const [whole, setWhole] = useState(false);
  const chars = Array.from(value);
  if (chars.length <= LONG_VALUE_CHARS || field === 'hashed_password' || (field === 'email' && isMaskedEmail(value))) {
    return <Value field={field} value={value} />;
  }
  return (
    <span className="value-long">
      <span className="value-text">{whole ? value : `${chars.slice(0, LONG_VALUE_CHARS).join('')}…`}</span>
      <button type="button" className="link link-button value-long-toggle" aria-expanded={whole} onClick={() => setWhole((on) => !on)}>
        {whole ? 'Show less' : `Show all ${chars.length.toLocaleString('en-US')} characters`}
      </button>
    </span>
  );
}

interface ResultRowProps {
  record: SearchRecord;
  selected: boolean;
  favourite: boolean;
  removed: boolean;
  /** Remove Entry is offered only to subscribers. */
  subscribed: boolean;
  onSelect: (selected: boolean) => void;
  onFavourite: () => void;
  onRemove: () => void;
}

/** A search record: collapsed it shows its headline and a preview, expanded every field. */
export function ResultRow({ record, selected, favourite, removed, subscribed, onSelect, onFavourite, onRemove }: ResultRowProps) {
  const [expanded, setExpanded] = useState(false);
  const fields = displayedFields(record);
  const head = headline(record);
  const preview = fields.filter(({ field }) => field !== head?.field).slice(0, 3);
  const canRemove = subscribed && !removed && removableEmails(record).length > 0;
  const hiddenCount = fields.reduce((sum, { values }) => sum + values.length, 0);

  return (
    <li className={`result${expanded ? ' expanded' : ''}${selected ? ' selected' : ''}`} data-testid="search-result" data-record-id={record.id}>
      <div className="result-head">
        <label className="result-check">
          <input
            type="checkbox"
            className="checkbox-input"
            checked={selected}
            aria-label={`Select ${head ? head.value : 'record'}`}
            onChange={(event) => onSelect(event.currentTarget.checked)}
          />
        </label>
        <button
          type="button"
          className="result-summary"
          aria-expanded={expanded}
          onClick={() => setExpanded((value) => !value)}
          data-testid="result-toggle"
        >
          <span className="result-headline">
            {head ? (
              <>
                <span className="result-kind">{fieldLabel(head.field)}</span>
                <span className="result-value" data-testid="result-headline">
                  <Value field={head.field} value={head.value} />
                </span>
              </>
            ) : (
              <span className="result-value muted">No displayable fields</span>
            )}
          </span>
          {!expanded && preview.length > 0 && (
            <span className="result-preview">
              {preview.map(({ field, values }) => (
                <span key={field} className="result-chip">
                  <span className="result-chip-label">{fieldLabel(field)}</span>
                  <Value field={field} value={values[0]!} />
                  {values.length > 1 && <span className="result-chip-more">+{values.length - 1}</span>}
                </span>
              ))}
            </span>
          )}
        </button>
        {record.database_name && (
          <span className="result-source" title="Data well" data-testid="result-source">
            {record.database_name}
          </span>
        )}
        <div className="result-actions">
          <button
            type="button"
            className={`icon-button result-favourite${favourite ? ' on' : ''}`}
            aria-pressed={favourite}
            aria-label={favourite ? 'Remove from favourites' : 'Add to favourites'}
            title={favourite ? 'Remove from favourites' : 'Add to favourites'}
            onClick={onFavourite}
          >
            <StarIcon />
          </button>
          {canRemove && (
            <button type="button" className="button button-ghost button-small result-remove" onClick={onRemove}>
              <TrashIcon width={15} height={15} />
              Remove Entry
            </button>
          )}
          <button
            type="button"
            className="icon-button result-expand"
            aria-label={expanded ? 'Collapse' : 'Expand'}
            aria-expanded={expanded}
            onClick={() => setExpanded((value) => !value)}
          >
            <ChevronDownIcon />
          </button>
        </div>
      </div>

      {removed && (
        <p className="result-removed" data-testid="result-removed">
          Removed
        </p>
      )}

      {expanded && (
        <div className="result-body" data-testid="result-details">
          <dl className="result-fields">
            {fields.map(({ field, values }) => (
              <div key={field} className="result-field">
                <dt>{fieldLabel(field)}</dt>
                <dd>
                  {values.map((value, i) => (
                    <span key={i} className="result-field-value">
                      <DetailValue field={field} value={value} />
                    </span>
                  ))}
                </dd>
              </div>
            ))}
            {record.database_name && (
              <div className="result-field">
                <dt>Database</dt>
                <dd>
                  <span className="result-field-value">
                    <span className="value-text">{record.database_name}</span>
                  </span>
                </dd>
              </div>
            )}
          </dl>
          {hiddenCount === 0 && <p className="muted">This record has no displayable fields.</p>}
          {typeof record.raw_record === 'string' && record.raw_record !== '' && (
            <section className="le-only" data-testid="raw-record">
              <header className="le-only-head">
                <span className="badge badge-le">
                  <ShieldIcon width={13} height={13} />
                  LE ONLY
                </span>
                <span className="le-only-note">Exclusively available to law enforcement agencies</span>
              </header>
              <pre className="le-only-raw" tabIndex={0} aria-label="Raw record">{rawRecordText(record.raw_record)}</pre>
            </section>
          )}
        </div>
      )}
    </li>
  );
}
