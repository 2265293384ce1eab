import { useMemo, useState } from 'react';
import { Link } from 'wouter';
import { STANDARD_TASK_KINDS, TASK_KINDS, type TaskKind } from '@common/monitoring-rules';
import { ChevronDownIcon, TrashIcon } from '@/components/icons';
import { Modal } from '@/components/modal';
import { LoadFailed } from '@/components/load-failed';
import { useGuardedSubmit } from '@/hooks/use-guarded-submit';
import { relativeTime } from '@/lib/relative-time';
import { toast } from '@/lib/toast-store';
import { clearDomains, deleteTasks, updateTask, type MonitorTask } from '../api/monitoring-api';
import { refreshTasks, useDomainVerifications, useMonitoringInfo, useTasks } from '../api/use-monitoring';
import { TASK_TITLES } from '../lib/channel-kinds';
import { refusalMessage } from '../lib/refusal';
import { taskLimitProblem } from '../lib/task-limits';
import { sortTasks, type SortState, type TaskColumn } from '../lib/task-sort';
import { TaskDialog } from './task-dialog';
import { DomainVerificationPanel } from './domain-verification-panel';
import { onTabListKeyDown, tabProps } from '@/components/tabs';
import { useScrollCue } from '@/hooks/use-scroll-cue';


type Dialog = { mode: 'add' } | { mode: 'edit'; task: MonitorTask } | { mode: 'delete'; ids: string[] } | null;

const COLUMNS: { column: TaskColumn; label: string }[] = [
  { column: 'value', label: 'Value' },
  { column: 'created', label: 'Created' },
  { column: 'updated', label: 'Updated' },
  { column: 'active', label: 'Status' },
];

/** /monitoring/manage/tasks: one tab per kind, select all, sorting, add, edit and delete. */
export function TasksView() {
  const { data: info } = useMonitoringInfo();
  const { data: tasks, isLoading, error: tasksError, mutate: reloadTasks } = useTasks();
  const { data: domains } = useDomainVerifications();
  const domainVerified = useMemo(() => new Map((domains ?? []).map((d) => [d.domain, d.verified])), [domains]);
  const scrollCue = useScrollCue<HTMLDivElement>();
  const [kind, setKind] = useState<TaskKind>('username');
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [sort, setSort] = useState<SortState>({ column: 'created', direction: 'desc' });
  const [dialog, setDialog] = useState<Dialog>(null);
  const [deleting, runDelete] = useGuardedSubmit();
  const [toggling, runToggle] = useGuardedSubmit();

  const rows = useMemo(() => sortTasks((tasks ?? []).filter((task) => task.key === kind), sort), [tasks, kind, sort]);
  const visibleSelected = rows.filter((task) => selected.has(task.id));
  const allSelected = rows.length > 0 && visibleSelected.length === rows.length;
  const countOf = (k: TaskKind) => (tasks ?? []).filter((task) => task.key === k).length;
  const isStandard = (STANDARD_TASK_KINDS as readonly string[]).includes(kind);
  const used = info ? (isStandard ? info.active_standard_tasks : info.active_domain_tasks) : 0;
  const max = info ? (isStandard ? info.max_standard_tasks : info.max_domain_tasks) : 0;

  const chooseKind = (next: TaskKind) => {
    setKind(next);
    setSelected(new Set());
  };

  const toggleSort = (column: TaskColumn) =>
    setSort((current) => ({ column, direction: current.column === column && current.direction === 'asc' ? 'desc' : 'asc' }));

  const select = (id: string, on: boolean) =>
    setSelected((current) => {
      const next = new Set(current);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });

  const openAdd = () => {
    const problem = taskLimitProblem(info, kind);
    if (problem) toast.error(problem);
    else setDialog({ mode: 'add' });
  };

  const remove = (ids: string[]) =>
    runDelete(async () => {
      try {
        const { success } = kind === 'domain' ? await clearDomains(ids) : await deleteTasks(ids);
        if (!success) throw new Error('not removed');
        setSelected((current) => new Set([...current].filter((id) => !ids.includes(id))));
        setDialog(null);
      } catch {
        toast.error('could not remove tasks');
      }
      await refreshTasks();
    });

  // Limits count paused tasks too, so resuming one never needs room (docs/monitoring.md).
  const toggleActive = (task: MonitorTask) =>
    runToggle(async () => {
      try {
        await updateTask({ id: task.id, key: task.key, value: task.value, active: !task.active });
      } catch (cause) {
        toast.error(refusalMessage(cause) ?? 'could not update task');
      }
      await refreshTasks();
    });

  return (
    <div className="page monitoring-page">
      <header className="page-header monitoring-header">
        <div>
          <h1>Monitor Tasks</h1>
          <p className="page-lead">Values watched in every new data well. A match creates a report and notifies you.</p>
        </div>
        <Link href="/monitoring/manage" className="button button-secondary">
          Back to Monitoring
        </Link>
      </header>

      <div ref={scrollCue} className="task-tabs scroll-cue" role="tablist" aria-label="Task kinds" onKeyDown={onTabListKeyDown}>
        {TASK_KINDS.map((k) => (
          <button
            key={k}
            type="button"
            role="tab"
            {...tabProps(k === kind)}
            className={`task-tab${k === kind ? ' active' : ''}`}
            onClick={() => chooseKind(k)}
          >
            {TASK_TITLES[k]}
            {tasks && <span className="task-tab-count">{countOf(k)}</span>}
          </button>
        ))}
      </div>

      {!tasks && tasksError && !isLoading ? (
        <LoadFailed title="Could not load your tasks" retry={reloadTasks} />
      ) : (
      <section className="card tasks-card" role="tabpanel" aria-label={`${TASK_TITLES[kind]} tasks`}>
        <div className="tasks-toolbar">
          <label className="checkbox">
            <input
              type="checkbox"
              aria-label="Select all"
              checked={allSelected}
              disabled={rows.length === 0}
              onChange={(event) => setSelected(event.currentTarget.checked ? new Set(rows.map((task) => task.id)) : new Set())}
            />
            <span>Select all</span>
          </label>
          {info && (
            <span className="muted tasks-usage" data-testid="tasks-usage">
              {isStandard ? 'Standard' : 'Domain'} tasks: {used.toLocaleString('en-US')} / {max.toLocaleString('en-US')}
            </span>
          )}
          <div className="tasks-actions">
            <button
              type="button"
              className="button button-danger button-small"
              disabled={visibleSelected.length === 0}
              onClick={() => setDialog({ mode: 'delete', ids: visibleSelected.map((task) => task.id) })}
            >
              <TrashIcon width={15} height={15} />
              Delete Selected{visibleSelected.length > 0 ? ` (${visibleSelected.length})` : ''}
            </button>
            <button type="button" className="button button-primary button-small" onClick={openAdd}>
              Add Task
            </button>
          </div>
        </div>

        {kind === 'domain' && info && info.max_domain_tasks === 0 && (
          <p className="tasks-note" data-testid="domain-note">
            Domain tasks come with{' '}
            <Link href="/subscriptions/monitoring" className="link">
              Domain Monitoring or Enterprise
            </Link>
            .
          </p>
        )}

        <div className="task-row task-columns" role="group" aria-label="Sort tasks">
          <span />
          {COLUMNS.map(({ column, label }) => (
            <button
              key={column}
              type="button"
              className={`task-sort${sort.column === column ? ' active' : ''}`}
              data-sort={sort.column === column ? (sort.direction === 'asc' ? 'ascending' : 'descending') : 'none'}
              aria-label={`Sort by ${label}${sort.column === column ? (sort.direction === 'asc' ? ', ascending' : ', descending') : ''}`}
              onClick={() => toggleSort(column)}
            >
              {label}
              <ChevronDownIcon width={14} height={14} className={sort.column === column && sort.direction === 'asc' ? 'flip' : ''} />
            </button>
          ))}
          <span />
        </div>

        {rows.length === 0 ? (
          <p className="muted tasks-empty" data-testid="tasks-empty">
            {isLoading ? 'Loading tasks…' : `No ${TASK_TITLES[kind].toLowerCase()} tasks yet.`}
          </p>
        ) : (
          <ul className="task-list">
            {rows.map((task) => (
              <li key={task.id} className={`task-row${task.active ? '' : ' paused'}`} data-testid="task-row">
                <input
                  type="checkbox"
                  className="task-check"
                  aria-label={`Select ${task.value}`}
                  checked={selected.has(task.id)}
                  onChange={(event) => select(task.id, event.currentTarget.checked)}
                />
                <span className="task-value">
                  <span data-testid="task-value">{task.value}</span>
                  {task.key === 'domain' && domainVerified.has(task.value) && (
                    <span className={`domain-state${domainVerified.get(task.value) ? ' verified' : ''}`} data-testid="task-domain-state">
                      {domainVerified.get(task.value) ? 'Verified' : 'Not verified'}
                    </span>
                  )}
                </span>
                <span className="task-date" title={task.created}>
                  <span className="task-label">Created </span>
                  {new Date(task.created).toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric' })}
                </span>
                <span className="task-date" title={task.updated}>
                  <span className="task-label">Updated </span>
                  {relativeTime(task.updated)}
                </span>
                <button
                  type="button"
                  className={`task-status${task.active ? ' on' : ''}`}
                  disabled={toggling}
                  aria-label={`${task.active ? 'Active: pause' : 'Paused: resume'} ${task.value}`}
                  onClick={() => void toggleActive(task)}
                >
                  {task.active ? 'Active' : 'Paused'}
                </button>
                <span className="task-row-actions">
                  <button type="button" className="button button-ghost button-small" aria-label={`Edit ${task.value}`} onClick={() => setDialog({ mode: 'edit', task })}>
                    Edit
                  </button>
                  <button
                    type="button"
                    className="icon-button"
                    aria-label={`Delete ${task.value}`}
                    onClick={() => setDialog({ mode: 'delete', ids: [task.id] })}
                  >
                    <TrashIcon width={16} height={16} />
                  </button>
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
      )}

      {kind === 'domain' && <DomainVerificationPanel />}

      {dialog?.mode === 'add' && <TaskDialog kind={kind} onClose={() => setDialog(null)} />}
      {dialog?.mode === 'edit' && <TaskDialog kind={dialog.task.key} task={dialog.task} onClose={() => setDialog(null)} />}
      {dialog?.mode === 'delete' && (
        <Modal
          title={dialog.ids.length === 1 ? 'Delete Task' : 'Delete Tasks'}
          onClose={() => setDialog(null)}
          actions={
            <>
              <button type="button" className="button button-secondary" onClick={() => setDialog(null)}>
                Cancel
              </button>
              <button type="button" className="button button-danger" disabled={deleting} onClick={() => void remove(dialog.ids)}>
                Delete
              </button>
            </>
          }
        >
          <p>
            {dialog.ids.length === 1 ? 'This task stops' : `These ${dialog.ids.length} tasks stop`} being watched. Reports already made are kept.
          </p>
        </Modal>
      )}
    </div>
  );
}
