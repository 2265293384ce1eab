import type { FormEvent } from 'react';
import { GlobeIcon } from '@/components/icons';
import {
  HISTORY_YEARS,
  MAX_DOMAIN_LENGTH,
  MAX_REVERSE_TERMS,
  MAX_TERM_LENGTH,
  WHOIS_TAB_LABELS,
  WHOIS_TOOLS,
  whoisCost,
  type ReverseWhoisMode,
  type WhoisTool,
} from '@common/whois-rules';
import { credits } from '../lib/format';
import { termCount, type ReverseWhoisInput } from '../lib/whois-query';
import { onTabListKeyDown, tabProps } from '@/components/tabs';
import { useScrollCue } from '@/hooks/use-scroll-cue';

/** What each tab looks up: the input's label, an example, and one line of help. */
const TOOL_INPUT: Record<Exclude<WhoisTool, 'reverse_whois'>, { label: string; placeholder: string; help: string }> = {
  whois: { label: 'Domain', placeholder: 'example.com', help: 'Registrar, dates, contacts and name servers of a domain.' },
  whois_history: {
    label: 'Domain',
    placeholder: 'example.com',
    help: `Every WHOIS record kept for a domain over the last ${HISTORY_YEARS} years, newest first.`,
  },
  reverse_ip: { label: 'IP address', placeholder: '203.0.113.7', help: 'Domains seen resolving to an IPv4 or IPv6 address.' },
  reverse_mx: { label: 'Mail server', placeholder: 'mail.example.com', help: 'Domains whose mail is handled by a mail server.' },
  reverse_ns: { label: 'Name server', placeholder: 'ns1.example.com', help: 'Domains served by a name server.' },
  subdomain_scan: { label: 'Domain', placeholder: 'example.com', help: 'Host names seen under a domain.' },
};

const REVERSE_HELP = `Domains whose WHOIS records mention the terms: names, organisations, emails, states, countries, name servers. Up to ${MAX_REVERSE_TERMS} terms a side, comma-separated, any case.`;

interface WhoisFormProps {
  tool: WhoisTool;
  onTool: (tool: WhoisTool) => void;
  /** Tabs that have results (each switches to its results view). */
  withResults: ReadonlySet<WhoisTool>;
  query: string;
  onQuery: (text: string) => void;
  reverse: ReverseWhoisInput;
  onReverse: (input: ReverseWhoisInput) => void;
  running: boolean;
  onSubmit: () => void;
}

/** The seven tabs, the tab's input (or the reverse WHOIS form) and what a lookup costs. */
export function WhoisForm({ tool, onTool, withResults, query, onQuery, reverse, onReverse, running, onSubmit }: WhoisFormProps) {
  const scrollCue = useScrollCue<HTMLDivElement>();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit();
  };
  const cost = whoisCost(tool);

  return (
    <section className="card whois-panel">
      <div ref={scrollCue} className="whois-tabs scroll-cue" role="tablist" aria-label="WHOIS tool" onKeyDown={onTabListKeyDown}>
        {WHOIS_TOOLS.map((value) => (
          <button
            key={value}
            type="button"
            role="tab"
            {...tabProps(value === tool)}
            className={`whois-tab${value === tool ? ' active' : ''}`}
            data-tool={value}
            onClick={() => onTool(value)}
          >
            {WHOIS_TAB_LABELS[value]}
            {withResults.has(value) && <span className="whois-tab-dot" aria-hidden="true" title="Has results" />}
          </button>
        ))}
      </div>

      <form className="whois-form" role="search" aria-label={WHOIS_TAB_LABELS[tool]} onSubmit={submit} noValidate>
        {tool === 'reverse_whois' ? (
          <ReverseWhoisFields input={reverse} onInput={onReverse} />
        ) : (
          <label className="whois-field">
            <span className="field-label">{TOOL_INPUT[tool].label}</span>
            <span className="whois-input-wrap">
              <GlobeIcon className="whois-input-icon" />
              <input
                className="input"
                type="text"
                name="whois-query"
                placeholder={TOOL_INPUT[tool].placeholder}
                autoComplete="off"
                autoCapitalize="off"
                spellCheck={false}
                maxLength={MAX_DOMAIN_LENGTH + 50}
                value={query}
                onChange={(event) => onQuery(event.currentTarget.value)}
              />
            </span>
          </label>
        )}
        <button type="submit" className="button button-primary whois-submit" disabled={running} aria-busy={running}>
          {running ? <span className="spinner whois-spinner" /> : <GlobeIcon width={16} height={16} />}
          Look Up
        </button>
      </form>

      <p className="whois-help muted">
        {tool === 'reverse_whois' ? REVERSE_HELP : TOOL_INPUT[tool].help}{' '}
        <span className="whois-cost" data-testid="whois-cost">
          Each lookup costs {credits(cost)}.
        </span>{' '}
        A lookup that finds nothing costs nothing.
      </p>
    </section>
  );
}

function ReverseWhoisFields({ input, onInput }: { input: ReverseWhoisInput; onInput: (input: ReverseWhoisInput) => void }) {
  const modes: { value: ReverseWhoisMode; label: string; title: string }[] = [
    { value: 'current', label: 'Current', title: 'Match the current WHOIS record of each domain' },
    { value: 'historic', label: 'Historic', title: 'Match every WHOIS record kept, past ones too' },
  ];
  const side = (name: 'include' | 'exclude', label: string, placeholder: string) => {
    const count = termCount(input[name]);
    return (
      <label className="whois-field">
        <span className="field-label whois-terms-label">
          {label}
          <span className={`whois-term-count${count > MAX_REVERSE_TERMS ? ' over' : ''}`} data-testid={`${name}-count`}>
            {count} / {MAX_REVERSE_TERMS}
          </span>
        </span>
        <input
          className="input"
          type="text"
          name={`${name}-terms`}
          placeholder={placeholder}
          autoComplete="off"
          spellCheck={false}
          maxLength={(MAX_TERM_LENGTH + 2) * MAX_REVERSE_TERMS * 2}
          value={input[name]}
          onChange={(event) => onInput({ ...input, [name]: event.currentTarget.value })}
        />
      </label>
    );
  };
  return (
    <div className="whois-reverse">
      <div className="whois-field">
        <span className="field-label" id="reverse-mode-label">
          Records
        </span>
        <div className="whois-segmented" role="radiogroup" aria-labelledby="reverse-mode-label">
          {modes.map((mode) => (
            <button
              key={mode.value}
              type="button"
              role="radio"
              aria-checked={input.mode === mode.value}
              title={mode.title}
              className={`whois-segment${input.mode === mode.value ? ' active' : ''}`}
              onClick={() => onInput({ ...input, mode: mode.value })}
            >
              {mode.label}
            </button>
          ))}
        </div>
      </div>
      {side('include', 'Include terms', 'jane doe, example corp')}
      {side('exclude', 'Exclude terms', 'privacy, proxy')}
    </div>
  );
}
