/** The product's mails: plain text plus a minimal HTML part, every value escaped. */

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Extra headers (an alert's List-Unsubscribe and List-Unsubscribe-Post). */
  headers?: Record<string, string>;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function compose(to: string, brand: string, subject: string, paragraphs: string[], link?: { url: string; label: string }): OutgoingMail {
  const text = [...paragraphs, ...(link ? [`${link.label}: ${link.url}`] : []), `— ${brand}`].join('\n\n');
  const html =
    `<div style="font-family:system-ui,sans-serif;max-width:560px">` +
    paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('') +
    (link ? `<p><a href="${escapeHtml(link.url)}">${escapeHtml(link.label)}</a></p>` : '') +
    `<p style="color:#777">— ${escapeHtml(brand)}</p></div>`;
  return { to, subject: `${brand}: ${subject}`, text, html };
}

export const MailTemplates = {
  confirmAlertChannel: (to: string, brand: string, url: string, ttlHours: number) =>
    compose(
      to,
      brand,
      'confirm monitoring alerts to this address',
      [
        `Someone (maybe you) asked ${brand} to send monitoring alerts to this email address.`,
        `No alert is sent here until the address is confirmed. The link works once, for ${ttlHours} hours. If you did not ask for this, ignore this mail.`,
      ],
      { url, label: 'Confirm alerts to this address' },
    ),
  verifyEmail: (to: string, brand: string, url: string) =>
    compose(to, brand, 'verify your email', [`Welcome to ${brand}.`, 'Confirm your email address to finish creating your account.'], {
      url,
      label: 'Verify email',
    }),
  alreadyRegistered: (to: string, brand: string, loginUrl: string, resetUrl: string) =>
    compose(
      to,
      brand,
      'someone tried to register with your email',
      [
        'Somebody (maybe you) tried to create an account with this email address, which already has one.',
        `If it was you, log in at ${loginUrl} or reset your password at ${resetUrl}. If not, you can ignore this mail.`,
      ],
    ),
  resetPassword: (to: string, brand: string, url: string) =>
    compose(to, brand, 'reset your password', ['A password reset was requested for your account. If it was not you, ignore this mail.'], {
      url,
      label: 'Set a new password',
    }),
  removeEntry: (to: string, brand: string, source: string, url: string) =>
    compose(
      to,
      brand,
      'confirm the removal of your entry',
      [
        `Someone asked to remove an entry with this email address from ${brand} search results (source: ${source}).`,
        'Following the link removes it for good. If you did not ask for this, ignore this mail.',
      ],
      { url, label: 'Remove the entry' },
    ),
  optOut: (to: string, brand: string, url: string, hours: number) =>
    compose(
      to,
      brand,
      'see and remove your entries',
      [
        `Someone asked to remove this email address from ${brand} search results. The link shows how many leaked records hold it, by source, and opts it out with one button: no search, alert or export shows them, nor records of breaches added later. If the address is opted out already, the link lets you undo that.`,
        `It works once and for ${hours} hours. If you did not ask for this, ignore this mail: nothing changes.`,
      ],
      { url, label: 'See and remove my entries' },
    ),
  closeAccount: (to: string, brand: string, url: string) =>
    compose(
      to,
      brand,
      'confirm account closure',
      ['You asked to close your account. Following the link ends every session and disables your API key.', 'If it was not you, ignore this mail and change your password.'],
      { url, label: 'Close my account' },
    ),
  /**
   * Repeated wrong authentication codes after the right password (auth-service.ts): the
   * password is likely known to someone else. Never the codes tried, the address or a token.
   */
  wrongSecondFactorCodes: (to: string, brand: string, profileUrl: string) =>
    compose(
      to,
      brand,
      'wrong authentication codes after your password',
      [
        'Someone signed in to your account with your correct password, then entered several wrong authentication codes. The codes were refused and no session was started by them.',
        'If it was you, nothing needs doing. If not, someone knows your password: change it now, and look at your sessions and sign-in history in your profile.',
      ],
      { url: profileUrl, label: 'Open your profile' },
    ),
  /** A monitoring alert to an email channel (List-Unsubscribe headers added by the sender). */
  monitoringAlert: (to: string, brand: string, report: { url: string; wellName: string; results: number; unsubscribeUrl: string }) =>
    compose(
      to,
      brand,
      'new results for your monitored values',
      [
        `Your monitoring found ${report.results} new ${report.results === 1 ? 'record' : 'records'} in ${report.wellName}.`,
        'Open the report to see which of your monitored values they match.',
        `To stop these alerts to this address: ${report.unsubscribeUrl}`,
      ],
      { url: report.url, label: 'Open the report' },
    ),
  /** An alert that could not be delivered to one of the user's channels after every attempt. */
  deliveryFailed: (to: string, brand: string, channel: string, reason: string, reportUrl: string) =>
    compose(
      to,
      brand,
      'a monitoring alert could not be delivered',
      [`An alert could not be delivered to your ${channel}: ${reason}.`, 'The report is in your dashboard; check the channel on the notification channels page.'],
      { url: reportUrl, label: 'Open the report' },
    ),
  /** A domain verification link mailed to a role address of the domain (docs/monitoring.md "Domain verification"). */
  domainVerification: (to: string, brand: string, domain: string, url: string, validHours: number) =>
    compose(
      to,
      brand,
      `confirm monitoring of ${domain}`,
      [
        `A ${brand} account asks to monitor breached records of ${domain} and chose this address to prove control of the domain.`,
        `If this is you or your organisation, open the link and confirm within ${validHours} hours. If not, ignore this mail: nothing is shown to that account without it.`,
      ],
      { url, label: 'Confirm the domain' },
    ),
};
