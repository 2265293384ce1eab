/**
 * A CPU profile of this process's JS thread (V8's sampling profiler through the inspector),
 * summed by where the time went: the floor scenario's `--profile` runs one more `/v2/search`
 * throughput run under it, after the measured rounds (the profiler's own cost stays out of
 * their figures), and prints the summary; the whole profile is written for DevTools.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Session } from 'node:inspector/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Starts sampling every `intervalUs`; the returned function stops it and gives the profile. */
export async function startProfile(intervalUs = 100): Promise<() => Promise<Profile>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: intervalUs });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
    session.disconnect();
    return profile;
  };
}

/**
 * Where a sample's time goes: V8's own entries by name (GC, idle, native code outside any JS
 * function: `(program)`), a package by its name under node_modules, Node's internals, and
 * the project's own files by path.
 */
export function placeOf(frame: ProfileNode['callFrame'], root: string): string {
  if (!frame.url) return frame.functionName.startsWith('(') ? frame.functionName : `native ${frame.functionName || '(anonymous)'}`;
  if (frame.url.startsWith('node:')) return 'node internals';
  const file = frame.url.replace(/^file:\/\//, '');
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
  if (pkg) return pkg[1]!;
  return path.relative(root, file);
}

/** Self time (ms) of each place and of each function, largest first. */
export function summarise(profile: Profile, root: string): { total: number; places: [string, number][]; functions: [string, number][] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const places = new Map<string, number>();
  const functions = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    if (!node) return;
    total += ms;
    const place = placeOf(node.callFrame, root);
    places.set(place, (places.get(place) ?? 0) + ms);
    const fn = `${node.callFrame.functionName || '(anonymous)'} ${place}${node.callFrame.url ? `:${node.callFrame.lineNumber + 1}` : ''}`;
    functions.set(fn, (functions.get(fn) ?? 0) + ms);
  });
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  return { total, places: sorted(places), functions: sorted(functions) };
}

/** The summary as lines (µs per request of the run), and the profile written to `file`. */
export function profileLines(profile: Profile, requests: number, root: string, file: string, top = 25): string[] {
  fs.writeFileSync(file, JSON.stringify(profile));
  const { total, places, functions } = summarise(profile, root);
  const us = (ms: number) => `${((ms * 1000) / requests).toFixed(2)} µs`;
  const share = (ms: number) => `${((100 * ms) / total).toFixed(1)}%`;
  return [
    `profile of the JS thread under load: ${requests} requests, ${us(total)} a request sampled (idle included); the whole profile: ${file} (DevTools, Performance)`,
    '  by place (self time a request):',
    ...places.slice(0, top).map(([place, ms]) => `    ${us(ms).padStart(10)} ${share(ms).padStart(6)}  ${place}`),
    '  by function (self time a request):',
    ...functions.slice(0, top).map(([fn, ms]) => `    ${us(ms).padStart(10)} ${share(ms).padStart(6)}  ${fn}`),
  ];
}
