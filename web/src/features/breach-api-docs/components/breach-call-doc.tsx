import { CodeBlock, CodeTabs } from '@/features/api-docs';
import { HelpSection } from '@/features/docs';
import { ReferenceTable } from '@/components/reference-table';
import type { BreachCall } from '../lib/breach-calls';
import { BREACH_LANGUAGES, rangeSample, v3Sample, type BreachSampleContext } from '../lib/breach-samples';

/** One call: method and route, what it does, its parameters, samples in three languages, the answer. */
export function BreachCallDoc({ call, context }: { call: BreachCall; context: BreachSampleContext }) {
  const [method, route] = call.route.split(' ') as [string, string];
  return (
    <HelpSection id={call.id} title={call.title} level={3}>
      <p className="docs-endpoint breach-endpoint">
        <span className="docs-method docs-method-get">{method}</span>
        <code>{route}</code>
        {call.kind === 'v3' && call.keyed && <span className="breach-keyed">hibp-api-key</span>}
      </p>
      <p>{call.description}</p>
      {call.params && call.params.length > 0 && (
        <ReferenceTable label={`${call.title}: parameters`} className="docs-fields" head={['Parameter', 'In', 'Default', 'Description']} rows={call.params} />
      )}
      {call.statuses && <p>{call.statuses}</p>}
      <CodeTabs
        name={call.id}
        languages={BREACH_LANGUAGES}
        code={(language) => (call.kind === 'range' ? rangeSample(language, context, call) : v3Sample(language, context, call))}
      />
      {call.responseStatus ? (
        <p className="docs-label">Response: {call.responseStatus}, empty body</p>
      ) : (
        <>
          <p className="docs-label">Response</p>
          <CodeBlock code={call.kind === 'range' ? call.response : JSON.stringify(call.response, null, 2)} />
        </>
      )}
    </HelpSection>
  );
}
