import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app';
import { setPageTitle } from './lib/brand';
import { startRealtime } from './lib/realtime';
import { startSession } from './lib/session';
import { initTheme } from './lib/theme';
import './styles/app.css';

initTheme();
setPageTitle();
void startSession();
startRealtime();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
