import { SWRConfig } from 'swr';
import { Banner } from '@/components/banner';
import { SkipLink } from '@/components/skip-link';
import { Toaster } from '@/components/toaster';
import { api } from '@/lib/api';
import { AppRouter } from './router';

const swrOptions = {
  fetcher: (path: string) => api.get(path),
  revalidateOnFocus: false,
  shouldRetryOnError: false,
};

export function App() {
  return (
    <SWRConfig value={swrOptions}>
      <SkipLink />
      {/* Every screen outside the dashboard frame (which shows its own, beside the sidebar). */}
      <Banner />
      <AppRouter />
      <Toaster />
    </SWRConfig>
  );
}
