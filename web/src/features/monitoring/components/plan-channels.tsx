import { useState } from 'react';
import { channelValueProblem, type ChannelKind } from '@common/monitoring-rules';
import { useGuardedSubmit } from '@/hooks/use-guarded-submit';
import { relativeTime } from '@/lib/relative-time';
import { toast } from '@/lib/toast-store';
import { addChannel, deleteChannels, updateChannel, type ChannelInfo } from '../api/monitoring-api';
import { refreshChannels, useChannelsInfo } from '../api/use-monitoring';
import { CHANNEL_HINTS, CHANNEL_ORDER, CHANNEL_PLACEHOLDERS, CHANNEL_TITLES } from '../lib/channel-kinds';
import { WebhookSecretModal } from './webhook-secret-modal';
import './monitoring.css';

/** The purchase area names the phone kind `sms` in its messages. */
const TYPE_NAMES: Record<ChannelKind, string> = { email: 'email', phone: 'sms', webhook: 'webhook' };

/**
 * /subscriptions/monitoring's channel editing: one
 * row per kind from GET /notification-channels/info. An empty value is always accepted and
 * removes the channel; anything else must pass the kind's check ('Issue validating {type}');
 * a failed save says 'Issue updating {type}'.
 */
export function PlanChannels() {
  const { data: kinds, error } = useChannelsInfo();
  const [secret, setSecret] = useState<string | null>(null);
  return (
    <section className="card plan-channels" aria-labelledby="plan-channels-title" data-testid="plan-channels">
      <h2 id="plan-channels-title" className="card-title">
        Notification Channels
      </h2>
      <p className="muted plan-channels-lead">Where your monitoring reports are sent. Clear a value to remove that channel.</p>
      {!kinds ? (
        <p className="muted">{error ? 'Channels are not available right now.' : 'Loading…'}</p>
      ) : (
        <ul className="plan-channel-list">
          {CHANNEL_ORDER.map((kind) => (
            <PlanChannelRow key={kind} kind={kind} info={kinds[kind]} onSecret={setSecret} />
          ))}
        </ul>
      )}
      {secret && <WebhookSecretModal secret={secret} onClose={() => setSecret(null)} />}
    </section>
  );
}

function PlanChannelRow({ kind, info, onSecret }: { kind: ChannelKind; info: ChannelInfo | null; onSecret: (secret: string) => void }) {
  const saved = info?.value ?? '';
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(saved);
  const [busy, run] = useGuardedSubmit();
  const title = CHANNEL_TITLES[kind];
  const type = TYPE_NAMES[kind];

  const save = () =>
    run(async () => {
      const value = draft.trim();
      if (value && channelValueProblem(kind, value)) {
        toast.error(`Issue validating ${type}`);
        return;
      }
      try {
        if (!value) {
          if (info?.id) await deleteChannels([info.id]);
        } else if (info?.id) {
          await updateChannel(info.id, kind, value);
        } else {
          const { secret } = await addChannel(kind, value);
          if (secret) onSecret(secret);
        }
        setEditing(false);
      } catch {
        toast.error(`Issue updating ${type}`);
      }
      await refreshChannels();
    });

  return (
    <li className="plan-channel" data-testid={`plan-channel-${kind}`}>
      <span className="plan-channel-kind">{title}</span>
      {editing ? (
        <form
          className="plan-channel-edit"
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            void save();
          }}
        >
          <input
            className="input"
            aria-label={`${title} channel`}
            placeholder={CHANNEL_PLACEHOLDERS[kind]}
            autoFocus
            autoComplete="off"
            spellCheck={false}
            value={draft}
            onChange={(event) => setDraft(event.currentTarget.value)}
          />
          {CHANNEL_HINTS[kind] && <span className="field-note">{CHANNEL_HINTS[kind]}</span>}
          <div className="channel-actions">
            <button type="button" className="button button-ghost button-small" onClick={() => setEditing(false)}>
              Cancel
            </button>
            <button type="submit" className="button button-primary button-small" disabled={busy}>
              Save
            </button>
          </div>
        </form>
      ) : (
        <>
          <span className={`plan-channel-value${saved ? '' : ' muted'}`} data-testid="plan-channel-value">
            {info === null ? 'Not in your plan' : saved || 'Not set'}
          </span>
          <span className="plan-channel-updated muted">{info?.updated ? relativeTime(info.updated) : ''}</span>
          {info !== null && (
            <button
              type="button"
              className="button button-secondary button-small"
              aria-label={`Edit ${title} channel`}
              onClick={() => {
                setDraft(saved);
                setEditing(true);
              }}
            >
              Edit
            </button>
          )}
        </>
      )}
    </li>
  );
}
