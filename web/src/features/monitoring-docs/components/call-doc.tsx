import { CodeBlock, CodeTabs } from '@/features/api-docs';
import { callSample, type SampleContext } from '@/lib/api-samples';
import { HelpSection } from '@/features/docs';
import type { DocCall, FieldRow } from '../lib/v2-calls';
import { ReferenceTable } from '@/components/reference-table';

export function FieldsTable({ rows }: { rows: FieldRow[] }) {
  return (
    <ReferenceTable label="Fields" className="docs-fields" head={['Field', 'Type', 'Required', 'Description']} rows={rows} />
  );
}

/** One call: method and path, what it does, its fields, samples in four languages, the answer. */
export function CallDoc({ call, context, level }: { call: DocCall; context: SampleContext; level: 3 | 4 }) {
  return (
    <HelpSection id={call.id} title={call.title} level={level}>
      <p className="docs-endpoint">
        <span className={`docs-method docs-method-${call.method.toLowerCase()}`}>{call.method}</span>
        <code>{call.path}</code>
      </p>
      <p>{call.description}</p>
      {call.fields && call.fields.length > 0 && <FieldsTable rows={call.fields} />}
      {call.body && (
        <>
          <p className="docs-label">Request body</p>
          <CodeBlock code={JSON.stringify(call.body, null, 2)} />
        </>
      )}
      <CodeTabs name={call.id} code={(language) => callSample(language, context, call)} />
      <p className="docs-label">Response</p>
      <CodeBlock code={JSON.stringify(call.response, null, 2)} />
    </HelpSection>
  );
}
