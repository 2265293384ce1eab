/**
 * The marketing banner's markup, shared by the server (banner:set
 * refuses what it would drop; GET /marketing/banner answers only allow-listed markup) and
 * the dashboard (which renders the parsed tree as elements: the raw string never reaches
 * innerHTML).
 *
 * The allow-listing is sanitize-html's: a maintained sanitiser on a real HTML parser
 * (htmlparser2) that runs the same in Node and in the browser, without a DOM to emulate on
 * the server. It keeps the allowed tags, drops script, style, svg and the like with their
 * content, unwraps other tags (their text stays), and keeps only href on a, and only for
 * http: and https: URLs. Its output is well-formed and escaped; a small reader turns it into
 * the tree the dashboard renders and the server serialises again. Text stays text.
 */
import sanitizeHtml from 'sanitize-html';

export const BANNER_TAGS = ['b', 'strong', 'i', 'em', 'u', 'br', 'p', 'span', 'a'] as const;
export type BannerTag = (typeof BANNER_TAGS)[number];

/** Text, or an allowed element (href only on a, already checked). */
export type BannerNode = string | { tag: BannerTag; href?: string; children: BannerNode[] };
type BannerElement = Exclude<BannerNode, string>;

/** Longer markup is refused by banner:set and cut by the parser (a banner is a line or two). */
export const BANNER_MAX_LENGTH = 2000;
/** Deeper nesting is flattened (no recursion limit is ever near). */
const MAX_DEPTH = 16;

const ALLOWED = new Set<string>(BANNER_TAGS);
/** Dropped with everything inside them: code, styles, foreign content, form and frame contents. */
const DROP_WITH_CONTENT = [
  'script', 'style', 'template', 'svg', 'math', 'iframe', 'object', 'noscript', 'noembed', 'noframes',
  'textarea', 'title', 'select', 'xmp', 'plaintext', 'head', 'frameset', 'canvas', 'video', 'audio',
];

const ALLOW_LIST: sanitizeHtml.IOptions = {
  allowedTags: [...BANNER_TAGS],
  allowedAttributes: { a: ['href'] },
  allowedSchemes: ['http', 'https'],
  allowProtocolRelative: false,
  nonTextTags: DROP_WITH_CONTENT,
  nestingLimit: MAX_DEPTH,
  disallowedTagsMode: 'discard',
  parseStyleAttributes: false,
};

/** Without C0 controls and spaces at either end (what URL parsers strip). */
function trimControls(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) <= 0x20) start++;
  while (end > start && text.charCodeAt(end - 1) <= 0x20) end--;
  return text.slice(start, end);
}

/** An absolute http(s) URL, normalised, or null (javascript:, data:, relative, malformed…). `raw` is decoded text. */
export function safeHref(raw: string): string | null {
  // Browsers ignore ASCII tab and newline anywhere in a URL and trim control characters and spaces.
  const cleaned = trimControls(raw.replace(/[\t\n\r]/g, ''));
  let url: URL;
  try {
    url = new URL(cleaned);
  } catch {
    return null;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
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
  let depth = 0;
  const clean = sanitizeHtml(source, {
    ...ALLOW_LIST,
    // Every tag the parser reads passes here first, allowed or not: what it loses is named.
    onOpenTag: (name, attributes) => {
      if (depth++ >= MAX_DEPTH && ALLOWED.has(name)) dropped.add(`nesting deeper than ${MAX_DEPTH}`);
      noteDropped(name, attributes, dropped);
    },
    onCloseTag: () => void depth--,
  });
  for (const unseen of unparsedDrops(source)) dropped.add(unseen);
  if (markup.length > BANNER_MAX_LENGTH) dropped.add(`text past ${BANNER_MAX_LENGTH} characters`);
  return { nodes: readCleanMarkup(clean), dropped: [...dropped] };
}

/** Adds to `dropped` what the allow-list takes from the tag `name` with `attributes`. */
function noteDropped(name: string, attributes: Record<string, string>, dropped: Set<string>): void {
  if (!ALLOWED.has(name)) dropped.add(`<${name}>`);
  if (DROP_WITH_CONTENT.includes(name)) return;
  for (const [attribute, value] of Object.entries(attributes)) {
    if (name === 'a' && attribute === 'href') {
      if (!safeHref(value)) dropped.add(`link ${JSON.stringify(value.slice(0, 60))} (only http: and https:)`);
    } else if (!(name === 'a' && (attribute === 'rel' || attribute === 'target'))) {
      // Links always open apart (rel="noopener noreferrer" target="_blank"): whatever was written is moot.
      dropped.add(`${attribute} attribute`);
    }
  }
}

/** A private-use character: markup gives it no meaning, so it survives wherever text does. */
const PROBE = '\ue000';

/**
 * What the parser drops without showing it to a hook: comments, `<!…>` and `<?…>`, and a tag
 * or comment left open at the end (a missing quote, `-->` or `>`), which it drops as browsers do.
 */
function unparsedDrops(source: string): string[] {
  const found: string[] = [];
  if (source.includes('<!--')) found.push('comment');
  if (/<!(?!--)|<\?/.test(source)) found.push('<!…> or <?…>');
  // Text appended to markup that ends in the middle of a tag becomes part of that tag.
  if (!sanitizeHtml(source + PROBE, { allowedTags: [], allowedAttributes: {}, nonTextTags: [] }).endsWith(PROBE)) {
    found.push('a tag or comment left open at the end (a quote, --> or > missing)');
  }
  return found;
}

const CLEAN_TOKEN = /<(\/?)([a-z]+)(?: href="([^"]*)")?\s*\/?>|[^<]+/g;
const CLEAN_ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"' };
const decodeClean = (text: string) => text.replace(/&(?:amp|lt|gt|quot);/g, (entity) => CLEAN_ENTITIES[entity]!);

/**
 * The tree of sanitize-html's output, which holds only allowed tags (balanced, br self-closed),
 * escaped text, and http(s) or relative hrefs. As browsers do, a link or paragraph inside
 * another closes the outer one first; elements left empty are left out.
 */
function readCleanMarkup(clean: string): BannerNode[] {
  const root: BannerElement = { tag: 'span', children: [] };
  const stack: BannerElement[] = [root];
  const current = () => stack[stack.length - 1]!;
  for (const [token, slash, name, href] of clean.matchAll(CLEAN_TOKEN)) {
    if (name === undefined) addText(current(), decodeClean(token));
    else if (!ALLOWED.has(name)) continue;
    else if (slash) closeThrough(stack, name);
    else if (name === 'br') current().children.push({ tag: 'br', children: [] });
    else {
      if (name === 'a' || name === 'p') closeThrough(stack, name);
      const element: BannerElement = { tag: name as BannerTag, children: [] };
      const safe = name === 'a' && href !== undefined ? safeHref(decodeClean(href)) : null;
      if (safe) element.href = safe;
      current().children.push(element);
      stack.push(element);
    }
  }
  closeFrom(stack, 1);
  return root.children;
}

function addText(parent: BannerElement, text: string): void {
  const last = parent.children.length - 1;
  if (typeof parent.children[last] === 'string') parent.children[last] += text;
  else parent.children.push(text);
}

/** Closes the innermost open `tag` and everything inside it; nothing when none is open (the root is not). */
function closeThrough(stack: BannerElement[], tag: string): void {
  let index = stack.length - 1;
  while (index > 0 && stack[index]!.tag !== tag) index--;
  if (index > 0) closeFrom(stack, index);
}

/** Closes the open elements from `index` on, leaving out those left empty. */
function closeFrom(stack: BannerElement[], index: number): void {
  while (stack.length > index) {
    const element = stack.pop()!;
    const siblings = stack[stack.length - 1]!.children;
    if (element.children.length === 0) siblings.splice(siblings.lastIndexOf(element), 1);
  }
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
