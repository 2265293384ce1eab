import { useLocation } from 'wouter';
import { usePageTitle } from '@/hooks/use-page-title';
import { ChannelsView } from './channels-view';
import { TasksView } from './tasks-view';
import './monitoring.css';

/** /monitoring/manage/tasks and /monitoring/manage/channels: the view follows the path. */
export function ManageSubpage() {
  const [location] = useLocation();
  const tasks = location.includes('tasks');
  usePageTitle(tasks ? 'Monitor Tasks' : 'Notification Channels');
  return tasks ? <TasksView /> : <ChannelsView />;
}
