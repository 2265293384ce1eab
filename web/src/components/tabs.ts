import type { KeyboardEvent } from 'react';

/**
 * The keyboard of an ARIA tab list (WAI-ARIA Authoring Practices, tabs with automatic
 * activation): put `onKeyDown={onTabListKeyDown}` on the `role="tablist"` element and
 * `{...tabProps(selected)}` on each `role="tab"` button. Only the selected tab is in the
 * Tab order; Left/Right (Up/Down) move to the previous/next tab, Home/End to the first/last,
 * and the tab reached is activated (its click handler runs) and focused.
 */
export function onTabListKeyDown(event: KeyboardEvent<HTMLElement>): void {
  const tabs = [...event.currentTarget.querySelectorAll<HTMLElement>('[role="tab"]:not([disabled])')];
  const current = tabs.indexOf(document.activeElement as HTMLElement);
  if (current < 0 || tabs.length === 0) return;
  let next: number;
  switch (event.key) {
    case 'ArrowRight':
    case 'ArrowDown':
      next = (current + 1) % tabs.length;
      break;
    case 'ArrowLeft':
    case 'ArrowUp':
      next = (current - 1 + tabs.length) % tabs.length;
      break;
    case 'Home':
      next = 0;
      break;
    case 'End':
      next = tabs.length - 1;
      break;
    default:
      return;
  }
  event.preventDefault();
  tabs[next]!.focus();
  tabs[next]!.click();
}

/** The ARIA state of one tab: selected, and in the Tab order only when selected. */
export function tabProps(selected: boolean): { 'aria-selected': boolean; tabIndex: number } {
  return { 'aria-selected': selected, tabIndex: selected ? 0 : -1 };
}
