import { Redirect } from 'wouter';

/**
 * /documentation/api-v1 (the 404 page's API link): the V1 documentation lives at
 * /monitoring/documentation, so this old address redirects there, keeping any #anchor.
 * Anonymous visitors then meet the sign-in redirect of the protected page and come back to it.
 */
export function ApiV1Redirect() {
  return <Redirect to={`/monitoring/documentation${window.location.hash}`} replace />;
}
