/**
 * A real DNS server on loopback for the tests of the domain verification (dns2, UDP): it
 * answers TXT and A questions from the maps the test fills, by lower-case name, and nothing
 * else. The server under test reaches it through DNS_SERVERS=127.0.0.1:{port}. Used by
 * server/test/monitoring/domain-verification.test.ts and web/e2e/domain-verification.test.ts.
 */
import dns2 from 'dns2';

const { Packet } = dns2;

export interface TestDnsServer {
  /** TXT records per name; A addresses per name. Change them at any time. */
  txt: Map<string, string[]>;
  addresses: Map<string, string>;
  port: number;
  close(): Promise<void>;
}

export async function startTestDnsServer(): Promise<TestDnsServer> {
  const txt = new Map<string, string[]>();
  const addresses = new Map<string, string>();
  const server = dns2.createServer({
    udp: true,
    handle(request, send) {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      const name = (question?.name ?? '').toLowerCase();
      // dns2's types ask for a Resource instance; its encoder takes plain records.
      type Answer = (typeof response.answers)[number];
      if (question?.type === Packet.TYPE.TXT) {
        for (const data of txt.get(name) ?? []) response.answers.push({ name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 1, data } as unknown as Answer);
      } else if (question?.type === Packet.TYPE.A && addresses.has(name)) {
        response.answers.push({ name, type: Packet.TYPE.A, class: Packet.CLASS.IN, ttl: 1, address: addresses.get(name)! } as unknown as Answer);
      }
      send(response);
    },
  });
  const port = (await server.listen({ udp: { port: 0, address: '127.0.0.1' } })).udp!.port;
  return { txt, addresses, port, close: () => server.close() };
}
