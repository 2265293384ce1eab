import { Fragment } from 'react';

/**
 * A host name that wraps only after its dots and hyphens, so a narrow screen never cuts a
 * label in two ("exam|ple.com"); a single label longer than the line still wraps (CSS
 * overflow-wrap), as the last resort. Breach and DNS data is hostile: the name is text.
 */
export function HostName({ name }: { name: string }) {
  const parts = name.split(/(?<=[.-])/);
  return (
    <>
      {parts.map((part, i) => (
        <Fragment key={i}>
          {part}
          {i < parts.length - 1 && <wbr />}
        </Fragment>
      ))}
    </>
  );
}
