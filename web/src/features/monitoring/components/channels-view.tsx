import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { channelValueProblem, MONITORING_MESSAGES, type ChannelKind } from '@common/monitoring-rules';
import { TrashIcon } from '@/components/icons';
import { LoadFailed } from '@/components/load-failed';
import { useGuardedSubmit } from '@/hooks/use-guarded-submit';
import { relativeTime } from '@/lib/relative-time';
import { toast } from '@/lib/toast-store';
import { ApiError } from '@/lib/api';
import { addChannel, deleteChannels, resendChannelConfirmation, updateChannel, type ChannelInfo, type NotificationChannel } from '../api/monitoring-api';
import { refreshChannels, useChannels, useChannelsInfo, useMonitoringInfo } from '../api/use-monitoring';
import { CHANNEL_HINTS, CHANNEL_ORDER, CHANNEL_PLACEHOLDERS, CHANNEL_TITLES } from '../lib/channel-kinds';
import { refusalMessage } from '../lib/refusal';
import { channelLimitProblem } from '../lib/task-limits';
import { WebhookSecretModal } from './webhook-secret-modal';

/** /monitoring/manage/channels: one block per kind with Disable, Edit and Add. */
export function ChannelsView() {
  const { data: channels, isLoading, error, mutate } = useChannels();
  const { data: kinds, error: kindsError, mutate: reloadKinds } = useChannelsInfo();
  const failed = (!channels && error && !isLoading) || (!kinds && kindsError);
  const [secret, setSecret] = useState<string | null>(null);

  return (
    <div className="page monitoring-page">
      <header className="page-header monitoring-header">
        <div>
          <h1>Notification Channels</h1>
          <p className="page-lead">Manage the way you get notified.</p>
        </div>
        <Link href="/monitoring/manage" className="button button-secondary">
          Back to Monitoring
        </Link>
      </header>
      {failed ? (
        <LoadFailed title="Could not load your channels" retry={() => Promise.all([mutate(), reloadKinds()])} />
      ) : (
      <div className="channel-blocks">
        {CHANNEL_ORDER.map((kind) => (
          <ChannelBlock
            key={kind}
            kind={kind}
            info={kinds ? kinds[kind] : undefined}
            channels={(channels ?? []).filter((channel) => channel.key === kind)}
            loading={isLoading}
            onSecret={setSecret}
          />
        ))}
      </div>
      )}
      {secret && <WebhookSecretModal secret={secret} onClose={() => setSecret(null)} />}
    </div>
  );
}

interface ChannelBlockProps {
  kind: ChannelKind;
  /** undefined while loading; null when the tier does not offer the kind. */
  info: ChannelInfo | null | undefined;
  channels: NotificationChannel[];
  loading: boolean;
  onSecret: (secret: string) => void;
}

function ChannelBlock({ kind, info, channels, loading, onSecret }: ChannelBlockProps) {
  const { data: usage } = useMonitoringInfo();
  const [, navigate] = useLocation();
  const [adding, setAdding] = useState(false);
  const title = CHANNEL_TITLES[kind];
  const newestFirst = [...channels].sort((a, b) => Date.parse(b.created) - Date.parse(a.created));

  const startAdd = () => {
    const limit = channelLimitProblem(usage, kind);
    if (info === null || (info && !info.available && !limit)) {
      navigate('/subscriptions/monitoring');
      return;
    }
    if (limit) toast.error(limit);
    else setAdding(true);
  };

  return (
    <section className="card channel-block" aria-labelledby={`channel-${kind}`} data-testid={`channel-block-${kind}`}>
      <header className="channel-block-head">
        <h2 id={`channel-${kind}`} className="card-title">
          {title}
        </h2>
        {info === null && <span className="channel-plan-note muted">Not in your plan</span>}
        <button type="button" className="button button-secondary button-small" aria-label={`Add ${title}`} onClick={startAdd} disabled={adding}>
          Add
        </button>
      </header>
      {adding && (
        <ChannelEditor
          kind={kind}
          initial=""
          onCancel={() => setAdding(false)}
          onConfirm={async (value) => {
            const { secret } = await addChannel(kind, value);
            setAdding(false);
            if (secret) onSecret(secret);
          }}
          failure="could not create channel"
        />
      )}
      {newestFirst.length === 0 && !adding ? (
        <div className="channel-row" data-testid="channel-row">
          <ChannelFacts value="" updated={null} emptyLabel="Not set" />
          {loading && <p className="muted channel-empty">Loading…</p>}
        </div>
      ) : (
        newestFirst.map((channel) => <ChannelRow key={channel.id} channel={channel} title={title} />)
      )}
    </section>
  );
}

function ChannelFacts({ value, updated, hint, emptyLabel = 'Disabled' }: { value: string; updated: string | null; hint?: string | null; emptyLabel?: string }) {
  return (
    <dl className="channel-facts">
      <div>
        <dt>Value</dt>
        <dd className={value ? 'channel-value' : 'muted'} data-testid="channel-value">
          {value || emptyLabel}
        </dd>
      </div>
      <div>
        <dt>Updated</dt>
        <dd data-testid="channel-updated">{updated ? relativeTime(updated) : 'N/A'}</dd>
      </div>
      {hint && (
        <div>
          <dt>Secret</dt>
          <dd className="muted">…{hint}</dd>
        </div>
      )}
    </dl>
  );
}

function ChannelRow({ channel, title }: { channel: NotificationChannel; title: string }) {
  const [editing, setEditing] = useState(false);
  const [busy, run] = useGuardedSubmit();

  const disable = () =>
    run(async () => {
      try {
        await updateChannel(channel.id, channel.key, '');
      } catch (cause) {
        toast.error(refusalMessage(cause) ?? 'could not update channel');
      }
      await refreshChannels();
    });

  const resend = () =>
    run(async () => {
      try {
        await resendChannelConfirmation(channel.id);
        toast.success(`Confirmation link sent to ${channel.value}`);
      } catch (cause) {
        if (cause instanceof ApiError && cause.status === 429) toast.error('A link was sent less than a minute ago: check the mailbox, or try again shortly');
        else toast.error(refusalMessage(cause) ?? 'could not send the confirmation');
      }
      await refreshChannels();
    });

  const remove = () =>
    run(async () => {
      try {
        const { success } = await deleteChannels([channel.id]);
        if (!success) throw new Error('not removed');
      } catch {
        toast.error('could not remove channels');
      }
      await refreshChannels();
    });

  return (
    <div className={`channel-row${channel.value ? '' : ' disabled'}`} data-testid="channel-row">
      {editing ? (
        <ChannelEditor
          kind={channel.key}
          initial={channel.value}
          onCancel={() => setEditing(false)}
          onConfirm={async (value) => {
            await updateChannel(channel.id, channel.key, value);
            setEditing(false);
          }}
          failure="could not update channel"
        />
      ) : (
        <>
          <ChannelFacts value={channel.value} updated={channel.updated} hint={channel.key === 'webhook' ? channel.secret_hint : null} />
          {channel.disabled_reason && <p className="channel-reason muted">{channel.disabled_reason}</p>}
          {channel.awaiting_confirmation && (
            <div className="channel-awaiting">
              <p data-testid="channel-awaiting">
                <strong>Awaiting confirmation.</strong> No alert goes to this address until the link mailed to it is followed.
              </p>
              <button type="button" className="button button-secondary button-small" disabled={busy} onClick={() => void resend()}>
                Resend confirmation
              </button>
            </div>
          )}
          <div className="channel-actions">
            {channel.value && (
              <button type="button" className="button button-ghost button-small" disabled={busy} aria-label={`Disable ${title}`} onClick={() => void disable()}>
                Disable
              </button>
            )}
            <button type="button" className="button button-secondary button-small" aria-label={`Edit ${title}`} onClick={() => setEditing(true)}>
              Edit
            </button>
            {!channel.value && (
              <button type="button" className="icon-button" disabled={busy} aria-label={`Remove ${title}`} onClick={() => void remove()}>
                <TrashIcon width={16} height={16} />
              </button>
            )}
          </div>
        </>
      )}
    </div>
  );
}

interface ChannelEditorProps {
  kind: ChannelKind;
  initial: string;
  /** Throws when the server refuses; edit mode is left only when it resolves. */
  onConfirm: (value: string) => Promise<void>;
  onCancel: () => void;
  failure: string;
}

function ChannelEditor({ kind, initial, onConfirm, onCancel, failure }: ChannelEditorProps) {
  const [value, setValue] = useState(initial);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, run] = useGuardedSubmit();
  const title = CHANNEL_TITLES[kind];
  const hint = CHANNEL_HINTS[kind];

  const confirm = () =>
    run(async () => {
      const trimmed = value.trim();
      // An empty value is refused here, on add and on edit: disabling is the Disable button
      // (which sends '' on purpose), never a side effect of a cleared field.
      const invalid = !trimmed ? MONITORING_MESSAGES.empty : channelValueProblem(kind, trimmed);
      if (invalid) {
        setProblem(invalid);
        return;
      }
      try {
        await onConfirm(trimmed);
      } catch (cause) {
        const refusal = refusalMessage(cause);
        if (refusal) setProblem(refusal);
        else toast.error(failure);
      }
      await refreshChannels();
    });

  return (
    <form
      className="channel-editor"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void confirm();
      }}
    >
      <label className="field">
        <span className="field-label">{title}</span>
        <input
          className="input"
          name={`channel-${kind}`}
          autoFocus
          autoComplete="off"
          spellCheck={false}
          inputMode={kind === 'phone' ? 'numeric' : undefined}
          placeholder={CHANNEL_PLACEHOLDERS[kind]}
          aria-invalid={problem ? true : undefined}
          value={value}
          onChange={(event) => {
            setValue(event.currentTarget.value);
            setProblem(null);
          }}
        />
        {hint && <span className="field-note">{hint}</span>}
      </label>
      {problem && (
        <p className="form-problem" role="alert" data-testid="channel-problem">
          {problem}
        </p>
      )}
      <div className="channel-actions">
        <button type="button" className="button button-ghost button-small" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="button button-primary button-small" disabled={busy}>
          Confirm
        </button>
      </div>
    </form>
  );
}
