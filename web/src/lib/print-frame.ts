/**
 * Printing from a hidden same-origin frame whose document is built from DOM nodes by the
 * caller: values go in through textContent, never as markup (breach data and server
 * strings are hostile). Only that document is printed, not the dashboard around it.
 */
export function printInFrame(frameId: string, build: (doc: Document) => void): void {
  document.getElementById(frameId)?.remove();
  const frame = document.createElement('iframe');
  frame.id = frameId;
  frame.title = 'Print preview';
  frame.setAttribute('aria-hidden', 'true');
  frame.tabIndex = -1;
  Object.assign(frame.style, { position: 'fixed', width: '0', height: '0', border: '0', right: '0', bottom: '0' });
  document.body.append(frame);
  const win = frame.contentWindow;
  const doc = frame.contentDocument;
  if (!win || !doc) return;
  build(doc);
  win.focus();
  win.print();
}

/** An element of `doc` holding `text` as text. */
export function textElement<K extends keyof HTMLElementTagNameMap>(doc: Document, tag: K, text: string, className?: string): HTMLElementTagNameMap[K] {
  const element = doc.createElement(tag);
  element.textContent = text;
  if (className) element.className = className;
  return element;
}
