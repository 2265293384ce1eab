import { useLayoutEffect, useRef, useState, type ReactNode } from 'react';

interface ScrollRegionProps {
  /** The region's name (or `labelledBy`, the id of a visible heading). */
  label?: string;
  labelledBy?: string;
  className?: string;
  children: ReactNode;
}

interface Overflow {
  left: boolean;
  right: boolean;
}

/**
 * A box that scrolls sideways when what it holds (a table) is wider than the screen, so
 * the page never does. While it scrolls it is a keyboard stop with a name (a region: the
 * arrow keys scroll it), and a shadow lies over each edge that has more behind it, the cue
 * a phone gives no scrollbar for (`.scroll-frame` in app.css). When everything fits it is a
 * plain box: no extra Tab stop, no landmark.
 */
export function ScrollRegion({ label, labelledBy, className, children }: ScrollRegionProps) {
  const box = useRef<HTMLDivElement>(null);
  const [more, setMore] = useState<Overflow>({ left: false, right: false });

  // Measured before the first paint, so a wide table never shows without its cue.
  useLayoutEffect(() => {
    const element = box.current;
    if (!element) return;
    const measure = () => {
      const left = element.scrollLeft > 1;
      const right = element.scrollLeft + element.clientWidth < element.scrollWidth - 1;
      setMore((current) => (current.left === left && current.right === right ? current : { left, right }));
    };
    measure();
    element.addEventListener('scroll', measure, { passive: true });
    // The box's width follows the screen's, the content's its rows: either changes the overflow.
    const resized = new ResizeObserver(measure);
    resized.observe(element);
    for (const child of element.children) resized.observe(child);
    return () => {
      element.removeEventListener('scroll', measure);
      resized.disconnect();
    };
  }, []);

  const scrolls = more.left || more.right;
  const region = scrolls ? { role: 'region', tabIndex: 0, 'aria-label': label, 'aria-labelledby': labelledBy } : {};
  return (
    <div className="scroll-frame" data-more-left={more.left || undefined} data-more-right={more.right || undefined}>
      <div ref={box} className={className ? `scroll-region ${className}` : 'scroll-region'} {...region}>
        {children}
      </div>
    </div>
  );
}
