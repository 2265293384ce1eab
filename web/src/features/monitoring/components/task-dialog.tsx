import { useState } from 'react';
import { taskValueProblem, type TaskKind } from '@common/monitoring-rules';
import { Modal } from '@/components/modal';
import { useGuardedSubmit } from '@/hooks/use-guarded-submit';
import { toast } from '@/lib/toast-store';
import { addTask, updateTask, type MonitorTask } from '../api/monitoring-api';
import { refreshTasks } from '../api/use-monitoring';
import { TASK_HINTS, TASK_PLACEHOLDERS, TASK_TITLES } from '../lib/channel-kinds';
import { refusalMessage } from '../lib/refusal';

interface TaskDialogProps {
  kind: TaskKind;
  /** Editing this task; adding when absent. */
  task?: MonitorTask;
  onClose: () => void;
}

/**
 * Add or edit one task. The value is checked with the shared rules before anything is sent;
 * a refusal shows the server's message here. Turning a paused task back on needs
 * no room: limits count paused tasks too.
 */
export function TaskDialog({ kind, task, onClose }: TaskDialogProps) {
  const [value, setValue] = useState(task?.value ?? '');
  const [active, setActive] = useState(task?.active ?? true);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, run] = useGuardedSubmit();
  const title = `${task ? 'Edit' : 'Add'} ${TASK_TITLES[kind]} Task`;
  const hint = TASK_HINTS[kind];

  const submit = () =>
    run(async () => {
      const trimmed = value.trim();
      const invalid = taskValueProblem(kind, trimmed);
      if (invalid) {
        setProblem(invalid);
        return;
      }
      setProblem(null);
      try {
        if (task) await updateTask({ id: task.id, key: kind, value: trimmed, active });
        else await addTask(kind, trimmed);
        await refreshTasks();
        onClose();
      } catch (cause) {
        const refusal = refusalMessage(cause);
        if (refusal) setProblem(refusal);
        else toast.error(task ? 'could not update task' : 'could not create new task');
        await refreshTasks();
      }
    });

  return (
    <Modal
      title={title}
      onClose={onClose}
      actions={
        <>
          <button type="button" className="button button-secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" form="task-form" className="button button-primary" disabled={busy}>
            {task ? 'Save' : 'Add'}
          </button>
        </>
      }
    >
      <form
        id="task-form"
        className="task-form"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <label className="field">
          <span className="field-label">{TASK_TITLES[kind]}</span>
          <input
            className="input"
            name="task-value"
            autoFocus
            autoComplete="off"
            spellCheck={false}
            placeholder={TASK_PLACEHOLDERS[kind]}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? 'task-problem' : undefined}
            value={value}
            onChange={(event) => {
              setValue(event.currentTarget.value);
              setProblem(null);
            }}
          />
          {hint && <span className="field-note">{hint}</span>}
        </label>
        {task && (
          <label className="checkbox">
            <input type="checkbox" name="task-active" checked={active} onChange={(event) => setActive(event.currentTarget.checked)} />
            <span>Active</span>
          </label>
        )}
        {problem && (
          <p className="form-problem" id="task-problem" role="alert" data-testid="task-problem">
            {problem}
          </p>
        )}
      </form>
    </Modal>
  );
}
