/**
 * The request guard for text (reliability test 39): every string of a request's body,
 * query string and path parameters, keys included, is refused with 400 when it holds a NUL
 * character or an unpaired surrogate (common/text-rules.ts), before validation and before
 * any handler runs, so nothing is stored, counted or charged. One `preValidation` hook on
 * the root instance: every route has it, the ones registered later by plugins included.
 * Raw bodies (the payment webhooks keep a Buffer to check its signature) are not text and
 * are left alone; headers cannot carry a NUL (Node's HTTP parser refuses it).
 */
import type { FastifyInstance } from 'fastify';
import { Errors } from './errors';
import { textProblem, textProblemMessage } from '../common/text-rules';

/** The first bad string in `value` as a refusal message, or null. Iterative: any nesting depth. */
export function findBadText(value: unknown, where: string): string | null {
  const stack: [unknown, string][] = [[value, where]];
  while (stack.length) {
    const [item, path] = stack.pop()!;
    if (typeof item === 'string') {
      const problem = textProblem(item);
      if (problem) return textProblemMessage(problem, path);
    } else if (Array.isArray(item)) {
      for (let i = 0; i < item.length; i++) stack.push([item[i], `${path}/${i}`]);
    } else if (item !== null && typeof item === 'object' && !ArrayBuffer.isView(item)) {
      for (const [key, child] of Object.entries(item)) {
        const problem = textProblem(key);
        if (problem) return textProblemMessage(problem, `${path} (a property name)`);
        stack.push([child, `${path}/${key}`]);
      }
    }
  }
  return null;
}

export function registerTextInputGuard(app: FastifyInstance): void {
  // A callback hook: it runs on every request, and a callback costs no promise.
  app.addHook('preValidation', (request, _reply, done) => {
    const refusal = findBadText(request.params, 'params') ?? findBadText(request.query, 'querystring') ?? findBadText(request.body, 'body');
    done(refusal ? Errors.badRequest(refusal) : undefined);
  });
}
