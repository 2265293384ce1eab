import { useState, type InputHTMLAttributes } from 'react';
import { EyeIcon, EyeOffIcon } from './icons';

type PasswordInputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'type'> & {
  /** Adds an eye button that reveals the typed text. */
  revealable?: boolean;
};

export function PasswordInput({ revealable = true, className, ...props }: PasswordInputProps) {
  const [shown, setShown] = useState(false);
  return (
    <div className="password-field">
      <input {...props} type={shown ? 'text' : 'password'} className={`input ${className ?? ''}`} />
      {revealable && (
        <button
          type="button"
          className="password-reveal"
          aria-label={shown ? 'Hide password' : 'Show password'}
          aria-pressed={shown}
          onClick={() => setShown((value) => !value)}
        >
          {shown ? <EyeOffIcon /> : <EyeIcon />}
        </button>
      )}
    </div>
  );
}
