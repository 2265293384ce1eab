import { SWRConfig } from 'swr';
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
      <AppRouter />
      <Toaster />
    </SWRConfig>
  );
}
