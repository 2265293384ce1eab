import type { FormEvent } from 'react';
import { SearchIcon } from '@/components/icons';
import { QUERY_MAX_LENGTH, SEARCH_TYPES, type SearchType } from '@common/search-rules';
import { onTabListKeyDown, tabProps } from '@/components/tabs';
import { useScrollCue } from '@/hooks/use-scroll-cue';

export interface SearchOptions {
  regex: boolean;
  wildcard: boolean;
  deduplicate: boolean;
}

interface SearchFormProps {
  type: SearchType;
  onType: (type: SearchType) => void;
  query: string;
  onQuery: (query: string) => void;
  options: SearchOptions;
  onOptions: (options: SearchOptions) => void;
  searching: boolean;
  onSubmit: () => void;
}

const PLACEHOLDERS: Record<SearchType, string> = {
  all: 'email:"name@example.com" or any term',
  email: 'name@example.com',
  username: 'username',
  password: 'password or hash',
  hashed_password: '5f4dcc3b5aa765d61d8327deb882cf99',
  ip_address: '203.0.113.7',
  name: '"Jane Doe"',
  address: '"221B Baker Street"',
  phone: '15555550123',
  vin: '1HGCM82633A004352',
  domain_scan: 'example.com',
};

function Switch({ label, hint, checked, onChange }: { label: string; hint: string; checked: boolean; onChange: (on: boolean) => void }) {
  return (
    <label className="search-switch" title={hint}>
      <input type="checkbox" role="switch" className="toggle-input" checked={checked} onChange={(event) => onChange(event.currentTarget.checked)} />
      <span className="toggle-track" aria-hidden="true">
        <span className="toggle-thumb" />
      </span>
      <span className="search-switch-label">{label}</span>
    </label>
  );
}

/** Tabs, the query input with Find, and the three toggles. */
export function SearchForm({ type, onType, query, onQuery, options, onOptions, searching, onSubmit }: SearchFormProps) {
  const scrollCue = useScrollCue<HTMLDivElement>();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit();
  };

  return (
    <section className="card search-panel">
      <div ref={scrollCue} className="search-tabs scroll-cue" role="tablist" aria-label="Search type" onKeyDown={onTabListKeyDown}>
        {SEARCH_TYPES.map((tab) => (
          <button
            key={tab.value}
            type="button"
            role="tab"
            {...tabProps(tab.value === type)}
            className={`search-tab${tab.value === type ? ' active' : ''}`}
            data-type={tab.value}
            onClick={() => onType(tab.value)}
          >
            {tab.label}
          </button>
        ))}
      </div>

      <form className="search-form" role="search" onSubmit={submit}>
        <label className="search-field">
          <SearchIcon className="search-field-icon" />
          <input
            className="input"
            type="search"
            name="query"
            aria-label="Search query"
            placeholder={PLACEHOLDERS[type]}
            autoComplete="off"
            spellCheck={false}
            maxLength={QUERY_MAX_LENGTH * 2 + 50}
            value={query}
            onChange={(event) => onQuery(event.currentTarget.value)}
          />
        </label>
        <button type="submit" className="button button-primary search-find" disabled={searching} aria-busy={searching}>
          {searching ? <span className="spinner spinner-small" /> : <SearchIcon width={16} height={16} />}
          Find
        </button>
      </form>

      <div className="search-switches">
        <Switch
          label="Remove duplicates"
          hint="Merge records that repeat the same values"
          checked={options.deduplicate}
          onChange={(deduplicate) => onOptions({ ...options, deduplicate })}
        />
        <Switch
          label="Regex"
          hint="Field values as regular expressions (turns wildcard off)"
          checked={options.regex}
          onChange={(regex) => onOptions({ ...options, regex, wildcard: regex ? false : options.wildcard })}
        />
        <Switch
          label="Wildcard"
          hint="? matches one character, * many (turns regex off)"
          checked={options.wildcard}
          onChange={(wildcard) => onOptions({ ...options, wildcard, regex: wildcard ? false : options.regex })}
        />
      </div>
    </section>
  );
}
