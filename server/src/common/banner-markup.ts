/**
 * The marketing banner's markup, shared by the server (banner:set
 * refuses what it would drop; GET /marketing/banner answers only allow-listed markup) and
 * the dashboard (which renders the parsed tree as elements: the raw string never reaches
 * innerHTML).
 *
 * A small parser, not a regex filter: it reads tags, attributes, comments and entities,
 * builds a tree of allowed elements only, and everything else is dropped (script, style,
 * svg and the like with their content) or unwrapped (other tags keep their text). The only
 * attribute kept is href on a, and only for http: and https: URLs. Text stays text.
 */

export const BANNER_TAGS = ['b', 'strong', 'i', 'em', 'u', 'br', 'p', 'span', 'a'] as const;
export type BannerTag = (typeof BANNER_TAGS)[number];

/** Text, or an allowed element (href only on a, already checked). */
export type BannerNode = string | { tag: BannerTag; href?: string; children: BannerNode[] };

/** Longer markup is refused by banner:set and cut by the parser (a banner is a line or two). */
export const BANNER_MAX_LENGTH = 2000;
/** Deeper nesting is flattened (no recursion limit is ever near). */
const MAX_DEPTH = 16;

const ALLOWED = new Set<string>(BANNER_TAGS);
const VOID = new Set(['br', 'img', 'input', 'hr', 'wbr', 'meta', 'link', 'area', 'base', 'col', 'embed', 'source', 'track', 'param', 'keygen']);
/** Dropped with everything inside them: code, styles, foreign content, form and frame contents. */
const DROP_WITH_CONTENT = new Set([
  'script', 'style', 'template', 'svg', 'math', 'iframe', 'object', 'noscript', 'noembed', 'noframes',
  'textarea', 'title', 'select', 'xmp', 'plaintext', 'head', 'frameset', 'canvas', 'video', 'audio',
]);
/** Their content is raw text up to their own end tag (a "<b>" inside a script is not a tag). */
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript', 'plaintext']);

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', copy: '©', reg: '®', trade: '™',
  hellip: '…', mdash: '—', ndash: '–', lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', euro: '€', pound: '£', middot: '·', bull: '•',
};

/** Decodes character references; unknown ones stay as written. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]{2,8});?/g, (whole, ref: string) => {
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      // NUL, surrogates and out-of-range code points become the replacement character, as in browsers.
      if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return '\ufffd';
      return String.fromCodePoint(code);
    }
    return NAMED_ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

/** Without C0 controls and spaces at either end (what URL parsers strip). */
function trimControls(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) <= 0x20) start++;
  while (end > start && text.charCodeAt(end - 1) <= 0x20) end--;
  return text.slice(start, end);
}

/** An absolute http(s) URL, normalised, or null (javascript:, data:, relative, malformed…). */
export function safeHref(raw: string): string | null {
  // Browsers ignore ASCII tab and newline anywhere in a URL and trim control characters and spaces.
  const cleaned = trimControls(decodeEntities(raw).replace(/[\t\n\r]/g, ''));
  let url: URL;
  try {
    url = new URL(cleaned);
  } catch {
    return null;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
}

interface Tag {
  kind: 'start' | 'end';
  name: string;
  attributes: [string, string][];
  selfClosing: boolean;
  /** Index just past the closing '>'. */
  end: number;
}

const NAME = /[a-zA-Z][^\s/>]*/y;

/** Reads the tag starting at `<` at `at`, or null when it is not one (or never closes). */
function readTag(source: string, at: number): Tag | null {
  let i = at + 1;
  const kind = source[i] === '/' ? 'end' : 'start';
  if (kind === 'end') i++;
  NAME.lastIndex = i;
  const match = NAME.exec(source);
  if (!match) return null;
  const name = match[0].toLowerCase();
  i += match[0].length;
  const attributes: [string, string][] = [];
  let selfClosing = false;
  while (i < source.length) {
    const c = source[i]!;
    if (c === '>') return { kind, name, attributes, selfClosing, end: i + 1 };
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '/') {
      selfClosing = source[i + 1] === '>';
      i++;
      continue;
    }
    // An attribute name runs to whitespace, '/', '>' or '='.
    let nameEnd = i + 1;
    while (nameEnd < source.length && !/[\s/>=]/.test(source[nameEnd]!)) nameEnd++;
    const attribute = source.slice(i, nameEnd).toLowerCase();
    i = nameEnd;
    while (i < source.length && /\s/.test(source[i]!)) i++;
    let value = '';
    if (source[i] === '=') {
      i++;
      while (i < source.length && /\s/.test(source[i]!)) i++;
      const quote = source[i];
      if (quote === '"' || quote === "'") {
        const close = source.indexOf(quote, i + 1);
        if (close === -1) return null;
        value = source.slice(i + 1, close);
        i = close + 1;
      } else {
        let valueEnd = i;
        while (valueEnd < source.length && !/[\s>]/.test(source[valueEnd]!)) valueEnd++;
        value = source.slice(i, valueEnd);
        i = valueEnd;
      }
    }
    attributes.push([attribute, value]);
  }
  return null;
}

export interface ParsedBanner {
  nodes: BannerNode[];
  /** What the allow-list left out, for the operator ("<script> dropped", …); empty when nothing. */
  dropped: string[];
}

/** Parses banner markup into allowed nodes only. Never throws; hostile input yields text or nothing. */
export function parseBannerMarkup(markup: string): ParsedBanner {
  const source = markup.length > BANNER_MAX_LENGTH ? markup.slice(0, BANNER_MAX_LENGTH) : markup;
  const dropped = new Set<string>();
  const root: BannerNode[] = [];
  // Open allowed elements; the innermost last.
  const stack: { tag: BannerTag; node: Exclude<BannerNode, string> }[] = [];
  const children = () => (stack.length ? stack[stack.length - 1]!.node.children : root);
  const addText = (text: string) => {
    if (!text) return;
    const list = children();
    const decoded = decodeEntities(text);
    if (typeof list[list.length - 1] === 'string') list[list.length - 1] += decoded;
    else list.push(decoded);
  };
  const closeThrough = (tag: string) => {
    const index = stack.map((open) => open.tag as string).lastIndexOf(tag);
    if (index !== -1) stack.length = index;
  };

  let i = 0;
  while (i < source.length) {
    const lt = source.indexOf('<', i);
    if (lt === -1) {
      addText(source.slice(i));
      break;
    }
    addText(source.slice(i, lt));
    i = lt;
    // Comments, doctypes, CDATA and processing instructions: dropped.
    if (source.startsWith('<!--', i)) {
      const close = source.indexOf('-->', i + 4);
      i = close === -1 ? source.length : close + 3;
      dropped.add('comment');
      continue;
    }
    if (source[i + 1] === '!' || source[i + 1] === '?') {
      const close = source.indexOf('>', i);
      i = close === -1 ? source.length : close + 1;
      dropped.add('<!…> or <?…>');
      continue;
    }
    const tag = readTag(source, i);
    if (!tag) {
      // Not a tag ("a < b"), or one that never closes: its text is kept, as text.
      addText('<');
      i++;
      continue;
    }
    i = tag.end;
    if (tag.kind === 'end') {
      if (ALLOWED.has(tag.name) && tag.name !== 'br') closeThrough(tag.name);
      continue;
    }
    if (DROP_WITH_CONTENT.has(tag.name)) {
      dropped.add(`<${tag.name}>`);
      if (tag.selfClosing && !RAW_TEXT.has(tag.name)) continue;
      i = skipElement(source, i, tag.name);
      continue;
    }
    if (!ALLOWED.has(tag.name)) {
      // Unknown or disallowed tags are unwrapped: their text stays, the tag goes.
      dropped.add(`<${tag.name}>`);
      for (const [attribute] of tag.attributes) dropped.add(`${attribute} attribute`);
      continue;
    }
    const name = tag.name as BannerTag;
    const node: Exclude<BannerNode, string> = { tag: name, children: [] };
    for (const [attribute, value] of tag.attributes) {
      if (name === 'a' && attribute === 'href') {
        const href = safeHref(value);
        if (href) node.href = href;
        else dropped.add(`link ${JSON.stringify(value.slice(0, 60))} (only http: and https:)`);
      } else if (name === 'a' && (attribute === 'rel' || attribute === 'target')) {
        // Links always open apart (rel="noopener noreferrer" target="_blank"): whatever was written is moot.
      } else {
        dropped.add(`${attribute} attribute`);
      }
    }
    if (name === 'br') {
      children().push(node);
      continue;
    }
    // As browsers do: a link or paragraph inside another closes the outer one first.
    if (name === 'a' || name === 'p') closeThrough(name);
    if (stack.length >= MAX_DEPTH) {
      dropped.add('nesting deeper than 16');
      continue;
    }
    children().push(node);
    if (!tag.selfClosing) stack.push({ tag: name, node });
  }
  if (markup.length > BANNER_MAX_LENGTH) dropped.add(`text past ${BANNER_MAX_LENGTH} characters`);
  return { nodes: root, dropped: [...dropped] };
}

/** Index past the end tag of the `name` element whose content starts at `from` (nesting counted), or the end. */
function skipElement(source: string, from: number, name: string): number {
  const lower = source.toLowerCase();
  if (RAW_TEXT.has(name)) {
    const close = new RegExp(`</${name}[\\s/>]`, 'g');
    close.lastIndex = from;
    const found = close.exec(lower);
    if (!found) return source.length;
    const end = source.indexOf('>', found.index);
    return end === -1 ? source.length : end + 1;
  }
  let depth = 1;
  let i = from;
  while (i < source.length) {
    const lt = source.indexOf('<', i);
    if (lt === -1) return source.length;
    const tag = readTag(source, lt);
    if (!tag) {
      i = lt + 1;
      continue;
    }
    i = tag.end;
    if (tag.name !== name) continue;
    if (tag.kind === 'start' && !tag.selfClosing && !VOID.has(name)) depth++;
    if (tag.kind === 'end' && --depth === 0) return i;
  }
  return source.length;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** The nodes as markup again: what GET /marketing/banner answers (allow-listed, escaped). */
export function serialiseBannerNodes(nodes: BannerNode[]): string {
  return nodes
    .map((node) => {
      if (typeof node === 'string') return escapeHtml(node);
      if (node.tag === 'br') return '<br>';
      const attributes = node.tag === 'a' && node.href ? ` href="${escapeHtml(node.href)}" rel="noopener noreferrer" target="_blank"` : '';
      return `<${node.tag}${attributes}>${serialiseBannerNodes(node.children)}</${node.tag}>`;
    })
    .join('');
}

/** Markup with everything outside the allow-list removed. */
export function sanitiseBannerMarkup(markup: string): string {
  return serialiseBannerNodes(parseBannerMarkup(markup).nodes);
}
