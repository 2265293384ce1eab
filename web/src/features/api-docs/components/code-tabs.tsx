import { useId, useState } from 'react';
import { CopyIcon } from '@/components/icons';
import { toast } from '@/lib/toast-store';
import { LANGUAGES, type Language } from '@/lib/api-samples';
import { onTabListKeyDown, tabProps } from '@/components/tabs';

/**
 * One sample per language behind tabs; the code is plain text with a copy button.
 * `languages`: the tabs, when a page has samples in fewer languages (the first is shown first).
 */
export function CodeTabs<L extends Language = Language>({
  name,
  code,
  languages = LANGUAGES as unknown as readonly { id: L; label: string }[],
}: {
  name: string;
  code: (language: L) => string;
  languages?: readonly { id: L; label: string }[];
}) {
  const [language, setLanguage] = useState<L>(languages[0]!.id);
  const id = useId();
  const text = code(language);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      toast.success('Copied Code');
    } catch {
      toast.error('Could not copy to the clipboard');
    }
  };

  return (
    <div className="code-tabs" data-testid={`samples-${name}`}>
      <div className="code-tabs-bar">
        <div role="tablist" aria-label="Language" className="code-tabs-list" onKeyDown={onTabListKeyDown}>
          {languages.map((option) => (
            <button
              key={option.id}
              type="button"
              role="tab"
              id={`${id}-${option.id}`}
              {...tabProps(option.id === language)}
              className={`code-tab${option.id === language ? ' active' : ''}`}
              onClick={() => setLanguage(option.id)}
            >
              {option.label}
            </button>
          ))}
        </div>
        <button type="button" className="code-copy" onClick={() => void copy()} aria-label="Copy code">
          <CopyIcon width={14} height={14} />
          Copy
        </button>
      </div>
      <pre className="code-block" role="tabpanel" aria-labelledby={`${id}-${language}`} tabIndex={0}>
        <code data-testid={`sample-${name}-${language}`}>{text}</code>
      </pre>
    </div>
  );
}

export function CodeBlock({ code }: { code: string }) {
  return (
    <pre className="code-block code-block-plain" tabIndex={0} aria-label="Code">
      <code>{code}</code>
    </pre>
  );
}
