/** Page numbers: every page when there are 4 or fewer, otherwise a window with ellipses. */
export function pageWindow(current: number, pages: number): (number | 'gap')[] {
  if (pages <= 4) return Array.from({ length: pages }, (_, i) => i + 1);
  const shown = new Set([1, pages, current - 1, current, current + 1].filter((p) => p >= 1 && p <= pages));
  const sorted = [...shown].sort((a, b) => a - b);
  const items: (number | 'gap')[] = [];
  sorted.forEach((page, i) => {
    const previous = sorted[i - 1];
    if (previous !== undefined && page - previous > 1) items.push('gap');
    items.push(page);
  });
  return items;
}

interface PaginatorProps {
  page: number;
  pages: number;
  onPage: (page: number) => void;
  disabled?: boolean;
}

/** Previous, the page window, Next. Hidden when there is a single page. */
export function Paginator({ page, pages, onPage, disabled = false }: PaginatorProps) {
  if (pages <= 1) return null;
  return (
    <nav className="paginator" aria-label="Pagination">
      <button type="button" className="paginator-button" disabled={disabled || page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      {pageWindow(page, pages).map((item, i) =>
        item === 'gap' ? (
          <span key={`gap-${i}`} className="paginator-gap" aria-hidden="true">
            …
          </span>
        ) : (
          <button
            key={item}
            type="button"
            className={`paginator-button${item === page ? ' active' : ''}`}
            aria-label={`Page ${item}`}
            aria-current={item === page ? 'page' : undefined}
            disabled={disabled}
            onClick={() => item !== page && onPage(item)}
          >
            {item.toLocaleString('en-US')}
          </button>
        ),
      )}
      <button type="button" className="paginator-button" disabled={disabled || page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}
