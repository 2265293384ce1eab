import { useEffect, useState } from 'react';
import { usePageTitle } from '@/hooks/use-page-title';

/** /test: an empty page, open to everyone, that joins the "test" websocket channel. */
export function TestPage() {
  usePageTitle('Test');
  const [state, setState] = useState('connecting');

  useEffect(() => {
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
    const socket = new WebSocket(url);
    socket.onopen = () => {
      socket.send(JSON.stringify({ type: 'action', action: 'join-channel', channel: 'test' }));
      setState('joined');
    };
    socket.onclose = () => setState('closed');
    return () => socket.close();
  }, []);

  return (
    <div className="plain-page">
      <main className="not-found">
        <h1>Test</h1>
        <p className="muted" data-testid="ws-state">
          Websocket: {state}
        </p>
      </main>
    </div>
  );
}
