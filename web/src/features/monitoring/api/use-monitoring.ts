import useSWR, { mutate } from 'swr';
import { ApiError } from '@/lib/api';
import { useSession } from '@/lib/session';
import { toast } from '@/lib/toast-store';
import { getChannels, getChannelsInfo, getDomainVerifications, getMonitoringInfo, getReport, getReports, getTasks, type MonitorTask } from './monitoring-api';

const quiet401 = (message: string) => (cause: unknown) => {
  if (!(cause instanceof ApiError && cause.status === 401)) toast.error(message);
};

export const INFO_KEY = '/monitoring/info';
export const TASKS_KEY = '/monitoring/get-tasks';
export const CHANNELS_KEY = '/notification-channels/get';
export const CHANNELS_INFO_KEY = '/notification-channels/info';
export const REPORTS_KEY = '/monitoring/reports/get-reports';
export const DOMAINS_KEY = '/monitoring/domains/get';

/** GET /monitoring/info: tier, maxima and what is in use. */
export function useMonitoringInfo() {
  const { token } = useSession();
  return useSWR(token ? INFO_KEY : null, getMonitoringInfo, { onError: quiet401('Could not pull info') });
}

/** Every task of the user: one page holds the largest tier's maximum, later pages are read on. */
export function useTasks() {
  const { token } = useSession();
  return useSWR<MonitorTask[]>(
    token ? TASKS_KEY : null,
    async () => {
      const tasks: MonitorTask[] = [];
      for (let page: number | null = 1; page !== null; ) {
        const answer = await getTasks(page);
        tasks.push(...answer.tasks);
        page = answer.next_page && answer.next_page > page ? answer.next_page : null;
      }
      return tasks;
    },
    { onError: quiet401('Could not pull info') },
  );
}

/** The verification of each domain of the user's domain tasks (values are shown only once verified). */
export function useDomainVerifications() {
  const { token } = useSession();
  return useSWR(token ? DOMAINS_KEY : null, async () => (await getDomainVerifications()).domains, { onError: quiet401('Could not pull info') });
}

export function useChannels() {
  const { token } = useSession();
  return useSWR(token ? CHANNELS_KEY : null, async () => (await getChannels()).notification_channels, {
    onError: quiet401('Issue loading info'),
  });
}

export function useChannelsInfo() {
  const { token } = useSession();
  return useSWR(token ? CHANNELS_INFO_KEY : null, getChannelsInfo, { onError: quiet401('Issue loading info') });
}

export function useReports(page: number, pageSize: number) {
  const { token } = useSession();
  return useSWR(token ? [REPORTS_KEY, page, pageSize] : null, () => getReports(page, pageSize), {
    keepPreviousData: true,
    onError: quiet401('Could not pull info'),
  });
}

export function useReport(id: string | null) {
  const { token } = useSession();
  // An unknown id (404) is said in the overview itself, without a toast.
  return useSWR(token && id ? ['/monitoring/reports/get-report', id] : null, () => getReport(id!), {
    onError: (cause) => {
      if (!(cause instanceof ApiError && cause.status === 404)) quiet401('Could not pull info')(cause);
    },
  });
}

/** After a task changes: the list and the usage counts. */
export const refreshTasks = () => Promise.all([mutate(TASKS_KEY), mutate(INFO_KEY), mutate(DOMAINS_KEY)]);

/** After a channel changes: the channel list, the per-kind info and the usage counts. */
export const refreshChannels = () => Promise.all([mutate(CHANNELS_KEY), mutate(CHANNELS_INFO_KEY), mutate(INFO_KEY)]);
