import { useEffect } from 'react';
import { setPageTitle } from '@/lib/brand';

export function usePageTitle(page?: string): void {
  useEffect(() => setPageTitle(page), [page]);
}
