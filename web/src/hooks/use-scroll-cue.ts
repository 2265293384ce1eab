import { useCallback, useEffect, useRef } from 'react';

/**
 * A strip that scrolls sideways (tabs on a phone) fades out at the edge that has more, so a
 * cut-off tab reads as "scroll for more" instead of as the end of the list. Sets
 * data-more-start / data-more-end on the element; the `.scroll-cue` CSS draws the fades.
 * Returns a ref callback for the scrolling element.
 */
export function useScrollCue<T extends HTMLElement>(): (node: T | null) => void {
  const cleanup = useRef<(() => void) | null>(null);
  useEffect(() => () => cleanup.current?.(), []);
  return useCallback((node: T | null) => {
    cleanup.current?.();
    cleanup.current = null;
    if (!node) return;
    const update = () => {
      const max = node.scrollWidth - node.clientWidth;
      node.toggleAttribute('data-more-start', max > 1 && node.scrollLeft > 1);
      node.toggleAttribute('data-more-end', max > 1 && node.scrollLeft < max - 1);
    };
    update();
    node.addEventListener('scroll', update, { passive: true });
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(update);
    observer?.observe(node);
    cleanup.current = () => {
      node.removeEventListener('scroll', update);
      observer?.disconnect();
    };
  }, []);
}
