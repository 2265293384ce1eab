import { checkPassword, passwordStrength, type PasswordStrength as Strength } from '@common/credentials';
import { CheckIcon } from './icons';
import './password-strength.css';

const LABELS: Record<Strength, string> = {
  none: 'Enter a password',
  'weak-2': 'Very weak',
  weak: 'Weak',
  okay: 'Okay',
  strong: 'Strong',
};

/** Filled bars out of four for each level. */
const BARS: Record<Strength, number> = { none: 0, 'weak-2': 1, weak: 2, okay: 3, strong: 4 };

/** The strength meter and the rules it is scored on. */
export function PasswordStrength({ password }: { password: string }) {
  const strength = passwordStrength(password);
  const checks = checkPassword(password);
  const rules = [
    { met: checks.length, text: '8 to 55 characters' },
    { met: checks.upperAndDigit, text: '1 uppercase letter and 1 number' },
    { met: checks.special, text: '1 special character (optional)' },
  ];
  return (
    <div className="strength" data-strength={strength}>
      <div className="strength-head">
        <span className="strength-title">Password strength</span>
        <span className="strength-label" data-testid="strength-label">
          {LABELS[strength]}
        </span>
      </div>
      <div className="strength-bars" aria-hidden="true">
        {[1, 2, 3, 4].map((bar) => (
          <span key={bar} className={bar <= BARS[strength] ? 'on' : ''} />
        ))}
      </div>
      <ul className="strength-rules">
        {rules.map((rule) => (
          <li key={rule.text} className={rule.met ? 'met' : ''}>
            <CheckIcon width={14} height={14} />
            {rule.text}
          </li>
        ))}
      </ul>
    </div>
  );
}
